import { access } from "node:fs/promises";
import { jsonlSource } from "./jsonl-source.js";
import type { AnyKysely } from "./ledger.js";
import { openTarget, TargetError } from "./open-target.js";
import type { ImportSource } from "./source.js";
import { AuthjsSourceError, authjsSource, findAuthjsTables } from "./sources/authjs.js";
import { betterAuthSource } from "./sources/better-auth.js";
import { betterAuthSecretsFromEnv } from "./sources/better-auth-crypto.js";
import { parseSupabaseDecryptionKeys, supabaseSource } from "./sources/supabase.js";

/** The kinds of source the command reads (`--from`). */
export const SOURCE_KINDS = ["jsonl", "better-auth", "authjs", "supabase"] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** The source could not be opened: a one-line message, and the run does not start (exit code 2). */
export class SourceError extends Error {}

/** A source ready to read, what the operator should know before the run, and how to close it. */
export interface OpenedSource {
  source: ImportSource;
  /** One line each, printed before the run (e.g. no Better Auth secret: 2FA accounts will be skipped). */
  warnings: string[];
  close(): Promise<void>;
}

/** What opening a source takes besides its kind and location. */
export interface SourceArguments {
  /** `--source-name`: how the source is told apart in the ledger. */
  name?: string | undefined;
  /** `--better-auth-secret` values (the environment's come after them). */
  betterAuthSecrets?: readonly string[];
}

type Env = Readonly<Record<string, string | undefined>>;

/** Opens a source database from its URL; a database that does not answer is a `SourceError`. */
async function openDatabase(url: string) {
  try {
    return await openTarget(url, "--source");
  } catch (error) {
    throw error instanceof TargetError ? new SourceError(error.message) : error;
  }
}

/** Reads a setting through `read`, turning its `TypeError` into a `SourceError`. */
function setting<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw error instanceof TypeError ? new SourceError(error.message) : error;
  }
}

/**
 * Opens the source the command names: a JSON-lines file, or the database of Better Auth, Auth.js
 * or Supabase by its URL. Secrets come from the environment where the source's own system keeps
 * them (`BETTER_AUTH_SECRET`/`BETTER_AUTH_SECRETS`, `GOTRUE_SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS`).
 */
export async function openSource(
  kind: SourceKind,
  location: string,
  args: SourceArguments,
  env: Env,
): Promise<OpenedSource> {
  const named = args.name === undefined ? {} : { name: args.name };
  if (kind === "jsonl") {
    await access(location).catch(() => {
      throw new SourceError(`--source ${location}: no such readable file`);
    });
    return { source: jsonlSource(location, named), warnings: [], close: async () => {} };
  }
  if (kind === "supabase" && !/^postgres(ql)?:\/\//.test(location))
    throw new SourceError("--source must be the Supabase project's postgres:// connection string");
  const secrets =
    kind === "better-auth"
      ? setting(() => [...(args.betterAuthSecrets ?? []), ...betterAuthSecretsFromEnv(env)])
      : [];
  const decryptionKeys =
    kind === "supabase"
      ? setting(() => parseSupabaseDecryptionKeys(env.GOTRUE_SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS ?? ""))
      : {};
  const opened = await openDatabase(location);
  try {
    return { ...(await sourceOn(kind, opened.db, named, secrets, decryptionKeys)), close: opened.close };
  } catch (error) {
    await opened.close().catch(() => {});
    throw error;
  }
}

async function sourceOn(
  kind: Exclude<SourceKind, "jsonl">,
  db: AnyKysely,
  named: { name?: string },
  secrets: string[],
  decryptionKeys: Record<string, string>,
): Promise<Omit<OpenedSource, "close">> {
  if (kind === "authjs") {
    const tables = await findAuthjsTables(db).catch((error: unknown) => {
      throw error instanceof AuthjsSourceError ? new SourceError(error.message) : error;
    });
    return { source: counted(authjsSource({ db, tables, ...named }), db, tables.users), warnings: [] };
  }
  if (kind === "supabase")
    return {
      source: counted(supabaseSource({ db, decryptionKeys, ...named }), db, "auth.users"),
      warnings: [],
    };
  const warnings =
    secrets.length === 0
      ? [
          "no Better Auth secret (--better-auth-secret, BETTER_AUTH_SECRET): accounts with two-factor on are skipped",
        ]
      : [];
  return { source: counted(betterAuthSource({ db, secret: secrets, ...named }), db, "user"), warnings };
}

/** The source with a `count` of its users table (each user is one row of the source). */
function counted(source: ImportSource, db: AnyKysely, table: string): ImportSource {
  return {
    ...source,
    async count() {
      const row = await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as("count"))
        .executeTakeFirst();
      return row ? Number(row.count) : null;
    },
  };
}
