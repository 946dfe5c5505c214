import type { SkipReason } from "./summary.js";

/** A provider link of an account in the source: who the provider says the user is. */
export interface SourceIdentity {
  /** The provider's name in Portcullis's `identityProviders`, e.g. `github`. */
  provider: string;
  /** The provider's stable id of the user (GitHub's numeric id, the ID token's `sub`). */
  subject: string;
  /** The provider's issuer; absent: taken from the import's provider → issuer map. */
  issuer?: string;
}

/** One account as a source gives it, before the import checks it. */
export interface SourceAccount {
  /** The account's id in the source system: the key of idempotent re-runs. Absent: the normalized address is the key. */
  id?: string;
  email: string;
  emailVerified?: boolean;
  name?: string | null;
  /** The hash as the old system stored it; never hashed again, only checked to be one the core verifies. */
  passwordHash?: string | null;
  identities?: SourceIdentity[];
  /**
   * The account's TOTP, decrypted by the source: the secret in base32 (the `secret=` of the
   * `otpauth://` URI) and the unused recovery codes in the clear. The import seals them under the
   * host's two-factor key, so the old authenticator app and codes keep working.
   */
  totp?: { secret: string; recoveryCodes?: string[] } | null;
  /** The account's passkeys (WebAuthn credentials registered for the same RP ID). */
  passkeys?: SourcePasskey[];
}

/** A passkey as the old system stored it. */
export interface SourcePasskey {
  /** The credential id, base64url. */
  id: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  counter: number;
  /** `internal`, `hybrid`, `usb`, …; may be empty. */
  transports?: string[];
  backupEligible?: boolean;
  backedUp?: boolean;
  /** The name its owner gave it; default `Passkey`. */
  name?: string | null;
  /** Milliseconds since the Unix epoch; default: the import's time. */
  createdAt?: number;
}

/** One row of a source: an account to import, or a row the source itself could not read. */
export type SourceRow =
  | { line: number; account: SourceAccount }
  | { line: number; skip: SkipReason; detail: string };

/*
 * Sources that read a database (Better Auth, Auth.js, Supabase) read it in keyset pages
 * (`WHERE id > $last ORDER BY id LIMIT n`, the page's accounts, 2FA and passkeys read with one
 * `IN (…)` each), so a million users stream in bounded memory; `line` is then the row's position
 * in that order (1-based).
 */

/**
 * Where accounts come from. `name` tells the sources apart in the import ledger (so two files
 * whose ids overlap are not taken for one another); `rows` streams them in order.
 */
export interface ImportSource {
  name: string;
  rows(): AsyncIterable<SourceRow>;
  /** How many rows `rows()` will yield, when the source can tell cheaply (a progress bar's total); null when not. */
  count?(): Promise<number | null>;
}

/** A database source's `pageSize` option: default 1,000; a `RangeError` unless a whole number of at least 1. */
export function pageSizeOf(pageSize: number | undefined): number {
  const size = pageSize ?? 1_000;
  if (!Number.isSafeInteger(size) || size < 1)
    throw new RangeError(`pageSize must be a positive integer, not ${size}`);
  return size;
}
