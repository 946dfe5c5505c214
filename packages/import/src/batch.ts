import { hashDigest, type LedgerRecord } from "./ledger.js";
import type { PreparedAccount, PreparedIdentity, Refusal } from "./prepare.js";
import { chunks, insertUsersAndLinks } from "./rows.js";
import {
  addressRefusal,
  identityTaken,
  isUniqueViolation,
  passkeyTaken,
  type Run,
  SkipRow,
  storesOn,
} from "./run.js";

/** A new account of a batch (its source id not in the ledger), at its index in the batch. */
export interface Fresh {
  at: number;
  prepared: PreparedAccount;
}

/** Thrown inside a batch's transaction when one of its inserts found its key taken. */
class BatchConflict extends Error {}

const linkKey = (identity: { issuer: string; subject: string }) => `${identity.issuer} ${identity.subject}`;
const passkeyKey = (id: string) => `passkey ${id}`;

/** What a new account takes that no later row may take: its address, `issuer subject` links and `passkey <id>`s. */
export const accountKeys = ({ user, identities, passkeys }: PreparedAccount): string[] => [
  user.email,
  ...identities.map(linkKey),
  ...passkeys.map(({ id }) => passkeyKey(id)),
];

/** What the target already holds of a batch's addresses, links and passkeys: one query each (a passkey is one query of its own). */
interface Taken {
  /** Address → the id of the account that has it. */
  emails: Map<string, string>;
  /** The ids among those accounts that this source created. */
  ours: Set<string>;
  /** `issuer subject` of the links that exist. */
  links: Set<string>;
  /** `passkey <id>` of the passkeys that exist. */
  passkeys: Set<string>;
}

/**
 * Those of `wanted` that the target has, as `issuer subject`: one query per issuer (a batch has a
 * few), since `issuer = ? and subject in (…)` is a range of the primary key on every dialect,
 * where a row-value IN was a scan of the table on PostgreSQL (a batch's lookup grew with it).
 */
async function readLinks(run: Run, wanted: readonly PreparedIdentity[]): Promise<Set<string>> {
  const byIssuer = new Map<string, string[]>();
  for (const { issuer, subject } of wanted) {
    const subjects = byIssuer.get(issuer) ?? [];
    subjects.push(subject);
    byIssuer.set(issuer, subjects);
  }
  const found = new Set<string>();
  for (const [issuer, subjects] of byIssuer)
    for (const part of chunks(subjects, 5_000)) {
      const rows = await run.options.target.db
        .selectFrom(run.tables.identities)
        .select("subject")
        .where("issuer", "=", issuer)
        .where("subject", "in", part)
        .execute();
      for (const { subject } of rows) found.add(linkKey({ issuer, subject: subject as string }));
    }
  return found;
}

/** What the target holds of the batch's addresses, links and passkeys. */
async function readTaken(run: Run, fresh: readonly Fresh[]): Promise<Taken> {
  const { db } = run.options.target;
  const emails = fresh.map(({ prepared }) => prepared.user.email);
  const users = emails.length
    ? await db.selectFrom(run.tables.users).select(["id", "email"]).where("email", "in", emails).execute()
    : [];
  const byEmail = new Map(users.map((user) => [user.email as string, user.id as string]));
  const ours = run.ledgerExists
    ? await run.ledger.createdAmong(run.options.source.name, [...byEmail.values()])
    : new Set<string>();
  const passkeys = new Set<string>();
  const stores = storesOn(run, db);
  for (const { prepared } of fresh)
    for (const { id } of prepared.passkeys)
      if (await stores.passkeys.findById(id)) passkeys.add(passkeyKey(id));
  return {
    emails: byEmail,
    ours,
    links: await readLinks(
      run,
      fresh.flatMap(({ prepared }) => prepared.identities),
    ),
    passkeys,
  };
}

/**
 * The decisions a batch's new accounts get by reading only, as one transaction per account
 * would make them in source order: an address, link or passkey that the target has, or that an
 * earlier row of the batch (or, in a dry run, of the run) takes, refuses the row. Returns the
 * refusals by index in the batch; the others are to be written.
 */
export async function checkFresh(run: Run, fresh: readonly Fresh[]): Promise<Map<number, Refusal>> {
  const taken = await readTaken(run, fresh);
  const batch = new Set<string>();
  const seen = (key: string) => batch.has(key) || run.seen.has(key);
  const refusals = new Map<number, Refusal>();
  for (const { at, prepared } of fresh) {
    const refusal = refusalOf(prepared, taken, seen);
    if (refusal) {
      refusals.set(at, refusal);
      continue;
    }
    const keys = accountKeys(prepared);
    for (const key of keys) batch.add(key);
    if (run.options.dryRun) for (const key of keys) run.seen.add(key);
  }
  await recordedMeanwhile(run, fresh, refusals);
  return refusals;
}

/**
 * Refused rows whose source id another run (an import started twice) recorded since this batch
 * read the ledger: they are `already_imported`, not an address or link taken. The refusals are
 * changed in place; nothing is read in a dry run or when every row goes ahead.
 */
