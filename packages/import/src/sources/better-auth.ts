import type { AnyKysely } from "../ledger.js";
import {
  type ImportSource,
  pageSizeOf,
  type SourceAccount,
  type SourceIdentity,
  type SourcePasskey,
  type SourceRow,
} from "../source.js";
import type { SkipReason } from "../summary.js";
import { betterAuthBackupCodes, betterAuthDecrypt, betterAuthTotpSecret } from "./better-auth-crypto.js";

/** The names of Better Auth's tables, when its `modelName` options renamed them. */
export interface BetterAuthTables {
  /** Default `user`. */
  user: string;
  /** Default `account`. */
  account: string;
  /** The two-factor plugin's table; default `twoFactor`. */
  twoFactor: string;
  /** The passkey plugin's table; default `passkey`. */
  passkey: string;
}

/** Options of `betterAuthSource`. */
export interface BetterAuthSourceOptions {
  /** A Kysely instance on Better Auth's database (any dialect); the caller owns it and destroys it. */
  db: AnyKysely;
  /**
   * Better Auth's secret (`BETTER_AUTH_SECRET`), which sealed the TOTP secrets and backup codes;
   * with versioned secrets (`BETTER_AUTH_SECRETS`), each of them. Without it, or with a wrong one,
   * accounts with two-factor on are skipped as `two_factor_unreadable`: never imported without it.
   */
  secret?: string | readonly string[];
  /** How this source is told apart from others in the import ledger; default `better-auth`. */
  name?: string;
  /** Users read per query; default 1,000. */
  pageSize?: number;
  /** Table names other than Better Auth's defaults. */
  tables?: Partial<BetterAuthTables>;
}

/** A row as the driver gives it: camelCase columns, as Better Auth's adapters create them. */
type DbRow = Record<string, unknown>;

/** One page's accounts, 2FA rows and passkeys, by user id. */
interface PageRelations {
  accounts: Map<string, DbRow[]>;
  twoFactors: Map<string, DbRow[]>;
  passkeys: Map<string, DbRow[]>;
}

/** A row of a page that cannot become an account: the reason and the detail the summary keeps. */
class RowProblem extends Error {
  constructor(
    readonly skip: SkipReason,
    detail: string,
  ) {
    super(detail);
  }
}

const DEFAULT_TABLES: BetterAuthTables = {
  user: "user",
  account: "account",
  twoFactor: "twoFactor",
  passkey: "passkey",
};

/**
 * Better Auth's database as an import source (docs/import-better-auth.md): its `user` rows with
 * the `credential` account's scrypt hash, the other accounts as provider links
 * (`providerId`, `accountId`), the two-factor plugin's TOTP secret and backup codes decrypted with
 * `secret`, and the passkey plugin's passkeys. Users stream in keyset pages (`id > last`, by id,
 * `pageSize` at a time, each page's accounts, 2FA rows and passkeys read with one `IN (…)` query
 * each), so memory stays flat for any number of users; a row's `line` is its position in that order.
 * The plugins' tables are read only when they exist.
 */
export function betterAuthSource(options: BetterAuthSourceOptions): ImportSource {
  const tables = { ...DEFAULT_TABLES, ...options.tables };
  const pageSize = pageSizeOf(options.pageSize);
  const secrets = options.secret === undefined ? [] : [options.secret].flat();
  return {
    name: options.name ?? "better-auth",
    async *rows() {
      const present = new Set((await options.db.introspection.getTables()).map((table) => table.name));
      const reader = { db: options.db, tables, present };
      let last: unknown;
      let line = 0;
      for (;;) {
        const users = await readUsers(options.db, tables.user, last, pageSize);
        if (users.length === 0) return;
        const relations = await readRelations(reader, users);
        for (const user of users) {
          line += 1;
          yield toRow(user, relations, secrets, line);
        }
        last = users.at(-1)?.id;
        if (users.length < pageSize) return;
      }
    },
  };
}

