import type { AccessTokenAllowlist, AllowedAccessToken, AllowlistEntry } from "./access-token-allowlist.js";
import type { CooldownStore } from "./cooldown-store.js";
import type { MembershipRead } from "./organization-store.js";
import type {
  RotationResult,
  SessionLimits,
  SessionRecord,
  SessionRotation,
  SessionStore,
} from "./session-store.js";
import type { UserRecord } from "./user-store.js";

/** An allowed access token's entry, its user's record and the user's membership, read together. */
export interface AllowedAccessTokenWithMembership extends AllowedAccessToken {
  /**
   * `organizations.findMembership(organizationId, entry.userId)` as it would answer at that
   * moment: null when the user is not (or no longer) a member, or there is no such organization.
   */
  membership: MembershipRead | null;
}

/**
 * Optional (`stores.joint`): work on two of the configured stores in one step, for a store package
 * that keeps them side by side (`createSqlStores` returns one as `joint`). A host gives it only
 * together with the stores it works on, as that package created them: it stands for
 * `stores.users`, `stores.sessions`, `stores.allowlist` and `stores.organizations` and must answer
 * exactly as they would. A host that wraps or replaces one of them (or takes it from another
 * package) leaves `joint` out. The core trusts it as given and compares no store with another,
 * but for `cooldowns` (below).
 *
 * Each method is optional. Without `joint`, or without a method, the core makes the separate
 * calls on the stores instead, with the same result.
 */
