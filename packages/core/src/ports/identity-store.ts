/** An account's link to an identity provider: who the provider says the user is. */
export interface IdentityRecord {
  /** The account it signs in to. */
  userId: string;
  /** The configured provider's name, e.g. `github` or `oidc`. */
  provider: string;
  /** The provider's issuer identifier (the ID token's `iss`; for GitHub `https://github.com`). */
  issuer: string;
  /** The provider's stable id of the user (the ID token's `sub`; GitHub's numeric user id). */
  subject: string;
  /** The address the provider gave when the link was made (normalized), or null; informative only. */
  email: string | null;
  /** Milliseconds since the Unix epoch. */
  createdAt: number;
}

/**
 * Where the links between accounts and identity-provider identities live. An identity is matched
 * by `issuer` and `subject` only, never by email. Optional in `stores`: only hosts that configure
 * `identityProviders` need one. Every method rejects only when the store itself fails (reported as
 * `DATABASE_FAILURE`).
 */
export interface IdentityStore {
  /**
   * Stores the link. Must be atomic on (`issuer`, `subject`) and on (`userId`, `provider`): when
   * either pair is already linked, also concurrently, it stores nothing and returns null;
   * otherwise it returns the stored record.
   */
  link(identity: IdentityRecord): Promise<IdentityRecord | null>;
  /** The link of this identity, or null when there is none. */
  findBySubject(issuer: string, subject: string): Promise<IdentityRecord | null>;
  /** The user's links, oldest first; empty when none. */
  listByUser(userId: string): Promise<IdentityRecord[]>;
  /**
   * Removes the user's link to `provider`; true when one was removed, false when there was none.
   * With `keepAtLeast: n` it removes the link only when the user still has at least `n` links
   * afterwards (false otherwise, nothing removed). The count and the removal must be one atomic
   * step, also under concurrency: N concurrent calls with `keepAtLeast: 1` for the K links of one
   * user remove at most K − 1 of them (in SQL one conditional DELETE, or a transaction that locks
   * the user's rows; in memory synchronously). This is how the last sign-in method of an account
   * without a password is kept.
   */
  unlink(userId: string, provider: string, options?: UnlinkOptions): Promise<boolean>;
}

/** The condition of `IdentityStore.unlink`. */
export interface UnlinkOptions {
  /** How many links the user must still have after the removal; default 0 (no condition). */
  keepAtLeast?: number;
}
