import { randomUUID } from "node:crypto";
import { createTwoFactorImporter, type SecretInput, type TwoFactorImporter } from "@portcullis/core";
import { createSqlStores } from "@portcullis/store-sql";
import { type AnyKysely, type Ledger, sqlLedger } from "./ledger.js";
import { type PreparedAccount, prepareAccount, type Refusal } from "./prepare.js";
import type { ImportSource } from "./source.js";
import { emptySummary, type ImportSummary, recordSkip, skippedCount } from "./summary.js";

/**
 * Where the accounts go: a database with store-sql's tables, migrated (`createSqlStores({ db }).migrate()`;
 * the command does it). A Kysely instance rather than the stores, because each account is written
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
  skipped: number;
  /** True for the last call, after the last row. */
  done: boolean;
}

/** What `importAccounts` takes. */
export interface ImportAccountsOptions {
  source: ImportSource;
  target: ImportTarget;
  /** Read and decide as a real run would, and write nothing, not even the ledger. Default false. */
  dryRun?: boolean;
  /** Called every `progressEveryRows` rows and once at the end. */
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

/** What one run shares between its rows. */
interface Run {
  options: ImportAccountsOptions;
  ledger: Ledger;
  /** False in a dry run against a target that never had an import: every source id is new. */
  ledgerExists: boolean;
  /** The addresses and links (`issuer subject`) a dry run would have created; a real run reads them back instead. */
  seen: Set<string>;
  summary: ImportSummary;
  twoFactor: TwoFactorImporter | null;
}

/** Thrown inside an account's transaction to roll it back and skip the row. */
class SkipRow extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.detail);
  }
}

/**
 * Moves the source's accounts into the target's users and identities tables, one transaction per
 * account (the user through `UserStore.create`, its links through `IdentityStore.link`, its
 * ledger entry), so no account is ever half-written. A row that cannot be imported is counted in
 * the summary with its line number and reason and the run goes on. Re-runs are idempotent: a
 * source id already in the ledger is skipped as `already_imported` before anything is written.
 * Rejects only when the target itself fails (a database error); the accounts committed before
 * stay, and a re-run goes on from them.
 */
export async function importAccounts(options: ImportAccountsOptions): Promise<ImportSummary> {
  const { target, dryRun = false } = options;
  const ledger = sqlLedger(target.db, target.tablePrefix);
  const ledgerExists = await ledger.exists();
  if (!dryRun && !ledgerExists) await ledger.create();
  const run: Run = {
    options,
    ledger,
    ledgerExists: ledgerExists || !dryRun,
    seen: new Set(),
    summary: emptySummary(dryRun),
    twoFactor: options.twoFactorKey === undefined ? null : createTwoFactorImporter(options.twoFactorKey),
  };
  const every = options.progressEveryRows ?? 10_000;
  for await (const row of options.source.rows()) {
    run.summary.rows += 1;
    const refusal = "skip" in row ? row : await importAccount(run, row.account);
    if (refusal) recordSkip(run.summary, refusal.skip, row.line, options.firstLines ?? 20);
    if (run.summary.rows % every === 0) report(run, false);
  }
  report(run, true);
  return run.summary;
}

function report({ options, summary }: Run, done: boolean): void {
  options.onProgress?.({
    rows: summary.rows,
    imported: summary.imported,
    skipped: skippedCount(summary),
    done,
  });
}

/** Imports one account, or says why not. */
async function importAccount(
  run: Run,
  account: Parameters<typeof prepareAccount>[0],
): Promise<Refusal | null> {
  const { options } = run;
  const prepared = prepareAccount(account, {
    issuers: options.issuers ?? {},
    generateId: options.generateId ?? randomUUID,
    now: Date.now(),
  });
  if ("skip" in prepared) return prepared;
  if (run.ledgerExists && (await run.ledger.has(options.source.name, prepared.sourceId)))
    return { skip: "already_imported", detail: `source id ${prepared.sourceId}` };
  if (prepared.totp) {
    if (!run.twoFactor)
      return {
        skip: "two_factor_unreadable",
        detail:
          "the account has TOTP and the import has no two-factor key (the host's twoFactor.encryptionKey or secret)",
      };
    prepared.user.twoFactor = await run.twoFactor.settings({
      totpSecret: prepared.totp.secret,
      recoveryCodes: prepared.totp.recoveryCodes,
    });
  }
  const refusal = options.dryRun ? await wouldRefuse(run, prepared) : await write(run, prepared);
  if (refusal) return refusal;
  run.summary.imported += 1;
  run.summary.identities += prepared.identities.length;
  return null;
}

