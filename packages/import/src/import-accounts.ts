import { randomUUID } from "node:crypto";
import { createTwoFactorImporter, type SecretInput } from "@portcullis/core";
import { tableNames } from "@portcullis/store-sql";
import { SqliteAdapter } from "kysely";
import { statisticsKeeper } from "./analyze.js";
import { checkFresh, type Fresh, writeAccount, writeBatch } from "./batch.js";
import { type AnyKysely, sqlLedger } from "./ledger.js";
import { prepareAccount, sealTotp } from "./prepare.js";
import type { Outcome, Run } from "./run.js";
import type { ImportSource, SourceRow } from "./source.js";
import { emptySummary, type ImportSummary, recordSkip, skippedCount } from "./summary.js";
import { type Changed, updateAccount, wouldUpdate } from "./update.js";

/**
 * Where the accounts go: a database with store-sql's tables, migrated (`createSqlStores({ db }).migrate()`;
 * the command does it). A Kysely instance rather than the stores, because each batch is written
 * with stores made on its own transaction.
 */
export interface ImportTarget {
  /** The Kysely instance of the target (SQLite, PostgreSQL or MySQL); the caller owns it and destroys it. */
  db: AnyKysely;
  /** store-sql's table prefix; default `portcullis_`. The ledger is `<prefix>import_ledger`. */
  tablePrefix?: string;
}

/** How far a run is, as `onProgress` sees it. */
export interface ImportProgress {
  rows: number;
  imported: number;
  /** Accounts updated from changed rows (always set by `importAccounts`; optional for progress built by hand). */
  updated?: number;
  skipped: number;
  /** True for the last call, after the last row. */
  done: boolean;
}

/** What `importAccounts` takes. */
export interface ImportAccountsOptions {
  source: ImportSource;
  target: ImportTarget;
  /**
   * Read and decide as a real run would, and write nothing, not even the ledger. Default false.
   * It keeps the addresses, links and source ids it would have created (a real run finds them in
   * the target), about 100 bytes an account.
   */
  dryRun?: boolean;
  /**
   * Rows taken, checked and written together, in one transaction; default 1,000 (500 on SQLite),
   * at most 10,000.
   * A batch that meets a conflict (a row that raced in) is written again one account at a time.
   */
  batchSize?: number;
  /**
   * Called at every multiple of `progressEveryRows` rows (with the counts as of that row, once its
   * batch is written), and once at the end.
   */
  onProgress?: (progress: ImportProgress) => void;
  /** Default 10,000. */
  progressEveryRows?: number;
  /** Issuers of providers other than `github` and `google`, by provider name (`{ okta: "https://example.okta.com" }`). */
  issuers?: Readonly<Record<string, string>>;
  /** How many line numbers the summary keeps per skip reason; default 20. */
  firstLines?: number;
  /** The new accounts' ids; default `crypto.randomUUID`. Pass the host's `generateId` when it has its own. */
  generateId?: () => string;
  /**
   * The key the host seals TOTP secrets and hashes recovery codes with: its
   * `twoFactor.encryptionKey`, or its `secret` when that is unset. Without it an account with
   * TOTP is skipped (`two_factor_unreadable`): it is never imported without its second factor.
   */
  twoFactorKey?: SecretInput;
}

/**
 * Moves the source's accounts into the target's users and identities tables, in batches
 * (`batchSize` rows): the batch's rows are checked, its source ids looked up in the ledger and
 * its addresses, links and passkeys in the target (one query each), then its new accounts are
 * written with their links, passkeys and ledger entries in one transaction, so no account is
 * ever half-written. A batch that meets a conflict after all is rolled back and written one
 * account per transaction, so only its bad rows are skipped. A row that cannot be imported is
 * counted in the summary with its line number and reason and the run goes on.
 *
 * Re-runs are upserts keyed by the source id: an unchanged row is `already_imported`, a changed
 * one (its digest is not the ledger's) updates its account (`updated`); a run that stopped
 * resumes where it stopped, since each committed batch is in the ledger. Rejects only when the
 * target itself fails (a database error); the batches committed before stay.
 */
export async function importAccounts(options: ImportAccountsOptions): Promise<ImportSummary> {
  const { target, dryRun = false } = options;
  const ledger = sqlLedger(target.db, target.tablePrefix);
  const ledgerExists = await ledger.exists();
  if (!dryRun) await ledger.create();
  const run: Run = {
    options,
    ledger,
    ledgerExists: ledgerExists || !dryRun,
    seen: new Set(),
    summary: emptySummary(dryRun),
    twoFactor: options.twoFactorKey === undefined ? null : createTwoFactorImporter(options.twoFactorKey),
    tables: tableNames(target.tablePrefix),
  };
  const size = options.batchSize ?? defaultBatchSize(target.db);
  if (!Number.isSafeInteger(size) || size < 1 || size > MAX_BATCH)
    throw new RangeError(`batchSize must be a whole number from 1 to ${MAX_BATCH}, not ${size}`);
  const { users, identities } = run.tables;
  const statistics = statisticsKeeper(target.db, [ledger.table, users, identities], !dryRun);
  await statistics.atStart();
  let batch: SourceRow[] = [];
  for await (const row of options.source.rows()) {
    batch.push(row);
    if (batch.length < size) continue;
    await runBatch(run, batch);
    await statistics.afterBatch(run.summary.imported + run.summary.updated);
    batch = [];
  }
  await runBatch(run, batch);
  report(run, true);
  return run.summary;
}

