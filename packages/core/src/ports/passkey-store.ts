/** A passkey (a WebAuthn credential) registered to an account. */
export interface PasskeyRecord {
  /** The credential id as the authenticator gave it, base64url; unique across every account. */
  id: string;
  /** The account it signs in to. */
  userId: string;
  /** The credential's public key (COSE), base64url. */
  publicKey: string;
  /** The signature counter of its last use (0 for authenticators that keep none, as synced passkeys). */
  counter: number;
  /** How the browser can reach the authenticator (`internal`, `hybrid`, `usb`, …); may be empty. */
  transports: string[];
  /** The authenticator said the credential may be backed up (synced to other devices). */
  backupEligible: boolean;
  /** The credential was backed up at its registration or last use. */
  backedUp: boolean;
  /** The name its owner gave it (1 to 100 characters). */
  name: string;
  /** Milliseconds since the Unix epoch. */
  createdAt: number;
  /** Milliseconds since the Unix epoch of the last sign-in or step-up with it; null before the first. */
  lastUsedAt: number | null;
}

/** What a use of a passkey changes (`PasskeyStore.recordUse`). */
export interface PasskeyUse {
  /** The counter the use was verified against: the write happens only while the stored one is still this. */
  expectedCounter: number;
  /** The counter the authenticator reported now. */
  counter: number;
  backedUp: boolean;
  /** Milliseconds since the Unix epoch. */
  usedAt: number;
}

/**
 * Where passkeys live. Optional in `stores`: only hosts that configure `webauthn` need one. Every
 * method rejects only when the store itself fails (reported as `DATABASE_FAILURE`); returned
 * records are copies.
 */
export interface PasskeyStore {
  /**
   * Stores a new passkey. Atomic on `id`: when a passkey with this id exists (any user's), also
   * concurrently, it stores nothing and returns null; otherwise it returns the stored record.
   */
  create(passkey: PasskeyRecord): Promise<PasskeyRecord | null>;
  /** The passkey with this credential id (matched exactly, case-sensitive), or null. */
  findById(id: string): Promise<PasskeyRecord | null>;
  /** The user's passkeys, oldest first; empty when none. */
  listByUser(userId: string): Promise<PasskeyRecord[]>;
  /**
   * A compare-and-set on the counter: stores `counter`, `backedUp` and `lastUsedAt` only while
   * the stored counter equals `expectedCounter` (atomic: of concurrent uses verified against one
   * counter, at most one that raises it is written). True when written; false when the passkey is
   * gone or its counter moved meanwhile.
   */
  recordUse(id: string, use: PasskeyUse): Promise<boolean>;
  /** Renames the user's passkey; the updated record, or null when the user has no passkey with this id. */
  rename(userId: string, id: string, name: string): Promise<PasskeyRecord | null>;
  /**
   * Removes the user's passkey; true when one was removed, false when there was none. With
   * `keepAtLeast: n` it removes it only when the user still has at least `n` passkeys afterwards
   * (false otherwise, nothing removed); the count and the removal are one atomic step, also under
   * concurrency (N concurrent deletes with `keepAtLeast: 1` of a user's K passkeys remove at most
   * K − 1). This is how the last sign-in method of an account without a password is kept.
   */
  delete(userId: string, id: string, options?: { keepAtLeast?: number }): Promise<boolean>;
  /** Removes every passkey of the user (the account's deletion); returns how many. */
  deleteAllForUser(userId: string): Promise<number>;
}
