import { isValidEmail, normalizeEmail, passwordHashProblem, type UserRecord } from "@portcullis/core";
import type { SourceAccount } from "./source.js";
import type { SkipReason } from "./summary.js";

/**
 * The issuers of the providers whose issuer is fixed; any other provider needs one in the row
 * (`issuer`) or in the import's `issuers` option. A wrong issuer would make "Sign in with …"
 * create a second account, so an unknown provider is a skipped row rather than a guess.
 */
export const BUILT_IN_ISSUERS: Readonly<Record<string, string>> = Object.freeze({
  github: "https://github.com",
  google: "https://accounts.google.com",
});

/** A provider link ready for `IdentityStore.link`. */
export interface PreparedIdentity {
  provider: string;
  issuer: string;
  subject: string;
}

/** An account checked and shaped for the stores: the user record, its links and its ledger key. */
export interface PreparedAccount {
  sourceId: string;
  user: UserRecord;
  identities: PreparedIdentity[];
}

/** Why a row cannot be imported, with the detail the summary's reader needs. */
export interface Refusal {
  skip: SkipReason;
  detail: string;
}

/** What `prepareAccount` needs besides the row. */
export interface PrepareContext {
  issuers: Readonly<Record<string, string>>;
  generateId: () => string;
  now: number;
}

/**
 * Checks one source account and shapes it as the core's `UserRecord`, without reading or writing
 * anything: the address normalized as the core does (`normalizeEmail`) and valid, the password
 * hash one the core can verify (`passwordHashProblem`; never hashed again, so a password keeps
 * working and a million rows stay cheap), each provider mapped to its issuer.
 */
export function prepareAccount(account: SourceAccount, context: PrepareContext): PreparedAccount | Refusal {
  const email = normalizeEmail(account.email);
  if (!isValidEmail(email)) return { skip: "invalid_email", detail: `not a valid address: ${account.email}` };
  const hash = account.passwordHash ?? null;
  const problem = hash === null ? null : passwordHashProblem(hash);
  if (problem) return { skip: "unverifiable_hash", detail: `password hash ${problem}` };
  const identities: PreparedIdentity[] = [];
  for (const { provider, subject, issuer } of account.identities ?? []) {
    const known = issuer ?? context.issuers[provider] ?? BUILT_IN_ISSUERS[provider];
    if (!known) return { skip: "unknown_provider", detail: `no issuer for provider ${provider}` };
    identities.push({ provider, issuer: known, subject });
  }
  const user: UserRecord = {
    id: context.generateId(),
    email,
    emailVerified: account.emailVerified === true,
    name: account.name ?? null,
    passwordHash: hash,
    identityProviders: [...new Set(identities.map((identity) => identity.provider))],
    twoFactor: { methods: [], preferredMethod: null, totpSecretEncrypted: null, recoveryCodeHashes: [] },
    createdAt: context.now,
  };
  return { sourceId: account.id ?? email, user, identities };
}
