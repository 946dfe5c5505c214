import type { JointStores } from "@portcullis/core";
import { type MemoryAccessTokenAllowlist, memoryAllowlistSteps } from "./access-token-allowlist.js";
import { type MemorySessionStore, memorySessionSteps } from "./session-store.js";

/**
 * The memory stores' `joint` (`createMemoryStores().joint`): a new session with its access
 * token's entry, and a refresh's rotation with its allowlist writes, each as one step. The steps
 * of both stores run with no await between, so no other request sees a moment between them.
 */
export function createMemoryJointStores(
  sessions: MemorySessionStore,
  allowlist: MemoryAccessTokenAllowlist,
): JointStores {
  const sessionSteps = memorySessionSteps(sessions);
  const allowlistSteps = memoryAllowlistSteps(allowlist);
  if (!sessionSteps || !allowlistSteps)
    throw new TypeError(
      "createMemoryJointStores takes the stores of createMemorySessionStore and createMemoryAccessTokenAllowlist",
    );
  return {
    sessions,
    allowlist,
    async allowAccessTokenWithSession(jti, entry, ttlMs, session, sessionTtlMs) {
      allowlistSteps.allow(jti, entry, ttlMs);
      sessionSteps.create(session, sessionTtlMs);
    },
    async rotateRefreshTokenWithAccessToken(sessionId, hash, next, ttlMs, intervalMs, limits, access) {
      const { result, readJti } = sessionSteps.rotate(sessionId, hash, next, ttlMs, intervalMs ?? 0, limits);
      if (result.status === "rotated") {
        allowlistSteps.allow(next.accessTokenJti, access.entry, access.ttlMs);
        if (readJti !== undefined && readJti !== next.accessTokenJti) allowlistSteps.revoke(readJti);
      } else if ((result.status === "reused" || result.status === "expired") && readJti !== undefined)
        allowlistSteps.revoke(readJti);
      return result;
    },
  };
}