export interface JointStores {
  /**
   * Optional: the cooldown store whose keys `allowAccessTokenWithSessionAndRecordSignIn`'s `clear`
   * removes (`createSqlStores` gives its own `cooldowns`). The core passes `clear` only when this
   * is `stores.cooldowns` itself (the same object): a host that keeps its cooldowns elsewhere
   * still gets them cleared by `cooldowns.clearKeys`.
   */
  cooldowns?: CooldownStore;
  /**
   * Optional: the session store and the allowlist that `allowAccessTokenWithSession` and
   * `rotateRefreshTokenWithAccessToken` write (`createRedisStores` names its own). When given, the
   * core calls those two methods only if these are `stores.sessions` and `stores.allowlist`
   * themselves (the same objects): a host that wraps or replaces either, and keeps `joint`, still
   * gets the separate calls.
   */
  sessions?: SessionStore;
  allowlist?: AccessTokenAllowlist;
  /**
   * Optional, used only when `cooldowns` is `stores.cooldowns` itself: `cooldowns.hit(counterKey,
   * windowMs)` and `users.findByEmail(email)` in one step (one statement or script), so a password
   * sign-in counts its attempt and reads its account in one round trip. Resolves the hit's
   * `{ count, remainingMs }`, exactly as `hit` would count (atomic, every concurrent call counted),
   * with `user` as `findByEmail` would answer at that moment (null: no such account). A failure
   * rejects and counts nothing or everything, as a failed `hit` may (reported as
   * `EMAIL_COOLDOWN_CACHE_FAILURE`, then as `DATABASE_FAILURE` when the users store fails too).
   */
  hitAndFindUserByEmail?(
    counterKey: string,
    windowMs: number,
    email: string,
  ): Promise<{ count: number; remainingMs: number; user: UserRecord | null }>;
  /**
   * Optional: `allowlist.findAllowedAccessToken(jti)` and the read of the entry's user
   * (`users.findById(entry.userId)`) in one lookup (one query or script), so an authenticated
   * request costs one round trip. Null when the `jti` is not, or no longer, allowed (revocation
   * holds at once); otherwise the entry, with `user` as `users.findById` would answer at that
   * moment (null when the account is gone). A failed read rejects (reported as
   * `ACCESS_TOKEN_ALLOWLIST_READING_FAILURE`).
   */
  findAllowedAccessTokenWithUser?(jti: string): Promise<AllowedAccessToken | null>;
  /**
   * Optional: `findAllowedAccessTokenWithUser(jti)` and the read of the entry's user's membership
   * in `organizationId` (`organizations.findMembership(organizationId, entry.userId)`, with the
   * custom role's permissions) in one lookup, so a request whose access token names an active
   * organization checks a permission in one round trip, the role still read in that request.
   * Null when the `jti` is not, or no longer, allowed; otherwise the entry, `user` as
   * `users.findById` and `membership` as `findMembership` would answer at that moment (a changed
   * role or a removal shows on the very next read). `organizationId` is any string (an unknown
   * one reads no membership). A failed read rejects (reported as
   * `ACCESS_TOKEN_ALLOWLIST_READING_FAILURE`).
   */
  findAllowedAccessTokenWithMembership?(
    jti: string,
    organizationId: string,
  ): Promise<AllowedAccessTokenWithMembership | null>;
  /**
   * Optional (used only as `sessions` and `allowlist` above allow):
   * `allowlist.allowAccessToken(jti, entry, ttlMs)` and `sessions.createSession(session,
   * sessionTtlMs)` as one write (one statement or script): both are stored, exactly as the two
   * calls would have stored them, or neither. A sign-in then stores its new session in one round
   * trip. A failed write rejects (reported as `DATABASE_FAILURE`) and leaves neither; the core
   * does not fall back to the two calls then.
   */
  allowAccessTokenWithSession?(
    jti: string,
    entry: AllowlistEntry,
    ttlMs: number,
    session: SessionRecord,
    sessionTtlMs: number,
  ): Promise<void>;
  /**
   * Optional: `allowAccessTokenWithSession(jti, entry, ttlMs, session, sessionTtlMs)` and
   * `users.recordSignInIfUnchanged(session.userId, session.createdAt, passwordHash)` as one atomic
   * write (one statement or script), the end of every sign-in in one round trip. The user's
   * record is read as it is when the session is written, with nothing able to change it between
   * the read and the write (store-sql locks its row): a lock or a password set that landed before
   * is seen here, and one that lands after finds the session and purges it. The session and the
   * entry are written whatever the read finds (the core then ends the session, as it does after
   * the separate calls). Resolves what `recordSignInIfUnchanged` resolves: the record as read,
   * before the write, or null for an unknown user. With `clear` (only when `cooldowns` is the
   * host's cooldown store), the same write also does `cooldowns.clearKeys(clear.counterKeys,
   * clear.cooldownKeys)`: a password sign-in's throttle is cleared with its session, whatever the
   * read finds. A failed write rejects (reported as `DATABASE_FAILURE`) and leaves nothing
   * written, the clearing included; the core does not fall back to the calls then.
   */
  allowAccessTokenWithSessionAndRecordSignIn?(
    jti: string,
    entry: AllowlistEntry,
    ttlMs: number,
    session: SessionRecord,
    sessionTtlMs: number,
    passwordHash: string | undefined,
    clear?: CooldownKeys,
  ): Promise<UserRecord | null>;
  /**
   * Optional (used only as `sessions` and `allowlist` above allow): a refresh's writes as one
   * atomic step (one statement, transaction or script), after the core read the session:
   * `sessions.rotateRefreshToken(sessionId, presentedHash, next, ttlMs, reuseIntervalMs, limits)`,
   * with `next.accessTokenJti` allowed (`access.entry` for `access.ttlMs`) exactly when that
   * rotation answers `rotated`, and in the same step the `jti` it leaves behind revoked: `rotated`
   * revokes the `accessTokenJti` of the record it replaced, `reused` and `expired` (the session
   * deleted) the session's. `current` and `invalid` write no entry. Resolves what
   * `rotateRefreshToken` resolves. Both ports then read as the separate calls would leave them,
   * and no moment between the steps is ever visible. A failed write rejects (reported as
   * `DATABASE_FAILURE`) and leaves nothing written; the core does not fall back to the separate
   * calls then.
   */
  rotateRefreshTokenWithAccessToken?(
    sessionId: string,
    presentedHash: string,
    next: SessionRotation,
    ttlMs: number,
    reuseIntervalMs: number | undefined,
    limits: SessionLimits | undefined,
    access: { entry: AllowlistEntry; ttlMs: number },
  ): Promise<RotationResult>;
}

/** Keys of a cooldown store to clear (`CooldownStore.clearKeys`' two lists). */
export interface CooldownKeys {
  counterKeys: readonly string[];
  cooldownKeys: readonly string[];
}