/** The largest batch: its lookups (`IN` lists of one parameter a row) stay far below each dialect's limit of parameters. */
const MAX_BATCH = 10_000;

/** 500 rows on SQLite (one writer, so shorter transactions), 1,000 elsewhere. */
const defaultBatchSize = (db: AnyKysely) => (db.getExecutor().adapter instanceof SqliteAdapter ? 500 : 1_000);

function report({ options, summary }: Run, done: boolean): void {
  options.onProgress?.({
    rows: summary.rows,
    imported: summary.imported,
    updated: summary.updated,
    skipped: skippedCount(summary),
    done,
  });
}

/** One batch: prepared, sorted into new, changed and unchanged rows by one ledger read, written; its outcomes counted in source order. */
async function runBatch(run: Run, rows: readonly SourceRow[]): Promise<void> {
  if (rows.length === 0) return;
  const outcomes: (Outcome | undefined)[] = rows.map((row) => ("skip" in row ? row : undefined));
  const { fresh, changed } = await sortRows(run, rows, outcomes);
  await importFresh(run, fresh, outcomes);
  for (const account of changed)
    outcomes[account.at] =
      (await sealTotp(run.twoFactor, account.prepared)) ??
      (run.options.dryRun ? await wouldUpdate(run, account) : await updateAccount(run, account));
  const { summary, options } = run;
  const every = options.progressEveryRows ?? 10_000;
  for (const [at, outcome] of outcomes.entries()) {
    if (!outcome) throw new Error(`row ${rows[at]?.line} of the batch got no outcome`);
    if ("skip" in outcome) recordSkip(summary, outcome.skip, rows[at]?.line ?? 0, options.firstLines ?? 20);
    else {
      summary[outcome.done] += 1;
      summary.identities += outcome.identities;
    }
    // Counted in source order, so the counts at each multiple are those of that row.
    summary.rows += 1;
    if (summary.rows % every === 0) report(run, false);
  }
}

/** Prepares the batch's accounts and reads the ledger once for all: new ones, changed ones; unchanged and bad rows get their outcome here. */
async function sortRows(
  run: Run,
  rows: readonly SourceRow[],
  outcomes: (Outcome | undefined)[],
): Promise<{ fresh: Fresh[]; changed: Changed[] }> {
  const { options } = run;
  const context = {
    issuers: options.issuers ?? {},
    generateId: options.generateId ?? randomUUID,
    now: Date.now(),
  };
  const prepared: Fresh[] = [];
  for (const [at, row] of rows.entries()) {
    if ("skip" in row) continue;
    const account = prepareAccount(row.account, context);
    if ("skip" in account) outcomes[at] = account;
    else prepared.push({ at, prepared: account });
  }
  const entries = run.ledgerExists
    ? await run.ledger.lookup(
        options.source.name,
        prepared.map(({ prepared }) => prepared.sourceId),
      )
    : new Map();
  const fresh: Fresh[] = [];
  const changed: Changed[] = [];
  const ids = new Set<string>();
  for (const account of prepared) {
    const { sourceId, digest } = account.prepared;
    const entry = entries.get(sourceId);
    const again = ids.has(sourceId) || run.seen.has(`id ${sourceId}`) || entry?.digest === digest;
    ids.add(sourceId);
    if (options.dryRun) run.seen.add(`id ${sourceId}`);
    if (again) outcomes[account.at] = { skip: "already_imported", detail: `source id ${sourceId}` };
    else if (entry) changed.push({ ...account, entry });
    else fresh.push(account);
  }
  return { fresh, changed };
}

/** The batch's new accounts: 2FA sealed, checked, then written in one transaction (or one by one after a conflict). */
async function importFresh(
  run: Run,
  fresh: readonly Fresh[],
  outcomes: (Outcome | undefined)[],
): Promise<void> {
  const ready: Fresh[] = [];
  for (const account of fresh) {
    const refusal = await sealTotp(run.twoFactor, account.prepared);
    if (refusal) outcomes[account.at] = refusal;
    else ready.push(account);
  }
  const refusals = await checkFresh(run, ready);
  const accepted = ready.filter(({ at }) => !refusals.has(at));
  for (const [at, refusal] of refusals) outcomes[at] = refusal;
  const imported = (account: Fresh) => ({
    done: "imported" as const,
    identities: account.prepared.identities.length,
  });
  if (
    run.options.dryRun ||
    (await writeBatch(
      run,
      accepted.map(({ prepared }) => prepared),
    ))
  ) {
    for (const account of accepted) outcomes[account.at] = imported(account);
    return;
  }
  for (const account of accepted)
    outcomes[account.at] = (await writeAccount(run, account.prepared)) ?? imported(account);
}
