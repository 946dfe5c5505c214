import type { UserRecord } from "./user-store.js";

/** What the allowlist knows about an access token's `jti`. */
export interface AllowlistEntry {
  userId: string;
  sessionId: string;
}

/**
 * The access tokens that may still be used, by `jti`: an access token is accepted only while its
 * `jti` is here (so revoking a session stops its access token at once, before the JWT expires).
 * The core writes it: it allows a session's new `jti` before handing the token out and revokes
 * it when the session ends or rotates. Every method rejects only when the store itself fails;
 * a failed read is reported as `ACCESS_TOKEN_ALLOWLIST_READING_FAILURE`, a failed write as
 * `DATABASE_FAILURE`. Expired entries must read as absent. A store kept beside the users or the
 * sessions can also read an entry with its user, or write it with a new session, in one step:
 * that is `JointStores` (`stores.joint`), not a method here.
 */
export interface AccessTokenAllowlist {
  /**
   * Optional: mints the `jti` of a new access token of `sessionId` (at least 128 random bits,
   * 16-64 base64url characters). A store that shards (Redis Cluster) may embed a tag taken from
   * the session id. Default: 128 random bits.
   */
  createAccessTokenId?(sessionId: string): string;
  /** Allows `jti` for `ttlMs` milliseconds from now, for the user and session in `entry` (replacing any entry of that `jti`). */
  allowAccessToken(jti: string, entry: AllowlistEntry, ttlMs: number): Promise<void>;
  /**
   * The entry of an access token's `jti`, or null when it is not (or no longer) allowed. Runs on
   * every authenticated request: one lookup by key, nothing more.
   */
  findAllowedAccessToken(jti: string): Promise<AllowlistEntry | null>;
  /** Takes every `jti` given off the allowlist; unknown ones are skipped; an empty list is a no-op. */
  revokeAccessTokens(jtis: string[]): Promise<void>;
}

/** An allowed access token's entry and its user's record, read together (`JointStores`). */
export interface AllowedAccessToken {
  entry: AllowlistEntry;
  /** The record of `entry.userId`, or null when there is none. */
  user: UserRecord | null;
}
