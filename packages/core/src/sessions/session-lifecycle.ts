import { guardPort } from "../errors.js";
import type { SessionInfo } from "../model.js";
import type { AccessTokenAllowlist, AllowlistEntry } from "../ports/access-token-allowlist.js";
import type { Clock } from "../ports/clock.js";
import type { CooldownKeys, JointStores } from "../ports/joint-stores.js";
import {
  isPastLimits,
  type RotationResult,
  type SessionLimits,
  type SessionRecord,
  type SessionRotation,
  type SessionStore,
} from "../ports/session-store.js";
import type { UserRecord } from "../ports/user-store.js";
import { randomId } from "../tokens/random.js";

/**
 * Where sessions and their access tokens live: two ports, so that a host can take each from
 * another package. This file is the one place that writes both; every use case that starts,
 * rotates or ends a session goes through it. The order of the steps keeps every state between
 * two of them safe (docs/security.md, "Fail-safe order"): a `jti` is allowed before the token
 * that carries it can exist, and revoked before (and again after) its session goes.
 */
export interface SessionLifecycleDeps {
  sessions: SessionStore;
  allowlist: AccessTokenAllowlist;
  /**
   * `stores.joint`: with `allowAccessTokenWithSession` a new session is one write, with
   * `rotateRefreshTokenWithAccessToken` a rotation (on the stores it names: `jointOnTheseStores`).
   */
  joint?: JointStores | undefined;
}

/** How long a session and its access token live, in milliseconds. */
export interface SessionLifetimes {
  /** How long the store keeps the session (and its refresh token) from now without another refresh. */
  sessionTtlMs: number;
  /** How long a new access token stays on the allowlist. */
  accessTokenTtlMs: number;
  /** The refresh reuse interval (`rotateRefreshToken`); absent or 0: none. */
  reuseIntervalMs?: number;
  /** The idle timeout and absolute lifetime; absent: none (the store's TTL alone ends a session). */
  limits?: SessionLimits;
}

/** What `sessionLifetimes` reads. */
export interface LifetimeOptions {
  refreshTokenTtlSeconds: number;
  accessTokenTtlSeconds: number;
  refreshReuseIntervalSeconds?: number;
  idleTimeoutSeconds?: number;
  absoluteLifetimeSeconds?: number;
}

/** The lifetimes of the options, in milliseconds. */
export function sessionLifetimes(ctx: { options: LifetimeOptions }): SessionLifetimes {
  const { idleTimeoutSeconds: idle, absoluteLifetimeSeconds: absolute } = ctx.options;
  return {
    sessionTtlMs: ctx.options.refreshTokenTtlSeconds * 1000,
    accessTokenTtlMs: ctx.options.accessTokenTtlSeconds * 1000,
    reuseIntervalMs: (ctx.options.refreshReuseIntervalSeconds ?? 0) * 1000,
    ...(idle !== undefined && absolute !== undefined
      ? { limits: { idleTimeoutMs: idle * 1000, absoluteLifetimeMs: absolute * 1000 } }
      : {}),
  };
}

/**
 * How long the store keeps a session created at `createdAt`, from `now`: `sessionTtlMs`, but never
 * more than one idle timeout past the session's absolute end. Past its end the record can do
 * nothing (the store answers `expired` and deletes it, lists leave it out); it is kept only so
 * that a late refresh reads `SESSION_EXPIRED` rather than `REFRESH_TOKEN_INVALID`.
 */
export function storeTtlMs(lifetimes: SessionLifetimes, createdAt: number, now: number): number {
  const { limits } = lifetimes;
  if (!limits) return lifetimes.sessionTtlMs;
  const keptUntil = createdAt + limits.absoluteLifetimeMs + limits.idleTimeoutMs;
  return Math.max(1, Math.min(lifetimes.sessionTtlMs, keptUntil - now));
}

/**
 * How long an access token issued at `now` for a session created at `createdAt` stays on the
 * allowlist: the access token's lifetime, but never past the session's idle end (one idle
 * timeout from now) nor its absolute end.
 */
export function allowlistTtlMs(lifetimes: SessionLifetimes, createdAt: number, now: number): number {
  const { limits } = lifetimes;
  if (!limits) return lifetimes.accessTokenTtlMs;
  const absoluteEnd = createdAt + limits.absoluteLifetimeMs;
  return Math.max(1, Math.min(lifetimes.accessTokenTtlMs, limits.idleTimeoutMs, absoluteEnd - now));
}

