import type { PasskeyRecord, UserPatch, UserRecord } from "@portcullis/core";
import type { SqlStores } from "@portcullis/store-sql";
import { type AnyKysely, hashDigest, type LedgerEntry } from "./ledger.js";
import type { PreparedAccount, PreparedIdentity, Refusal } from "./prepare.js";
import {
  addressRefusal,
  identityTaken,
  type Outcome,
  passkeyTaken,
  type Run,
  SkipRow,
  storesOn,
} from "./run.js";

/**
 * An account whose source row changed since it was imported (its digest is not the ledger's), at
 * its index in the batch.
 */
export interface Changed {
  at: number;
  prepared: PreparedAccount;
  entry: LedgerEntry;
}

/** What bringing an account up to date takes. */
interface Plan {
  current: UserRecord;
  /** The new address, or null when it stays. */
  email: string | null;
  patch: UserPatch;
  /** The password hash to set over `expected` (the hash the import wrote, still the account's), or null. */
  password: { expected: string | null; next: string } | null;
  links: PreparedIdentity[];
  passkeys: PasskeyRecord[];
}

const gone = (sourceId: string): Refusal => ({
  skip: "already_imported",
  detail: `source id ${sourceId}: its account was deleted since, and is not created again`,
});

/**
 * What the changed row asks of the account as it is now, by reading only: the address, name and
 * verification as the source has them; the password hash only while the account still has the
 * one the import wrote (a password set in Portcullis since wins; a row without a hash leaves the
 * stored one); the links and passkeys it does not have yet (none is removed); TOTP when the
 * account has none (turned on in the old system since). Refused when the new
 * address, a new link or a new passkey is another account's.
 */
async function plan(
  stores: SqlStores,
  current: UserRecord,
  { user, identities, passkeys }: PreparedAccount,
  entry: LedgerEntry,
): Promise<Plan | Refusal> {
  const email = user.email === current.email ? null : user.email;
  if (email !== null && (await stores.users.findByEmail(email))) return addressRefusal(email, false);
  const linked = new Set(
    (await stores.identities.listByUser(current.id)).map((link) => `${link.issuer} ${link.subject}`),
  );
  const links = identities.filter((identity) => !linked.has(`${identity.issuer} ${identity.subject}`));
  for (const identity of links)
    if (await stores.identities.findBySubject(identity.issuer, identity.subject))
      return identityTaken(identity);
  const newPasskeys: PasskeyRecord[] = [];
  for (const passkey of passkeys) {
    const found = await stores.passkeys.findById(passkey.id);
    if (found && found.userId !== current.id) return passkeyTaken(passkey.id);
    if (!found) newPasskeys.push({ ...passkey, userId: current.id });
  }
  const patch: UserPatch = {};
  if (user.name !== current.name) patch.name = user.name;
  if (email !== null || user.emailVerified !== current.emailVerified)
    patch.emailVerified = user.emailVerified;
  const providers = [...new Set([...current.identityProviders, ...links.map((link) => link.provider)])];
  if (providers.length > current.identityProviders.length) patch.identityProviders = providers;
  // TOTP turned on in the old system since the import: the account gets it (never left without
  // the second factor the source has); one set up in Portcullis since is kept as it is.
  if (user.twoFactor.methods.includes("totp") && !current.twoFactor.methods.includes("totp"))
    patch.twoFactor = {
      ...user.twoFactor,
      methods: [...current.twoFactor.methods, "totp"],
      preferredMethod: current.twoFactor.preferredMethod ?? "totp",
    };
  const next = user.passwordHash;
  const stillImported = entry.hashDigest !== null && entry.hashDigest === hashDigest(current.passwordHash);
  const password =
    next !== null && next !== current.passwordHash && stillImported
      ? { expected: current.passwordHash, next }
      : null;
  return { current, email, patch, password, links, passkeys: newPasskeys };
}

/** Sets the password hash only while it is still `expected` (a compare-and-set); true when it did. */
async function replaceHash(run: Run, trx: AnyKysely, stores: SqlStores, plan: Plan): Promise<boolean> {
  const { password, current } = plan;
  if (!password) return false;
  if (password.expected !== null && stores.users.replacePasswordHash)
    return stores.users.replacePasswordHash(current.id, password.expected, password.next);
  // No hash to compare with (the import wrote none): the same conditional UPDATE on `is null`.
  const result = await trx
    .updateTable(run.tables.users)
    .set({ password_hash: password.next })
    .where("id", "=", current.id)
    .where("password_hash", password.expected === null ? "is" : "=", password.expected)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The plan's writes through the stores on `trx`; a key found taken throws `SkipRow`. */
async function apply(run: Run, trx: AnyKysely, stores: SqlStores, plan: Plan): Promise<boolean> {
  const { current, email } = plan;
  if (email !== null) {
    const changed = await stores.users.changeEmail?.(current.id, current.email, email);
    if (changed?.status !== "changed") throw new SkipRow(addressRefusal(email, false));
  }
  const replaced = await replaceHash(run, trx, stores, plan);
  if (Object.keys(plan.patch).length > 0) await stores.users.update(current.id, plan.patch);
  for (const identity of plan.links) {
    const link = { ...identity, userId: current.id, email: null, createdAt: Date.now() };
    if (!(await stores.identities.link(link))) throw new SkipRow(identityTaken(identity));
  }
  for (const passkey of plan.passkeys)
    if (!(await stores.passkeys.create(passkey))) throw new SkipRow(passkeyTaken(passkey.id));
  return replaced;
}

/**
 * Brings an imported account up to date with its changed source row, in one transaction with its
 * ledger entry's new digests; a new address, link or passkey that is another account's skips the
 * row and changes nothing (the next run tries again, since the ledger keeps the old digest).
 */
export async function updateAccount(run: Run, { prepared, entry }: Changed): Promise<Outcome> {
  try {
    return await run.options.target.db.transaction().execute(async (trx) => {
      const stores = storesOn(run, trx);
      const current = await stores.users.findById(entry.userId);
      if (!current) return gone(prepared.sourceId);
      const planned = await plan(stores, current, prepared, entry);
      if ("skip" in planned) throw new SkipRow(planned);
      const replaced = await apply(run, trx, stores, planned);
      await run.ledger.updateDigests(trx, {
        source: run.options.source.name,
        sourceId: prepared.sourceId,
        digest: prepared.digest,
        hashDigest: replaced ? hashDigest(planned.password?.next ?? null) : entry.hashDigest,
      });
      return { done: "updated", identities: planned.links.length };
    });
  } catch (error) {
    if (error instanceof SkipRow) return error.refusal;
    throw error;
  }
}

/** What `updateAccount` would do, by reading only (a dry run). */
export async function wouldUpdate(run: Run, { prepared, entry }: Changed): Promise<Outcome> {
  const stores = storesOn(run, run.options.target.db);
  const current = await stores.users.findById(entry.userId);
  if (!current) return gone(prepared.sourceId);
  const planned = await plan(stores, current, prepared, entry);
  return "skip" in planned ? planned : { done: "updated", identities: planned.links.length };
}
