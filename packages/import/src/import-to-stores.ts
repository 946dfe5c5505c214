import { randomUUID } from "node:crypto";
import {
  createTwoFactorImporter,
  type IdentityStore,
  type PasskeyStore,
  type SecretInput,
  type TwoFactorImporter,
  type UserStore,
} from "@portcullis/core";
import { accountKeys } from "./batch.js";
import { type PreparedAccount, prepareAccount, type Refusal, sealTotp } from "./prepare.js";
import { addressRefusal, identityTaken, passkeyTaken } from "./run.js";
import type { ImportSource } from "./source.js";
import { emptySummary, type ImportSummary, recordSkip } from "./summary.js";

/** The host's own stores, through the core's ports: where `importToStores` writes. */
export interface StoresTarget {
  users: UserStore;
  /** Needed for accounts with provider links. */
  identities?: IdentityStore;
  /** Needed for accounts with passkeys. */
  passkeys?: PasskeyStore;
}

/** What `importToStores` takes: `importAccounts`'s options, with the host's stores as the target. */
export interface ImportToStoresOptions {
  source: ImportSource;
  stores: StoresTarget;
  /** Read and decide as a real run would, and write nothing. Default false. */
  dryRun?: boolean;
  /** Issuers of providers other than `github` and `google`, by provider name. */
  issuers?: Readonly<Record<string, string>>;
  /** The host's `twoFactor.encryptionKey` (or `secret`); without it accounts with TOTP are skipped. */
  twoFactorKey?: SecretInput;
  /** How many line numbers the summary keeps per skip reason; default 20. */
  firstLines?: number;
  /** The new accounts' ids; default `crypto.randomUUID`. */
  generateId?: () => string;
}

/**
 * Moves the source's accounts into the host's own stores (a `UserStore` over its users table, and
 * its `IdentityStore` and `PasskeyStore`), one account at a time, with the checks of
 * `importAccounts`. The ports have no transaction, so an account whose link or passkey turns out
 * to be taken is taken back (its passkeys, links and user removed) before the row is skipped, and
 * a store that fails midway gets the same clean-up before the error is rethrown. There is no
 * ledger: an address that already has an account is skipped as `email_taken`, which is also how
 * a re-run reports the accounts of an earlier one (nothing is duplicated, nothing updated).
 */
export async function importToStores(options: ImportToStoresOptions): Promise<ImportSummary> {
  const summary = emptySummary(options.dryRun === true);
  const twoFactor = options.twoFactorKey === undefined ? null : createTwoFactorImporter(options.twoFactorKey);
  const context = {
    issuers: options.issuers ?? {},
    generateId: options.generateId ?? randomUUID,
  };
  const seen = new Set<string>();
  for await (const row of options.source.rows()) {
    summary.rows += 1;
    let outcome: Refusal | PreparedAccount;
    if ("skip" in row) outcome = row;
    else {
      outcome = prepareAccount(row.account, { ...context, now: Date.now() });
      if (!("skip" in outcome)) outcome = (await checked(options, outcome, twoFactor, seen)) ?? outcome;
      if (!("skip" in outcome) && !options.dryRun)
        outcome = (await write(options.stores, outcome)) ?? outcome;
    }
    if ("skip" in outcome) recordSkip(summary, outcome.skip, row.line, options.firstLines ?? 20);
    else {
      summary.imported += 1;
      summary.identities += outcome.identities.length;
    }
  }
  return summary;
}

/** The checks before a write: 2FA sealed, the stores the account needs, its address and keys free. */
async function checked(
  { stores }: ImportToStoresOptions,
  account: PreparedAccount,
  twoFactor: TwoFactorImporter | null,
  seen: Set<string>,
): Promise<Refusal | null> {
  const { user, identities, passkeys } = account;
  const unsealed = await sealTotp(twoFactor, account);
  if (unsealed) return unsealed;
  if (identities.length > 0 && !stores.identities)
    return {
      skip: "invalid_row",
      detail: "the account has provider links and the target has no IdentityStore",
    };
  if (passkeys.length > 0 && !stores.passkeys)
    return { skip: "invalid_row", detail: "the account has passkeys and the target has no PasskeyStore" };
  if (seen.has(user.email)) return addressRefusal(user.email, true);
  if (await stores.users.findByEmail(user.email))
    return {
      skip: "email_taken",
      detail: `${user.email} has an account already (an earlier run's, or one there before)`,
    };
  for (const identity of identities)
    if (
      seen.has(`${identity.issuer} ${identity.subject}`) ||
      (await stores.identities?.findBySubject(identity.issuer, identity.subject))
    )
      return identityTaken(identity);
  for (const { id } of passkeys)
    if (seen.has(`passkey ${id}`) || (await stores.passkeys?.findById(id))) return passkeyTaken(id);
  for (const key of accountKeys(account)) seen.add(key);
  return null;
}

/** The user, then its links and passkeys; a key taken meanwhile, or a failing store, takes the account back. */
async function write(
  stores: StoresTarget,
  { user, identities, passkeys }: PreparedAccount,
): Promise<Refusal | null> {
  if (!(await stores.users.create(user)))
    return { skip: "email_taken", detail: `${user.email} was taken meanwhile` };
  const linked: string[] = [];
  const stored: string[] = [];
  const takeBack = async () => {
    for (const id of stored) await stores.passkeys?.delete(user.id, id);
    for (const provider of linked) await stores.identities?.unlink(user.id, provider);
    await stores.users.delete(user.id);
  };
  try {
    for (const identity of identities) {
      const link = { ...identity, userId: user.id, email: null, createdAt: user.createdAt };
      if (!(await stores.identities?.link(link))) {
        await takeBack();
        return {
          skip: "identity_taken",
          detail: `${identity.provider} ${identity.subject} was linked meanwhile`,
        };
      }
      linked.push(identity.provider);
    }
    for (const passkey of passkeys) {
      if (!(await stores.passkeys?.create(passkey))) {
        await takeBack();
        return { skip: "passkey_taken", detail: `passkey ${passkey.id} was registered meanwhile` };
      }
      stored.push(passkey.id);
    }
    return null;
  } catch (error) {
    await takeBack().catch(() => {});
    throw error;
  }
}
