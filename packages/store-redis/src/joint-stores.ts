import {
  type AccessTokenAllowlist,
  type AllowlistEntry,
  type JointStores,
  REMEMBERED_REFRESH_TOKEN_HASHES,
  type RotationResult,
  type SessionLimits,
  type SessionRecord,
  type SessionRotation,
  type SessionStore,
} from "@portcullis/core";
import type { Bounded, Deadline, RedisKeys, ScriptedRedis } from "./redis-stores.js";

/**
 * ARGV[1]-ARGV[8] of the rotation scripts (scripts.ts, `rotate_session`): the presented hash, the
 * next fields, the session's ttl, the hashes remembered, the deadline, the reuse interval and the
 * limits (0: none).
 */
export function rotationArgs(
  presentedHash: string,
  next: SessionRotation,
  ttlMs: number,
  by: number,
  intervalMs: number | undefined,
  limits: SessionLimits | undefined,
): (string | number)[] {
  return [
    presentedHash,
    JSON.stringify(next),
    Math.ceil(ttlMs),
    REMEMBERED_REFRESH_TOKEN_HASHES,
    by,
    Math.max(0, Math.floor(intervalMs ?? 0)),
    limits ? Math.max(0, Math.floor(limits.idleTimeoutMs)) : 0,
    limits ? Math.max(1, Math.floor(limits.absoluteLifetimeMs)) : 0,
  ];
}

/** A session as the scripts store it: the record, and no earlier refresh-token hash yet. */
export const storedSessionJson = (session: SessionRecord) =>
  JSON.stringify({ record: session, previousHashes: [] });

/** An allowlist entry as stored: its two fields, nothing else the caller's object carries. */
export const entryJson = (entry: AllowlistEntry) =>
  JSON.stringify({ userId: entry.userId, sessionId: entry.sessionId });

/** What a rotation script answered (`{status, record JSON}`), as `rotateRefreshToken` resolves it; `late` throws. */
export function rotationResult(status: string, json: string | undefined): RotationResult {
  if (status === "late") throw new Error("Redis ran the rotation past its deadline: nothing was changed");
  if (status === "rotated" || status === "reused" || status === "current" || status === "expired")
    return { status, session: JSON.parse(json ?? "{}") as SessionRecord };
  return { status: "invalid" };
}

/**
 * The Redis stores' `joint` (`createRedisStores().joint`), each write one script on the session's
 * slot (ids minted by `sessions` and `allowlist` carry its user's tag): a new session with its
 * access token's entry (one round trip instead of two), and a refresh's rotation with its
 * allowlist writes (two per refresh instead of four: the core's read, then this).
 */
export function redisJointStores(
  redis: ScriptedRedis,
  bounded: Bounded,
  keys: RedisKeys,
  deadline: Deadline,
  stores: { sessions: SessionStore; allowlist: AccessTokenAllowlist },
): JointStores {
  const { allowlist } = stores;
  return {
    ...stores,
    async allowAccessTokenWithSession(jti, entry, ttlMs, session, sessionTtlMs) {
      const tag = keys.userTag(session.userId);
      if (keys.tagOf(session.id) !== tag || keys.tagOf(jti) !== tag)
        throw new Error(
          "Redis needs ids from createSessionId and createAccessTokenId (they carry the user's slot tag)",
        );
      const by = await deadline();
      const created = await bounded(
        redis.portcullisCreateSessionWithAccessToken(
          keys.sessionKey(session.id),
          keys.sessionIndex(session.userId),
          keys.allowlistKey(jti),
          storedSessionJson(session),
          session.id,
          Math.ceil(sessionTtlMs),
          by,
          entryJson(entry),
          Math.max(1, Math.ceil(ttlMs)),
        ),
      );
      if (created !== 1)
        throw new Error("Redis ran the session's write past its deadline: nothing was written");
    },
    async rotateRefreshTokenWithAccessToken(
      sessionId,
      presentedHash,
      next,
      ttlMs,
      intervalMs,
      limits,
      access,
    ) {
      const tag = keys.tagOf(sessionId);
      if (keys.tagOf(next.accessTokenJti) !== tag)
        throw new Error(
          "Redis rotates a session with a jti from createAccessTokenId (it carries the session's tag)",
        );
      const by = await deadline();
      const [status, json, elsewhere] = await bounded(
        redis.portcullisRotateWithAccessToken(
          keys.sessionKey(sessionId),
          keys.indexOfSession(sessionId),
          keys.allowlistKey(next.accessTokenJti),
          ...rotationArgs(presentedHash, next, ttlMs, by, intervalMs, limits),
          entryJson(access.entry),
          Math.max(1, Math.ceil(access.ttlMs)),
          keys.allowlistSpace(tag),
          tag,
        ),
      );
      // A jti of another slot (not minted by this allowlist) is revoked after the script (a late
      // script answers none).
      if (elsewhere) await allowlist.revokeAccessTokens([elsewhere]);
      return rotationResult(status, json);
    },
  };
}