/** The next page of users after the id `last` (all of them from the start when undefined). */
function readUsers(db: AnyKysely, table: string, last: unknown, pageSize: number): Promise<DbRow[]> {
  let query = db.selectFrom(table).selectAll();
  if (last !== undefined) query = query.where("id", ">", last);
  return query.orderBy("id").limit(pageSize).execute();
}

/** The page's accounts, verified TOTP rows (of users with two-factor on) and passkeys, one query each. */
async function readRelations(
  { db, tables, present }: { db: AnyKysely; tables: BetterAuthTables; present: Set<string> },
  users: DbRow[],
): Promise<PageRelations> {
  const byUser = (table: string, ids: unknown[], order: string[]) =>
    ids.length === 0 || !present.has(table)
      ? Promise.resolve([] as DbRow[])
      : order
          .reduce((query, column) => query.orderBy(column), db.selectFrom(table).selectAll())
          .where("userId", "in", ids)
          .execute();
  const withTwoFactor = users.filter((user) => truthy(user.twoFactorEnabled)).map((user) => user.id);
  const ids = users.map((user) => user.id);
  const [accounts, twoFactors, passkeys] = await Promise.all([
    byUser(tables.account, ids, ["providerId", "accountId"]),
    byUser(tables.twoFactor, withTwoFactor, ["id"]),
    byUser(tables.passkey, ids, ["createdAt", "id"]),
  ]);
  return { accounts: group(accounts), twoFactors: group(twoFactors), passkeys: group(passkeys) };
}

/** Rows by their `userId`, in the order read. */
function group(rows: DbRow[]): Map<string, DbRow[]> {
  const groups = new Map<string, DbRow[]>();
  for (const row of rows) {
    const key = String(row.userId);
    const list = groups.get(key);
    if (list) list.push(row);
    else groups.set(key, [row]);
  }
  return groups;
}

/** One user as a source row: its account, or the reason it is skipped. */
export function toRow(
  user: DbRow,
  relations: PageRelations,
  secrets: readonly string[],
  line: number,
): SourceRow {
  try {
    return { line, account: toAccount(user, relations, secrets) };
  } catch (error) {
    if (!(error instanceof RowProblem)) throw error;
    return { line, skip: error.skip, detail: `user ${String(user.id)}: ${error.message}` };
  }
}

/** The account of a user row and its page's rows; throws a `RowProblem` when it cannot be one. */
function toAccount(user: DbRow, relations: PageRelations, secrets: readonly string[]): SourceAccount {
  if (!isText(user.id) && !Number.isSafeInteger(user.id)) throw new RowProblem("invalid_row", "no id");
  const id = String(user.id);
  if (!isText(user.email)) throw new RowProblem("invalid_row", "no email");
  const banExpires = epochMs(user.banExpires);
  // The admin plugin's ban: an account imported as an ordinary one would get its access back.
  if (truthy(user.banned) && (banExpires === undefined || banExpires > Date.now()))
    throw new RowProblem(
      "invalid_row",
      `banned${banExpires === undefined ? "" : ` until ${new Date(banExpires).toISOString()}`} (the admin plugin): import it once the ban is lifted or over`,
    );
  const accounts = relations.accounts.get(id) ?? [];
  const credential = accounts.find(
    (account) => account.providerId === "credential" && isText(account.password),
  );
  const identities = accounts.filter((account) => account.providerId !== "credential").map(toIdentity);
  const passkeys = (relations.passkeys.get(id) ?? []).map(toPasskey);
  const totp = truthy(user.twoFactorEnabled) ? readTotp(relations.twoFactors.get(id) ?? [], secrets) : null;
  return {
    id,
    email: user.email,
    emailVerified: truthy(user.emailVerified),
    name: isText(user.name) ? user.name : null,
    passwordHash: credential ? (credential.password as string) : null,
    identities,
    totp,
    passkeys,
  };
}

