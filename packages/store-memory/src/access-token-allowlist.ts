import { type AccessTokenAllowlist, type AllowlistEntry, type Clock, systemClock } from "@portcullis/core";
import { ExpiringMap, type Sweepable } from "./expiring-map.js";

export type MemoryAccessTokenAllowlist = AccessTokenAllowlist & Sweepable;

/** The access-token allowlist in memory: one map from `jti` to its entry, each expiring on its own. */
export function createMemoryAccessTokenAllowlist(
  options: { clock?: Clock } = {},
): MemoryAccessTokenAllowlist {
  const allowlist = new ExpiringMap<AllowlistEntry>(options.clock ?? systemClock);
  return {
    async allowAccessToken(jti, entry, ttlMs) {
      allowlist.set(jti, { userId: entry.userId, sessionId: entry.sessionId }, ttlMs);
    },
    async findAllowedAccessToken(jti) {
      const entry = allowlist.get(jti);
      return entry ? { ...entry } : null;
    },
    async revokeAccessTokens(jtis) {
      for (const jti of jtis) allowlist.delete(jti);
    },
    sweep: () => allowlist.sweep(),
    size: () => allowlist.size,
  };
}
