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
  /**
   * The `jti` of the access token issued with the current refresh token. The session store only
   * keeps it: the core puts it on (and takes it off) the `AccessTokenAllowlist`.
   */
  accessTokenJti: string;
  /**
   * `false`: the user did not ask to stay signed in (`rememberMe: false`), so the auth cookies of
   * this session are browser-session cookies (no Max-Age), on every refresh too. Absent or `true`:
   * cookies with a Max-Age. A store keeps it as given and never changes it on rotation.
   */
  rememberMe?: boolean;
  /**
   * Set on a session an admin started as the user (`admin.impersonate`): who did (the admin's
   * user id or the host's actor). Such a session cannot step up and ends an hour after its
   * creation. A store keeps it as given and never changes it on rotation; absent: a normal session.
   */
  impersonatedBy?: string;
  /**
   * The organization the session works in (`POST /organizations/:id/activate`); absent or null:
   * none. A store keeps it as given, also on rotation, and changes it only through
   * `setActiveOrganization`.
   */
  activeOrganizationId?: string | null;
}

/**
 * The lifetimes a session store enforces in `rotateRefreshToken`, in milliseconds: a session
 * ends when it was not rotated for `idleTimeoutMs` (since its creation when never rotated), or was
 * created more than `absoluteLifetimeMs` ago.
 */
export interface SessionLimits {
  idleTimeoutMs: number;
  absoluteLifetimeMs: number;
}

/**
 * Whether a session started at `startedAt` and last active at `activeAt` has ended at `now` by
 * `limits` (all in ms on one clock): strictly more than the idle timeout or the lifetime has
 * passed. At exactly the limit it is still alive.
 */
export function isPastLimits(
  startedAt: number,
  activeAt: number,
  now: number,
  limits: SessionLimits,
): boolean {
  return now - activeAt > limits.idleTimeoutMs || now - startedAt > limits.absoluteLifetimeMs;
}

/**
 * How many earlier refresh-token hashes the shipped session stores remember per session, so that
 * presenting one of them reads as reuse (`rotateRefreshToken`); an older one reads as invalid.
 */
export const REMEMBERED_REFRESH_TOKEN_HASHES = 32;

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
 * What `rotateRefreshToken` did: `rotated` (the presented hash was current), `current` (it was
 * the hash the latest rotation replaced, presented within the reuse interval: nothing changed),
 * `reused` (an earlier, already rotated hash of this session: the session was deleted),
 * `expired` (a hash this session had, current or earlier, but the session is past its `limits`:
 * the session was deleted) or `invalid` (no such session, or a hash the session never had:
 * nothing changed). `session` is the record after the rotation, (current) as it is now, or
 * (reused, expired) as it was when deleted.
 */
export type RotationResult =
  | { status: "rotated"; session: SessionRecord }
  | { status: "current"; session: SessionRecord }
  | { status: "reused"; session: SessionRecord }
  | { status: "expired"; session: SessionRecord }
  | { status: "invalid" };

/**
 * Sessions and their refresh-token rotation. Every method rejects only when the store itself
 * fails (the core reports it as `DATABASE_FAILURE`). Expired sessions must read as absent.
 * The access-token allowlist is another port (`AccessTokenAllowlist`): this store never touches
 * it; the core allows and revokes a session's `accessTokenJti` around these calls.
 */
export interface SessionStore {
  /**
   * Optional: mints the id of a new session of `userId` (at least 128 random bits, 16-64
   * base64url characters). A store that shards by user (Redis Cluster) embeds a user-derived tag
   * here, so it can find the user's shard from a session id alone. Default: 128 random bits.
   */
  createSessionId?(userId: string): string;
  /** Stores a new session that expires `ttlMs` milliseconds from now (a session of the same id is replaced). */
  createSession(session: SessionRecord, ttlMs: number): Promise<void>;
  /** The session, or null when absent or expired. */
  getSession(id: string): Promise<SessionRecord | null>;
  /** The user's live sessions, in no particular order; empty when none. */
  listSessions(userId: string): Promise<SessionRecord[]>;
  /**
   * Atomically checks `presentedHash` against the session's refresh token (a compare-and-set).
   * When it is the current one: stores `next`, sets the session to expire `ttlMs` from now and
   * returns `rotated` with the new record. When it is a hash this session had before: deletes
   * the session and returns `reused` with the record as it was. Otherwise changes nothing and
   * returns `invalid`. A store may remember a bounded number of earlier hashes (the shipped stores
   * keep `REMEMBERED_REFRESH_TOKEN_HASHES`); an older one then reads as `invalid`.
   *
   * The reuse interval: the store records when each rotation happened (on its own clock). When
   * `presentedHash` is the one the session's latest rotation replaced (its parent) and at most
   * `reuseIntervalMs` milliseconds have passed since that rotation, it changes nothing and returns
   * `current` with the record as it is. Any older hash, or the parent after the interval, is
   * `reused` as above. Of concurrent calls with the same current hash, exactly one returns
   * `rotated` and (within the interval) the others `current`, all in one atomic step each.
   * `reuseIntervalMs` absent or 0: no interval, the parent is `reused` at once. A store written
   * before the interval existed ignores the argument and never answers `current`: with it,
   * concurrent refreshes of one session end the session, as they did before.
   *
   * Lifetimes: with `limits`, in the same atomic step and before anything else, a session whose
   * presented hash is current or one it had before, and that is past `limits` (`isPastLimits`:
   * idle since its latest rotation, or since its creation when never rotated; created longer
   * ago than the lifetime), is deleted and the answer is `expired`. The store measures both on
   * the clock it records rotations on (a store on a server measures on the server's clock, from
   * times it recorded itself). A store written before lifetimes existed ignores `limits`; the core
   * then checks the record it rotated on its own clock (not atomic with the rotation).
   */
  rotateRefreshToken(
    sessionId: string,
    presentedHash: string,
    next: SessionRotation,
    ttlMs: number,
    reuseIntervalMs?: number,
    limits?: SessionLimits,
  ): Promise<RotationResult>;
  /**
   * Optional (added with organizations; required when `organizations` is configured): sets the
   * session's active organization (null: none) and returns the updated record, or null when the
   * session is gone. It changes nothing else, so a rotation racing it keeps its own outcome.
   */
  setActiveOrganization?(id: string, organizationId: string | null): Promise<SessionRecord | null>;
  /** Deletes the session; returns the deleted record, or null when it was absent (or expired). */
  deleteSession(id: string): Promise<SessionRecord | null>;
  /**
   * Deletes every live session of the user except `exceptSessionId`; returns the deleted records
   * (empty when none), so the core can revoke their access tokens.
   */
  deleteUserSessions(userId: string, exceptSessionId?: string): Promise<SessionRecord[]>;
}