/** A non-credential account row as a provider link. */
function toIdentity(account: DbRow): SourceIdentity {
  const { providerId, accountId } = account;
  if (!isText(providerId) || !(isText(accountId) || Number.isSafeInteger(accountId)))
    throw new RowProblem("invalid_row", `account ${String(account.id)} has no providerId or accountId`);
  return { provider: providerId, subject: String(accountId) };
}

/**
 * The user's TOTP in the clear: the verified row's secret decrypted and turned into the base32
 * an authenticator app holds, and its unused backup codes. A user with two-factor on is never
 * imported without it: no secret, a wrong one, or 2FA without a TOTP secret skips the row.
 */
function readTotp(rows: DbRow[], secrets: readonly string[]): NonNullable<SourceAccount["totp"]> {
  const row = rows.find(
    (candidate) =>
      candidate.verified === undefined || candidate.verified === null || truthy(candidate.verified),
  );
  if (!row || !isText(row.secret))
    throw new RowProblem(
      "two_factor_unreadable",
      "two-factor is on with codes by email or SMS only (no authenticator app), which is not imported",
    );
  if (secrets.length === 0)
    throw new RowProblem("two_factor_unreadable", "two-factor is on and no Better Auth secret was given");
  const decrypted = betterAuthDecrypt(row.secret, secrets);
  if (decrypted === null)
    throw new RowProblem(
      "two_factor_unreadable",
      "the TOTP secret does not decrypt with the Better Auth secret given",
    );
  const secret = betterAuthTotpSecret(decrypted);
  if (secret === null) throw new RowProblem("invalid_two_factor", "the imported TOTP secret is not base32");
  const recoveryCodes = isText(row.backupCodes) ? betterAuthBackupCodes(row.backupCodes, secrets) : [];
  if (recoveryCodes === null)
    throw new RowProblem(
      "two_factor_unreadable",
      "the backup codes do not decrypt with the Better Auth secret given",
    );
  return { secret, recoveryCodes };
}

/** A passkey row as Portcullis keeps it: the public key from base64 to base64url COSE. */
function toPasskey(row: DbRow): SourcePasskey {
  const { credentialID, publicKey } = row;
  const counter = Number(row.counter ?? 0);
  if (!isText(credentialID) || !isText(publicKey) || !/^[A-Za-z0-9+/_-]+=*$/.test(publicKey))
    throw new RowProblem("invalid_row", `passkey ${String(row.id)} has no credential id or public key`);
  if (!Number.isSafeInteger(counter) || counter < 0)
    throw new RowProblem("invalid_row", `passkey ${String(row.id)} has a counter that is not a whole number`);
  const createdAt = epochMs(row.createdAt);
  return {
    id: credentialID,
    publicKey: Buffer.from(publicKey, "base64").toString("base64url"),
    counter,
    transports: isText(row.transports)
      ? row.transports
          .split(",")
          .map((transport) => transport.trim())
          .filter((transport) => transport !== "")
      : [],
    backupEligible: row.deviceType === "multiDevice",
    backedUp: truthy(row.backedUp),
    name: isText(row.name) ? row.name : null,
    ...(createdAt === undefined ? {} : { createdAt }),
  };
}

const isText = (value: unknown): value is string => typeof value === "string" && value !== "";

/** A boolean column as PostgreSQL (`true`), MySQL and SQLite (`1`) return it. */
const truthy = (value: unknown) =>
  value === true || value === 1 || value === "1" || value === "true" || value === 1n;

/** A date column (a `Date`, epoch milliseconds, or ISO text as SQLite keeps it) in epoch milliseconds. */
function epochMs(value: unknown): number | undefined {
  const ms =
    value instanceof Date
      ? value.getTime()
      : typeof value === "string"
        ? Date.parse(value)
        : Number(value ?? Number.NaN);
  return Number.isFinite(ms) ? ms : undefined;
}
