import { type AccessTokenAllowlist, type AllowlistEntry, type Clock, systemClock } from "@portcullis/core";
import { ExpiringMap, type Sweepable } from "./expiring-map.js";

export type MemoryAccessTokenAllowlist = AccessTokenAllowlist & Sweepable;

/** A memory allowlist's writes as plain functions, for the memory stores' joint writes. */
export interface MemoryAllowlistSteps {
  allow(jti: string, entry: AllowlistEntry, ttlMs: number): void;
  revoke(jti: string): void;
}

const STEPS = new WeakMap<AccessTokenAllowlist, MemoryAllowlistSteps>();

/** The steps of an allowlist made by `createMemoryAccessTokenAllowlist`; undefined for any other. */
export const memoryAllowlistSteps = (store: AccessTokenAllowlist): MemoryAllowlistSteps | undefined =>
  STEPS.get(store);

/** The access-token allowlist in memory: one map from `jti` to its entry, each expiring on its own. */
export function createMemoryAccessTokenAllowlist(
  options: { clock?: Clock } = {},
): MemoryAccessTokenAllowlist {
  const allowlist = new ExpiringMap<AllowlistEntry>(options.clock ?? systemClock);
  const steps: MemoryAllowlistSteps = {
    allow: (jti, entry, ttlMs) =>
      allowlist.set(jti, { userId: entry.userId, sessionId: entry.sessionId }, ttlMs),
    revoke: (jti) => allowlist.delete(jti),
  };
  const store: MemoryAccessTokenAllowlist = {
    async allowAccessToken(jti, entry, ttlMs) {
      steps.allow(jti, entry, ttlMs);
    },
    async findAllowedAccessToken(jti) {
      const entry = allowlist.get(jti);
      return entry ? { ...entry } : null;
    },
    async revokeAccessTokens(jtis) {
      for (const jti of jtis) steps.revoke(jti);
    },
    sweep: () => allowlist.sweep(),
    size: () => allowlist.size,
  };
  STEPS.set(store, steps);
  return store;
}