/**
 * The whole seconds an access token issued at `now` for `session` lives: the access token's
 * lifetime, but its `exp` never past the session's idle end (one idle timeout after its latest
 * activity) nor its absolute end, so the client refreshes before the server would refuse it.
 * Rounded down: `exp` (whole seconds from `iat`, itself rounded down) is never past either end.
 */
export function accessTokenTtlSeconds(
  lifetimes: SessionLifetimes,
  session: Pick<SessionRecord, "createdAt" | "lastActiveAt">,
  now: number,
): number {
  const { limits } = lifetimes;
  const ms = limits
    ? Math.min(
        lifetimes.accessTokenTtlMs,
        session.lastActiveAt + limits.idleTimeoutMs - now,
        session.createdAt + limits.absoluteLifetimeMs - now,
      )
    : lifetimes.accessTokenTtlMs;
  return Math.max(1, Math.floor(ms / 1000));
}

/** Whether `session` has ended at `now` by `limits` (on the core's clock, from the record's own times). */
export function isSessionPastLimits(session: SessionRecord, now: number, limits: SessionLimits | undefined) {
  return limits !== undefined && isPastLimits(session.createdAt, session.lastActiveAt, now, limits);
}

/**
 * How far past its limits (on the core's clock) a session that a store rotated must be before the
 * core ends it itself. The shipped stores decide atomically (`expired`); this check is for a store
 * that ignores `limits`, and the slack keeps it from overruling one that decided on a clock read a
 * moment later than the core's.
 */
const FALLBACK_SLACK_MS = 1_000;

/** The `jti` of a new access token of `sessionId`: the allowlist's own, or 128 random bits. */
export function newAccessTokenId(deps: Pick<SessionLifecycleDeps, "allowlist">, sessionId: string): string {
  return deps.allowlist.createAccessTokenId?.(sessionId) ?? randomId();
}

/** Takes `jtis` off the allowlist (none: no call). */
async function revoke(deps: SessionLifecycleDeps, jtis: string[]): Promise<void> {
  if (jtis.length === 0) return;
  await guardPort("DATABASE_FAILURE", () => deps.allowlist.revokeAccessTokens(jtis));
}

/** A sign-in's end, written with its session where the stores can (`storeNewSession`). */
export interface SignInRecord {
  /** The hash the password was checked against, for a password sign-in; undefined otherwise. */
  passwordHash: string | undefined;
  /**
   * The sign-in's throttle keys, cleared in the same write (`JointStores`' `clear`). Given only
   * when `joint.allowAccessTokenWithSessionAndRecordSignIn` exists and works on the throttle's store.
   */
  clear?: CooldownKeys | undefined;
}

/**
 * Stores a new session: its access token's `jti` is allowed first, then the session is created.
 * A failure (or a crash) between the two leaves an allowed `jti` of a token never handed out.
 * With `joint.allowAccessTokenWithSession` (stores kept side by side, given so by the host), both
 * are one write instead, which stores both or neither. Given `signIn` and a joint
 * `allowAccessTokenWithSessionAndRecordSignIn`, that one write also reads the user and records
 * the sign-in (`recordSignInIfUnchanged`): resolves `{ read }`, the user as read (null: gone).
 * Otherwise resolves null, and the caller reads the user itself.
 */
export async function storeNewSession(
  deps: SessionLifecycleDeps,
  record: SessionRecord,
  lifetimes: SessionLifetimes,
  signIn?: SignInRecord,
): Promise<{ read: UserRecord | null } | null> {
  const entry = { userId: record.userId, sessionId: record.id };
  const now = record.createdAt;
  const allowTtlMs = allowlistTtlMs(lifetimes, now, now);
  const sessionTtlMs = storeTtlMs(lifetimes, now, now);
  const { allowlist, sessions, joint } = deps;
  const withSignIn = joint?.allowAccessTokenWithSessionAndRecordSignIn;
  if (signIn && withSignIn) {
    const read = await guardPort("DATABASE_FAILURE", () =>
      withSignIn.call(
        joint,
        record.accessTokenJti,
        entry,
        allowTtlMs,
        record,
        sessionTtlMs,
        signIn.passwordHash,
        signIn.clear,
      ),
    );
    return { read };
  }
  // One write when the host gave a joint write (store-sql on PostgreSQL, store-redis); else two.
  const sameStores = jointOnTheseStores(deps);
  const jointWrite = sameStores?.allowAccessTokenWithSession;
  if (jointWrite) {
    await guardPort("DATABASE_FAILURE", () =>
      jointWrite.call(sameStores, record.accessTokenJti, entry, allowTtlMs, record, sessionTtlMs),
    );
    return null;
  }
  await guardPort("DATABASE_FAILURE", () =>
    allowlist.allowAccessToken(record.accessTokenJti, entry, allowTtlMs),
  );
  await guardPort("DATABASE_FAILURE", () => sessions.createSession(record, sessionTtlMs));
  return null;
}

