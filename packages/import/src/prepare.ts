import { createHash } from "node:crypto";
import {
  importedTotpSecretProblem,
  isValidEmail,
  normalizeEmail,
  type PasskeyRecord,
  passwordHashProblem,
  type TwoFactorImporter,
  type UserRecord,
} from "@portcullis/core";
import type { SourceAccount, SourcePasskey } from "./source.js";
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
  /** The source account's `accountDigest`: a re-run tells a changed row by it. */
  digest: string;
  user: UserRecord;
  identities: PreparedIdentity[];
  /** The TOTP to seal under the host's key before the user is written, or null. */
  totp: { secret: string; recoveryCodes: string[] } | null;
  passkeys: PasskeyRecord[];
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
  const passkeys: PasskeyRecord[] = [];
  for (const passkey of account.passkeys ?? []) {
    const problem = passkeyProblem(passkey);
    if (problem) return { skip: "invalid_row", detail: `passkey ${problem}` };
    passkeys.push(passkeyRecord(passkey, context.now));
  }
  const totp = account.totp ?? null;
  const totpProblem = totp && importedTotpSecretProblem(totp.secret);
  if (totpProblem) return { skip: "invalid_two_factor", detail: `TOTP secret ${totpProblem}` };
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
  for (const passkey of passkeys) passkey.userId = user.id;
  return {
    sourceId: account.id ?? email,
    digest: accountDigest(account),
    user,
    identities,
    totp: totp && { secret: totp.secret, recoveryCodes: totp.recoveryCodes ?? [] },
    passkeys,
  };
}

/**
 * The SHA-256 (hex) of the source account's canonical JSON (keys sorted at every level, absent
 * and undefined fields left out): equal for the same account however the source ordered its
 * fields, different as soon as anything in it changed.
 */
export function accountDigest(account: SourceAccount): string {
  return createHash("sha256").update(canonicalJson(account)).digest("hex");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const fields = Object.entries(value)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${fields.map(([name, field]) => `${JSON.stringify(name)}:${canonicalJson(field)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** What is wrong with a source passkey, or null. */
function passkeyProblem({ id, publicKey, counter }: SourcePasskey): string | null {
  if (typeof id !== "string" || !BASE64URL.test(id)) return "id is not base64url";
  if (typeof publicKey !== "string" || !BASE64URL.test(publicKey))
    return `${id}: public key is not base64url`;
  if (!Number.isSafeInteger(counter) || counter < 0) return `${id}: counter is not a whole number ≥ 0`;
  return null;
}

function passkeyRecord(passkey: SourcePasskey, now: number): PasskeyRecord {
  return {
    id: passkey.id,
    userId: "",
    publicKey: passkey.publicKey,
    counter: passkey.counter,
    transports: passkey.transports ?? [],
    backupEligible: passkey.backupEligible === true,
    backedUp: passkey.backedUp === true,
    name: (passkey.name ?? "").trim().slice(0, 100) || "Passkey",
    createdAt: passkey.createdAt ?? now,
    lastUsedAt: null,
  };
}

/**
 * Seals the account's TOTP under the host's key (`twoFactor`, null without a key) into its user
 * record, or refuses the account: it is never imported without its second factor.
 */
export async function sealTotp(
  twoFactor: TwoFactorImporter | null,
  prepared: PreparedAccount,
): Promise<Refusal | null> {
  if (!prepared.totp) return null;
  if (!twoFactor)
    return {
      skip: "two_factor_unreadable",
      detail:
        "the account has TOTP and the import has no two-factor key (the host's twoFactor.encryptionKey or secret)",
    };
  prepared.user.twoFactor = await twoFactor.settings({
    totpSecret: prepared.totp.secret,
    recoveryCodes: prepared.totp.recoveryCodes,
  });
  return null;
}
