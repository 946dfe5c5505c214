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
}

/** One row of a source: an account to import, or a row the source itself could not read. */
export type SourceRow =
  | { line: number; account: SourceAccount }
  | { line: number; skip: SkipReason; detail: string };

/**
 * Where accounts come from. `name` tells the sources apart in the import ledger (so two files
 * whose ids overlap are not taken for one another); `rows` streams them in order.
 */
export interface ImportSource {
  name: string;
  rows(): AsyncIterable<SourceRow>;
}