/**
 * Rotates a session's refresh token. The session is read (for its user), `next.accessTokenJti`
 * is allowed, and, when the presented hash is the current one, the old `jti` is revoked; then
 * the store compares and sets. `reused` (the store deleted the session) revokes the session's
 * current `jti` and the new one; `invalid` and `current` (the parent within the reuse interval:
 * the session keeps its current `jti`, which the caller re-signs) revoke the new one (and
 * `rotated` the old one, had it not been current when read). Revoking the old `jti` before the rotation rather than after it
 * means a failure or crash between the two leaves the client with a refresh token that still
 * works and an access token that no longer does (a retry recovers), never an old access token
 * alive beside a rotated session. `expired` (the store found the session past its limits and
 * deleted it) revokes the session's `jti` and the new one. With
 * `joint.rotateRefreshTokenWithAccessToken` (on these stores: `jointOnTheseStores`), the writes
 * after the read are one atomic step with the same outcome.
 */
export async function rotateSession(
  deps: SessionLifecycleDeps,
  sessionId: string,
  presentedHash: string,
  next: SessionRotation,
  lifetimes: SessionLifetimes,
): Promise<RotationResult> {
  const before = await guardPort("DATABASE_FAILURE", () => deps.sessions.getSession(sessionId));
  if (!before) return { status: "invalid" };
  const entry = { userId: before.userId, sessionId };
  const now = next.lastActiveAt;
  const access = { entry, ttlMs: allowlistTtlMs(lifetimes, before.createdAt, now) };
  const ttlMs = storeTtlMs(lifetimes, before.createdAt, now);
  const wasCurrent = before.refreshTokenHash === presentedHash;
  const joint = jointOnTheseStores(deps);
  const jointRotate = joint?.rotateRefreshTokenWithAccessToken;
  const result =
    joint && jointRotate
      ? await guardPort("DATABASE_FAILURE", () =>
          jointRotate.call(
            joint,
            sessionId,
            presentedHash,
            next,
            ttlMs,
            lifetimes.reuseIntervalMs,
            lifetimes.limits,
            access,
          ),
        )
      : await rotateInSteps(deps, before, presentedHash, next, ttlMs, lifetimes, access);
  if (result.status === "rotated" && wasCurrent && rotatedPastLimits(before, now, lifetimes.limits)) {
    await endSession(deps, sessionId, result.session);
    return { status: "expired", session: before };
  }
  return result;
}

/**
 * `deps.joint` when its session writes would land in the configured stores: the `sessions` and
 * `allowlist` it names, if it names them, are those themselves. Otherwise (a host wrapped or
 * replaced one, and kept the joint of the package's stores) undefined: the separate calls.
 */
function jointOnTheseStores(deps: SessionLifecycleDeps): JointStores | undefined {
  const { joint } = deps;
  if (!joint) return undefined;
  const same =
    (joint.sessions ?? deps.sessions) === deps.sessions &&
    (joint.allowlist ?? deps.allowlist) === deps.allowlist;
  return same ? joint : undefined;
}

