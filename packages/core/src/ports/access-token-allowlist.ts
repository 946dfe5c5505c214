import type { SessionRecord, SessionStore } from "./session-store.js";
import type { UserRecord, UserStore } from "./user-store.js";

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
 * `DATABASE_FAILURE`. Expired entries must read as absent.
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
  /**
   * Optional: `findAllowedAccessToken` and the read of the entry's user in one lookup (one query
   * or script), for an allowlist kept beside the users, so an authenticated request costs one
   * round trip. `users` is the `UserStore` the core was given: a store answers only when it reads
   * that store's records itself (its own sibling, e.g. the users of the same `createSqlStores`
   * call, with its own `findById` still in place) and resolves to `undefined` for any other,
   * without a lookup; the core then makes the two reads. Otherwise it resolves as `findAllowedAccessToken` would (null when the `jti` is not, or
   * no longer, allowed: revocation holds at once), with `user` as `users.findById(entry.userId)`
   * would answer at that moment (null when the account is gone). A failed read rejects (reported
   * as `ACCESS_TOKEN_ALLOWLIST_READING_FAILURE`).
   */
  findAllowedAccessTokenWithUser?(
    jti: string,
    users: UserStore,
  ): Promise<AllowedAccessToken | null | undefined>;
  /**
   * Optional: `allowAccessToken(jti, entry, ttlMs)` and `sessions.createSession(session,
   * sessionTtlMs)` as one write (one statement or script, both or neither), for an allowlist kept
   * beside the sessions, so a sign-in stores its new session in one round trip. `sessions` is the
   * `SessionStore` the core was given: a store writes only when that is its own sibling (the
   * sessions of the same `createSqlStores` call, with its own `createSession` still in place) and
   * resolves to `false` for any other, without a write; the core then makes the two calls.
   * Resolves to `true` once both are stored, exactly as the two calls would have stored them. A
   * failed write rejects (reported as `DATABASE_FAILURE`) and leaves neither.
   */
  allowAccessTokenWithSession?(
    jti: string,
    entry: AllowlistEntry,
    ttlMs: number,
    session: SessionRecord,
    sessionTtlMs: number,
    sessions: SessionStore,
  ): Promise<boolean>;
  /** Takes every `jti` given off the allowlist; unknown ones are skipped; an empty list is a no-op. */
  revokeAccessTokens(jtis: string[]): Promise<void>;
}

/** An allowed access token's entry and its user's record, read together. */
export interface AllowedAccessToken {
  entry: AllowlistEntry;
  /** The record of `entry.userId`, or null when there is none. */
  user: UserRecord | null;
}
