import { parseArgs } from "node:util";
import { createSqlStores } from "@portcullis/store-sql";
import { importAccounts } from "./import-accounts.js";
import { sqlLedger } from "./ledger.js";
import { type OpenedSource, openSource, SOURCE_KINDS, SourceError, type SourceKind } from "./open-source.js";
import { type OpenedTarget, openTarget, TargetError } from "./open-target.js";
import { createProgress, progressEveryRows } from "./progress.js";
import { formatSummary } from "./summary.js";

/** Where the command writes: progress to `stderr`, the summary to `stdout`. */
export interface CommandOutput {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stderr is a terminal: progress is then one line redrawn in place (not with `TERM=dumb`). Default false (plain lines). */
  isTTY?: boolean;
  /** The terminal's width (a getter follows a resize); default 80. */
  columns?: number;
}

export const USAGE = `usage: portcullis import --from jsonl --source <file> --target <DATABASE_URL> [--dry-run]
         [--source-name <name>] [--issuer <provider>=<issuer URL>]…
       portcullis import --from better-auth|authjs|supabase --source <its DATABASE_URL> --target <DATABASE_URL> …
         [--better-auth-secret <secret>]…
       portcullis import --drop-ledger --target <DATABASE_URL>
  --target       sqlite:<file>, postgres://… or mysql://…
  --better-auth-secret  Better Auth's secret, for its TOTP secrets (else BETTER_AUTH_SECRET(S) from the environment)
  --drop-ledger  after the cut-over: drops the import ledger (re-runs are no longer recognized)
  TOTP secrets are sealed with AUTH_TWO_FACTOR_KEY (the host's twoFactor.encryptionKey), else AUTH_SECRET.`;

/** The run could not start: a one-line message, exit code 2. */
class StartError extends Error {}

/** An import's arguments. */
interface ImportArguments {
  kind: "import";
  from: SourceKind;
  source: string;
  betterAuthSecrets: string[];
  target: string;
  dryRun: boolean;
  sourceName: string | undefined;
  issuers: Record<string, string>;
}

/** What the command line asks for: an import, or dropping the ledger after the cut-over. */
type Arguments = ImportArguments | { kind: "drop-ledger"; target: string };

type Values = ReturnType<typeof parseOptions>["values"];

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
  return values["drop-ledger"] ? parseDropLedger(values) : parseImport(values);
}

/** `--drop-ledger --target <url>`: nothing else, so that it is never mistaken for an import. */
function parseDropLedger(values: Values): Arguments {
  if (values.source !== undefined)
    throw new StartError(
      "--drop-ledger imports nothing and takes no --source: it drops the import ledger once every import is done (portcullis import --drop-ledger --target <DATABASE_URL>)",
    );
  const others = (["from", "source-name", "issuer", "dry-run", "better-auth-secret"] as const).filter(
    (name) => values[name] !== undefined,
  );
  if (others.length > 0)
    throw new StartError(
      `--drop-ledger takes only --target, not ${others.map((name) => `--${name}`).join(", ")}`,
    );
  if (!values.target) throw new StartError("--drop-ledger needs --target");
  return { kind: "drop-ledger", target: values.target };
}

function parseImport(values: Values): ImportArguments {
  const from = SOURCE_KINDS.find((kind) => kind === values.from);
  if (!from) throw new StartError(`--from must be one of ${SOURCE_KINDS.join(", ")}`);
  if (!values.source || !values.target) throw new StartError("--source and --target are required");
  if (values["better-auth-secret"] && from !== "better-auth")
    throw new StartError("--better-auth-secret goes with --from better-auth");
  const issuers: Record<string, string> = {};
  for (const pair of values.issuer ?? []) {
    const [provider, issuer] = [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)];
    if (!provider || !issuer || !pair.includes("="))
      throw new StartError(`--issuer ${pair}: expected <provider>=<issuer URL>`);
    issuers[provider] = issuer;
  }
  return {
    kind: "import",
    from,
    source: values.source,
    betterAuthSecrets: values["better-auth-secret"] ?? [],
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
      "drop-ledger": { type: "boolean" },
      "better-auth-secret": { type: "string", multiple: true },
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
 * `--drop-ledger --target <url>` drops the import ledger instead (0 also when there was none).
 */
export async function runCommand(
  argv: string[],
  output: CommandOutput,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  let args: Arguments;
  let target: OpenedTarget;
  let source: OpenedSource | undefined;
  try {
    args = parse(argv);
    if (args.kind === "import")
      source = await openSource(
        args.from,
        args.source,
        { name: args.sourceName, betterAuthSecrets: args.betterAuthSecrets },
        env,
      );
    target = await (args.kind === "drop-ledger"
      ? openTarget(args.target)
      : prepareTarget(args.target, args.dryRun));
  } catch (error) {
    await source?.close().catch(() => {});
    if (!(error instanceof StartError || error instanceof TargetError || error instanceof SourceError))
      throw error;
    output.stderr(`portcullis import: ${error.message}\n${USAGE}\n`);
    return 2;
  }
  try {
    return args.kind === "drop-ledger" || !source
      ? await dropLedger(target, output)
      : await runImport(args, source, target, output, env);
  } finally {
    await target.close().catch(() => {});
    await source?.close().catch(() => {});
  }
}

/** The import itself, progress on stderr and the summary on stdout: 0, or 1 when the target failed during the run. */
async function runImport(
  args: ImportArguments,
  { source, warnings }: OpenedSource,
  target: OpenedTarget,
  output: CommandOutput,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  for (const warning of warnings) output.stderr(`portcullis import: ${warning}\n`);
  // A dumb terminal moves back with `\r` but knows no erasing: it gets the plain lines.
  const terminal = output.isTTY === true && env.TERM !== "dumb";
  const progress = createProgress({
    write: output.stderr,
    isTTY: terminal,
    get columns() {
      return output.columns;
    },
    // Only a terminal shows the total (a bar and an ETA): counting costs a read of the source.
    total: terminal && source.count ? await source.count().catch(() => null) : null,
  });
  try {
    const summary = await importAccounts({
      source,
      target: { db: target.db },
      dryRun: args.dryRun,
      issuers: args.issuers,
      ...twoFactorKeyOf(env),
      onProgress: (report) => progress.update(report),
      progressEveryRows: progressEveryRows(terminal),
    });
    output.stdout(formatSummary(summary));
    return 0;
  } catch (error) {
    progress.interrupt();
    output.stderr(`portcullis import: the run stopped: ${(error as Error).message}\n`);
    return 1;
  }
}

/** `--drop-ledger`: drops the import ledger of the target, or says there was none; 1 when the target fails. */
async function dropLedger(target: OpenedTarget, output: CommandOutput): Promise<number> {
  const ledger = sqlLedger(target.db);
  try {
    if (!(await ledger.exists())) {
      output.stdout(`the target has no import ledger (${LEDGER_TABLE}): nothing to drop\n`);
      return 0;
    }
    await ledger.drop();
  } catch (error) {
    output.stderr(`portcullis import: the ledger could not be dropped: ${(error as Error).message}\n`);
    return 1;
  }
  output.stdout(
    `dropped the import ledger (${LEDGER_TABLE}); the imported accounts stay, and an import run again would no longer know them as its own\n`,
  );
  return 0;
}

/** The ledger's table under store-sql's default prefix, the one the command uses. */
const LEDGER_TABLE = "portcullis_import_ledger";