/** Why the account's address is taken: by an earlier row of this source, or by an account that was there before. */
async function addressTaken(run: Run, userId: string, email: string): Promise<Refusal> {
  const earlier = run.ledgerExists && (await run.ledger.created(run.options.source.name, userId));
  return earlier
    ? { skip: "duplicate_email", detail: `${email} came earlier in this source` }
    : { skip: "email_taken", detail: `${email} belongs to an account of the target` };
}

/** The account, its links and its ledger entry in one transaction; a conflict rolls all of it back. */
async function write(
  run: Run,
  { sourceId, user, identities, passkeys }: PreparedAccount,
): Promise<Refusal | null> {
  const { source, target } = run.options;
  try {
    await target.db.transaction().execute(async (trx) => {
      const stores = createSqlStores({ db: trx, ...tablePrefix(target) });
      if (!(await stores.users.create(user))) throw new SkipRow({ skip: "email_taken", detail: user.email });
      for (const identity of identities) {
        const linked = await stores.identities.link({
          ...identity,
          userId: user.id,
          email: null,
          createdAt: user.createdAt,
        });
        if (!linked)
          throw new SkipRow({
            skip: "identity_taken",
            detail: `${identity.provider} ${identity.subject} is linked to another account`,
          });
      }
      for (const passkey of passkeys)
        if (!(await stores.passkeys.create(passkey)))
          throw new SkipRow({ skip: "passkey_taken", detail: `passkey ${passkey.id} is another account's` });
      await run.ledger.record(trx, { source: source.name, sourceId, userId: user.id, at: user.createdAt });
    });
    return null;
  } catch (error) {
    if (!(error instanceof SkipRow)) throw error;
    if (error.refusal.skip !== "email_taken") return error.refusal;
    const existing = await createSqlStores({ db: target.db, ...tablePrefix(target) }).users.findByEmail(
      user.email,
    );
    return addressTaken(run, existing?.id ?? "", user.email);
  }
}

/** The decisions of `write`, made by reading only. */
async function wouldRefuse(
  run: Run,
  { user, identities, passkeys }: PreparedAccount,
): Promise<Refusal | null> {
  const { target } = run.options;
  if (run.seen.has(user.email))
    return { skip: "duplicate_email", detail: `${user.email} came earlier in this source` };
  const stores = createSqlStores({ db: target.db, ...tablePrefix(target) });
  const existing = await stores.users.findByEmail(user.email);
  if (existing) return addressTaken(run, existing.id, user.email);
  const links = identities.map((identity) => `${identity.issuer} ${identity.subject}`);
  for (const [at, identity] of identities.entries())
    if (
      run.seen.has(links[at] ?? "") ||
      (await stores.identities.findBySubject(identity.issuer, identity.subject))
    )
      return {
        skip: "identity_taken",
        detail: `${identity.provider} ${identity.subject} is linked to another account`,
      };
  for (const passkey of passkeys)
    if (run.seen.has(`passkey ${passkey.id}`) || (await stores.passkeys.findById(passkey.id)))
      return { skip: "passkey_taken", detail: `passkey ${passkey.id} is another account's` };
  for (const key of [user.email, ...links, ...passkeys.map((passkey) => `passkey ${passkey.id}`)])
    run.seen.add(key);
  return null;
}

const tablePrefix = (target: ImportTarget) =>
  target.tablePrefix === undefined ? {} : { tablePrefix: target.tablePrefix };
