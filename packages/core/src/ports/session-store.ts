/** A signed-in device or browser. */
export interface SessionRecord {
  id: string;
  userId: string;
  browser: string | null;
  os: string | null;
  ip: string | null;
  /** Milliseconds since the Unix epoch. */
  createdAt: number;
  /** Milliseconds since the Unix epoch; updated on every refresh. */
  lastActiveAt: number;
  /** SHA-256 (base64url) of the current refresh token. */
  refreshTokenHash: string;
  /** The `jti` of the access token issued with the current refresh token. */
  accessTokenJti: string;
}

/** What the allowlist knows about an access token's `jti`. */
export interface AllowlistEntry {
  userId: string;
  sessionId: string;
}

/** Lifetimes for a session write, in milliseconds. */
export interface SessionTtls {
  /** How long the session (and its refresh token) lives from now without another refresh. */
  sessionTtlMs: number;
  /** How long the new access token stays on the allowlist. */
  accessTokenTtlMs: number;
}

/** The new refresh token and access token that replace the current ones on rotation. */
export interface SessionRotation {
  refreshTokenHash: string;
  accessTokenJti: string;
  lastActiveAt: number;
  browser?: string | null;
  os?: string | null;
  ip?: string | null;
}

/** The session after `next` rotated it: new token hash and jti, activity, and any stated device or IP. */
export function applyRotation(record: SessionRecord, next: SessionRotation): SessionRecord {
  return {
    ...record,
    refreshTokenHash: next.refreshTokenHash,
    accessTokenJti: next.accessTokenJti,
    lastActiveAt: next.lastActiveAt,
    ...(next.browser !== undefined ? { browser: next.browser } : {}),
    ...(next.os !== undefined ? { os: next.os } : {}),
    ...(next.ip !== undefined ? { ip: next.ip } : {}),
  };
}

/**
 * What `rotateRefreshToken` did: `rotated` (the presented hash was current), `reused` (it was
 * an earlier, already rotated hash of this session: the session was revoked) or `invalid`
 * (no such session, or a hash the session never had: nothing changed).
 */
export type RotationResult =
  | { status: "rotated"; session: SessionRecord }
  | { status: "reused"; session: SessionRecord }
  | { status: "invalid" };

/** A single-use token record (password reset, email verification, 2FA challenges). */
export interface TokenRecord {
  /** What the token is for, e.g. `password-reset`; a token never works for another purpose. */
  purpose: string;
  /** SHA-256 (base64url) of the token; the token itself is never stored. */
  tokenHash: string;
  userId: string;
  /** Milliseconds since the Unix epoch after which the core refuses the token as expired. */
  expiresAt: number;
  /** Purpose-specific data, e.g. the exact address a verification token was sent to. */
  data?: Record<string, string | number | boolean | null>;
}

/**
 * Sessions, the access-token allowlist and single-use tokens. Every method rejects only when
 * the store itself fails; allowlist reads are reported as `ACCESS_TOKEN_ALLOWLIST_READING_FAILURE`,
 * token writes for verification as `EMAIL_VERIFICATION_TOKEN_CREATION_FAILURE`, the rest as
 * `DATABASE_FAILURE`. Expired entries must read as absent.
 */
export interface SessionStore {
  /**
   * Optional: mints the id of a new session of `userId` (at least 128 random bits, 16-64
   * base64url characters). A store that shards by user (Redis Cluster) embeds a user-derived tag
   * here, so it can find the user's shard from a session id alone. Default: 128 random bits.
   */
  createSessionId?(userId: string): string;
  /** Optional: mints the `jti` of a new access token of `sessionId` (same rules as `createSessionId`). */
  createAccessTokenId?(sessionId: string): string;
  /** Stores a new session and puts its `accessTokenJti` on the allowlist. */
  createSession(session: SessionRecord, ttls: SessionTtls): Promise<void>;
  /** The session, or null when absent or expired. */
  getSession(id: string): Promise<SessionRecord | null>;
  /** The user's live sessions, in no particular order; empty when none. */
  listSessions(userId: string): Promise<SessionRecord[]>;
  /**
   * Atomically checks `presentedHash` against the session's refresh token. When it is the
   * current one: stores `next`, takes the old access token off the allowlist, puts the new one
   * on, sets the session to expire `ttls.sessionTtlMs` from now, and returns `rotated` with the
   * new record. When it is a hash this session had before: deletes the session and its
   * allowlisted access token and returns `reused`. Otherwise changes nothing and returns
   * `invalid`. A store may remember a bounded number of earlier hashes (the shipped stores keep
   * 32); an older one then reads as `invalid`. Of concurrent calls with the same current hash,
   * exactly one returns `rotated`; the others present a hash that was just rotated, so they get
   * `reused` and the session ends: clients must not refresh one session in parallel.
   */
  rotateRefreshToken(
    sessionId: string,
    presentedHash: string,
    next: SessionRotation,
    ttls: SessionTtls,
  ): Promise<RotationResult>;
  /** Deletes the session and takes its access token off the allowlist; returns the deleted record or null. */
  deleteSession(id: string): Promise<SessionRecord | null>;
  /** Deletes every session of the user (except `exceptSessionId`) with their access tokens; returns how many. */
  deleteUserSessions(userId: string, exceptSessionId?: string): Promise<number>;
  /** The allowlist entry for an access token's `jti`, or null when it is not (or no longer) allowed. */
  findAllowedAccessToken(jti: string): Promise<AllowlistEntry | null>;
  /**
   * Stores a single-use token for `ttlMs` milliseconds (keep it somewhat past `expiresAt` so an
   * expired token can be told from an unknown one). With `replaceOthers`, first deletes every
   * other token of the same user and purpose (a newer email invalidates older links).
   */
  saveToken(token: TokenRecord, ttlMs: number, options?: { replaceOthers?: boolean }): Promise<void>;
  /**
   * Atomically reads and deletes the token: of concurrent calls, exactly one gets the record; null
   * when absent. It also deletes a token that `claimToken` holds (that is how a claim finishes).
   */
  consumeToken(purpose: string, tokenHash: string): Promise<TokenRecord | null>;
  /**
   * Optional (a store without it makes the core consume the token first and save it back when a
   * later step fails, as before; it logs a warning once). Atomically claims the token for
   * `leaseMs` milliseconds without deleting it: of concurrent calls, exactly one gets the record;
   * the others, and every later call until the lease ends or `releaseToken` is called, get null,
   * as for an absent token. When the lease ends the token can be claimed again, so a process that
   * dies between the claim and `consumeToken` leaves the link working. Null when absent.
   * A store implementing it must implement `releaseToken` too, and `saveToken` of the same
   * purpose and hash must drop an existing claim.
   */
  claimToken?(purpose: string, tokenHash: string, leaseMs: number): Promise<TokenRecord | null>;
  /** Optional, with `claimToken`: ends a claim at once, so the token can be claimed again; no-op when absent. */
  releaseToken?(purpose: string, tokenHash: string): Promise<void>;
  /** Deletes every token of the user with this purpose; returns how many. */
  deleteUserTokens(userId: string, purpose: string): Promise<number>;
}
