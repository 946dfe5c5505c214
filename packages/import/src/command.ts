import { access } from "node:fs/promises";
import { parseArgs } from "node:util";
import { createSqlStores } from "@portcullis/store-sql";
import { importAccounts } from "./import-accounts.js";
import { jsonlSource } from "./jsonl-source.js";
import { type OpenedTarget, openTarget, TargetError } from "./open-target.js";
import { formatSummary } from "./summary.js";

/** Where the command writes: progress to `stderr`, the summary to `stdout`. */
export interface CommandOutput {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export const USAGE = `usage: portcullis import --from jsonl --source <file> --target <DATABASE_URL> [--dry-run]
         [--source-name <name>] [--issuer <provider>=<issuer URL>]…
  --target  sqlite:<file>, postgres://… or mysql://…
  TOTP secrets are sealed with AUTH_TWO_FACTOR_KEY (the host's twoFactor.encryptionKey), else AUTH_SECRET.`;

/** The run could not start: a one-line message, exit code 2. */
class StartError extends Error {}

interface Arguments {
  source: string;
  target: string;
  dryRun: boolean;
  sourceName: string | undefined;
  issuers: Record<string, string>;
}

function parse(argv: string[]): Arguments {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(argv);
  } catch (error) {
    throw new StartError((error as Error).message);
  }
  const { positionals, values } = parsed;
  if (positionals[0] !== "import" || positionals.length > 1)
    throw new StartError("the command is `portcullis import`");
  if (values.from !== "jsonl")
    throw new StartError("--from must be jsonl (the other sources are not there yet)");
  if (!values.source || !values.target) throw new StartError("--source and --target are required");
  const issuers: Record<string, string> = {};
  for (const pair of values.issuer ?? []) {
    const [provider, issuer] = [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)];
    if (!provider || !issuer || !pair.includes("="))
      throw new StartError(`--issuer ${pair}: expected <provider>=<issuer URL>`);
    issuers[provider] = issuer;
  }
  return {
    source: values.source,
    target: values.target,
    dryRun: values["dry-run"] === true,
    sourceName: values["source-name"],
    issuers,
  };
}

const parseOptions = (argv: string[]) =>
  parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      from: { type: "string" },
      source: { type: "string" },
      target: { type: "string" },
      "source-name": { type: "string" },
      issuer: { type: "string", multiple: true },
      "dry-run": { type: "boolean" },
    },
  });

/** Opens the target and, for a real run, creates or upgrades store-sql's tables; a dry run only checks they are there. */
async function prepareTarget(url: string, dryRun: boolean): Promise<OpenedTarget> {
  const target = await openTarget(url);
  try {
    if (!dryRun) await createSqlStores({ db: target.db }).migrate();
    else if (!(await target.db.introspection.getTables()).some((table) => table.name === "portcullis_users"))
      throw new StartError(
        "the target has no Portcullis tables yet, and a dry run creates nothing: run without --dry-run",
      );
    return target;
  } catch (error) {
    await target.close().catch(() => {});
    throw error instanceof StartError
      ? error
      : new StartError(`the target cannot be used: ${(error as Error).message}`);
  }
}

/**
 * The key the host seals TOTP secrets with, from the environment (never an argument, which other
 * users of the machine can read): `AUTH_TWO_FACTOR_KEY` (the host's `twoFactor.encryptionKey`),
 * else `AUTH_SECRET` (its `secret`, which the core uses when `encryptionKey` is unset).
 */
function twoFactorKeyOf(env: Readonly<Record<string, string | undefined>>): { twoFactorKey?: string } {
  const key = env.AUTH_TWO_FACTOR_KEY || env.AUTH_SECRET;
  return key ? { twoFactorKey: key } : {};
}

/**
 * `portcullis import …` with its arguments (without `node` and the script): resolves to the exit
 * code. 0 once the run went through, whatever it skipped; 2 when it could not start (bad
 * arguments, an unreadable source file, a target that does not answer); 1 when the target failed
 * during the run (the accounts committed until then stay; a re-run goes on from them).
 */
export async function runCommand(
  argv: string[],
  output: CommandOutput,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  let args: Arguments;
  let target: OpenedTarget;
  try {
    args = parse(argv);
    await access(args.source).catch(() => {
      throw new StartError(`--source ${args.source}: no such readable file`);
    });
    target = await prepareTarget(args.target, args.dryRun);
  } catch (error) {
    if (!(error instanceof StartError || error instanceof TargetError)) throw error;
    output.stderr(`portcullis import: ${error.message}\n${USAGE}\n`);
    return 2;
  }
  try {
    const summary = await importAccounts({
      source: jsonlSource(args.source, args.sourceName === undefined ? {} : { name: args.sourceName }),
      target: { db: target.db },
      dryRun: args.dryRun,
      issuers: args.issuers,
      ...twoFactorKeyOf(env),
      onProgress: ({ rows, imported, skipped, done }) =>
        output.stderr(
          `${done ? "done" : "progress"}: ${rows} rows, ${imported} imported, ${skipped} skipped\n`,
        ),
    });
    output.stdout(formatSummary(summary));
    return 0;
  } catch (error) {
    output.stderr(`portcullis import: the run stopped: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await target.close().catch(() => {});
  }
}