async function recordedMeanwhile(
  run: Run,
  fresh: readonly Fresh[],
  refusals: Map<number, Refusal>,
): Promise<void> {
  if (run.options.dryRun || refusals.size === 0) return;
  const refused = fresh.filter(({ at }) => refusals.has(at));
  const recorded = await run.ledger.lookup(
    run.options.source.name,
    refused.map(({ prepared }) => prepared.sourceId),
  );
  for (const { at, prepared } of refused)
    if (recorded.has(prepared.sourceId)) refusals.set(at, byAnotherRun(prepared.sourceId));
}

/** The refusal of a row that another run imported meanwhile. */
const byAnotherRun = (sourceId: string): Refusal => ({
  skip: "already_imported",
  detail: `source id ${sourceId}, recorded by another run`,
});

function refusalOf(
  { user, identities, passkeys }: PreparedAccount,
  taken: Taken,
  seen: (key: string) => boolean,
): Refusal | null {
  if (seen(user.email)) return addressRefusal(user.email, true);
  const owner = taken.emails.get(user.email);
  if (owner !== undefined) return addressRefusal(user.email, taken.ours.has(owner));
  for (const identity of identities)
    if (seen(linkKey(identity)) || taken.links.has(linkKey(identity))) return identityTaken(identity);
  for (const { id } of passkeys)
    if (seen(passkeyKey(id)) || taken.passkeys.has(passkeyKey(id))) return passkeyTaken(id);
  return null;
}

/** The ledger entry of a new account. */
const ledgerRecord = (run: Run, { sourceId, user, digest }: PreparedAccount): LedgerRecord => ({
  source: run.options.source.name,
  sourceId,
  userId: user.id,
  at: user.createdAt,
  digest,
  hashDigest: hashDigest(user.passwordHash),
});

/** Inserts one account's user, links and passkeys through the stores on `trx`; false when a key is taken (`onTaken` says which). */
async function insertAccount(
  stores: ReturnType<typeof storesOn>,
  { user, identities, passkeys }: PreparedAccount,
  onTaken: (refusal: Refusal) => Error,
): Promise<void> {
  if (!(await stores.users.create(user))) throw onTaken(addressRefusal(user.email, false));
  for (const identity of identities) {
    const link = { ...identity, userId: user.id, email: null, createdAt: user.createdAt };
    if (!(await stores.identities.link(link))) throw onTaken(identityTaken(identity));
  }
  for (const passkey of passkeys)
    if (!(await stores.passkeys.create(passkey))) throw onTaken(passkeyTaken(passkey.id));
}

/**
 * Writes a batch's accounts and their ledger entries in one transaction: the users, the links and
 * the ledger entries one multi-row insert each, the passkeys (rare) through the store. True when it committed; false when a key was taken after all (a
 * row raced in, or a duplicate the checks did not see): the transaction is rolled back, and the
 * caller writes the accounts one by one. Any other database error rejects.
 */
export async function writeBatch(run: Run, accounts: readonly PreparedAccount[]): Promise<boolean> {
  if (accounts.length === 0) return true;
  try {
    await run.options.target.db.transaction().execute(async (trx) => {
      await insertUsersAndLinks(trx, run.tables, accounts);
      const stores = storesOn(run, trx);
      for (const { passkeys } of accounts)
        for (const passkey of passkeys)
          if (!(await stores.passkeys.create(passkey))) throw new BatchConflict(passkey.id);
      await run.ledger.recordMany(
        trx,
        accounts.map((account) => ledgerRecord(run, account)),
      );
    });
    return true;
  } catch (error) {
    if (error instanceof BatchConflict || isUniqueViolation(error)) return false;
    throw error;
  }
}

/**
 * Writes one account, its links, passkeys and ledger entry in a transaction of its own; a key
 * that is taken rolls all of it back and skips the row (the way a batch that met a conflict is
 * written again).
 */
export async function writeAccount(run: Run, account: PreparedAccount): Promise<Refusal | null> {
  const { db } = run.options.target;
  try {
    await db.transaction().execute(async (trx) => {
      await insertAccount(storesOn(run, trx), account, (refusal) => new SkipRow(refusal));
      await run.ledger.record(trx, ledgerRecord(run, account));
    });
    return null;
  } catch (error) {
    if (!(error instanceof SkipRow || isUniqueViolation(error))) throw error;
    // A unique key that is not the stores' is the ledger's: another run recorded this source id.
    const refusal: Refusal = error instanceof SkipRow ? error.refusal : byAnotherRun(account.sourceId);
    if (refusal.skip === "already_imported") return refusal;
    // Taken by the same row of another run of this source (it committed while this one wrote)?
    if (await run.ledger.has(run.options.source.name, account.sourceId))
      return byAnotherRun(account.sourceId);
    if (refusal.skip !== "email_taken") return refusal;
    const owner = await storesOn(run, db).users.findByEmail(account.user.email);
    const ours = owner !== null && (await run.ledger.created(run.options.source.name, owner.id));
    return addressRefusal(account.user.email, ours);
  }
}