/** `rotateSession`'s writes as separate calls on the two ports, in the fail-safe order. */
async function rotateInSteps(
  deps: SessionLifecycleDeps,
  before: SessionRecord,
  presentedHash: string,
  next: SessionRotation,
  ttlMs: number,
  lifetimes: SessionLifetimes,
  access: { entry: AllowlistEntry; ttlMs: number },
): Promise<RotationResult> {
  await guardPort("DATABASE_FAILURE", () =>
    deps.allowlist.allowAccessToken(next.accessTokenJti, access.entry, access.ttlMs),
  );
  const wasCurrent = before.refreshTokenHash === presentedHash;
  if (wasCurrent) await revoke(deps, [before.accessTokenJti]);
  const result = await guardPort("DATABASE_FAILURE", () =>
    deps.sessions.rotateRefreshToken(
      before.id,
      presentedHash,
      next,
      ttlMs,
      lifetimes.reuseIntervalMs,
      lifetimes.limits,
    ),
  );
  if (result.status === "rotated" && !wasCurrent) await revoke(deps, [before.accessTokenJti]);
  else if (result.status === "reused" || result.status === "expired")
    await revoke(deps, [result.session.accessTokenJti, next.accessTokenJti]);
  else if (result.status === "invalid" || result.status === "current")
    await revoke(deps, [next.accessTokenJti]);
  return result;
}

/**
 * Whether `before`, the record a rotation replaced (read just before it, with the hash that
 * rotated: no other rotation came between), was past `limits` by more than the slack at `now`.
 */
function rotatedPastLimits(before: SessionRecord, now: number, limits: SessionLimits | undefined): boolean {
  if (!limits) return false;
  const slack = FALLBACK_SLACK_MS;
  return isPastLimits(before.createdAt, before.lastActiveAt, now, {
    idleTimeoutMs: limits.idleTimeoutMs + slack,
    absoluteLifetimeMs: limits.absoluteLifetimeMs + slack,
  });
}

/**
 * Ends one session: it is read (unless `read` is the record just read), its `jti` revoked, the
 * session deleted, then the deleted record's `jti` revoked too when a rotation changed it in
 * between. Returns the deleted record, or null when the session was absent.
 */
export async function endSession(
  deps: SessionLifecycleDeps,
  sessionId: string,
  read?: SessionRecord,
): Promise<SessionRecord | null> {
  const session = read ?? (await guardPort("DATABASE_FAILURE", () => deps.sessions.getSession(sessionId)));
  if (!session) return null;
  await revoke(deps, [session.accessTokenJti]);
  const deleted = await guardPort("DATABASE_FAILURE", () => deps.sessions.deleteSession(sessionId));
  if (deleted && deleted.accessTokenJti !== session.accessTokenJti)
    await revoke(deps, [deleted.accessTokenJti]);
  return deleted;
}

/**
 * Ends every session of the user except `exceptSessionId`: they are listed, their `jti`s
 * revoked, the sessions deleted, then the `jti`s of deleted records not yet revoked (a session
 * created or rotated in between) revoked too. Returns the deleted records.
 */
export async function endUserSessions(
  deps: SessionLifecycleDeps,
  userId: string,
  exceptSessionId?: string,
): Promise<SessionRecord[]> {
  const listed = await guardPort("DATABASE_FAILURE", () => deps.sessions.listSessions(userId));
  const revoked = new Set(listed.filter((s) => s.id !== exceptSessionId).map((s) => s.accessTokenJti));
  await revoke(deps, [...revoked]);
  const deleted = await guardPort("DATABASE_FAILURE", () =>
    deps.sessions.deleteUserSessions(userId, exceptSessionId),
  );
  await revoke(
    deps,
    deleted.map((s) => s.accessTokenJti).filter((jti) => !revoked.has(jti)),
  );
  return deleted;
}

/**
 * The user's sessions that still live on the core's clock (not past the idle timeout or the
 * absolute lifetime), most recently active first: what `GET /sessions`, the account export and the
 * back office's user detail list.
 */
export async function liveSessions(
  ctx: { sessions: SessionStore; clock: Clock; options: LifetimeOptions },
  userId: string,
): Promise<SessionRecord[]> {
  const records = await guardPort("DATABASE_FAILURE", () => ctx.sessions.listSessions(userId));
  const { limits } = sessionLifetimes(ctx);
  const now = ctx.clock.now();
  return records
    .filter((session) => !isSessionPastLimits(session, now, limits))
    .sort((a, b) => b.lastActiveAt - a.lastActiveAt || b.createdAt - a.createdAt);
}

/** A session as `GET /sessions` shows it; `current` marks the caller's. */
export function sessionInfo(session: SessionRecord, currentSessionId: string | undefined): SessionInfo {
  return {
    id: session.id,
    browser: session.browser,
    os: session.os,
    ip: session.ip,
    createdAt: new Date(session.createdAt).toISOString(),
    lastActiveAt: new Date(session.lastActiveAt).toISOString(),
    current: session.id === currentSessionId,
  };
}
