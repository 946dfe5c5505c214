import { type Clock, type SingleUseTokenStore, systemClock, type TokenRecord } from "@portcullis/core";
import { clonePlain } from "./clone.js";
import { ExpiringMap, type Sweepable } from "./expiring-map.js";
import { OwnerIndex } from "./owner-index.js";

export type MemorySingleUseTokenStore = SingleUseTokenStore & Sweepable;

const tokenKey = (purpose: string, hash: string) => `${purpose}\u0000${hash}`;
const tokenOwner = (purpose: string, userId: string) => `${purpose}\u0000${userId}`;

/**
 * Single-use tokens in memory, keyed by purpose and hash and indexed by purpose and user; claims
 * beside them. Every check-and-set completes before any await, so consuming and claiming are
 * atomic within the process.
 */
export function createMemorySingleUseTokenStore(options: { clock?: Clock } = {}): MemorySingleUseTokenStore {
  const clock = options.clock ?? systemClock;
  const tokens = new ExpiringMap<TokenRecord>(clock);
  const claims = new ExpiringMap<true>(clock);
  const tokensByUser = new OwnerIndex();
  const removeToken = (key: string): TokenRecord | null => {
    const token = tokens.get(key);
    tokens.delete(key);
    claims.delete(key);
    if (!token) return null;
    tokensByUser.remove(tokenOwner(token.purpose, token.userId), key);
    return token;
  };

  return {
    async saveToken(token, ttlMs, saveOptions) {
      const owner = tokenOwner(token.purpose, token.userId);
      if (saveOptions?.replaceOthers) {
        for (const key of tokensByUser.keys(owner)) removeToken(key);
      }
      const key = tokenKey(token.purpose, token.tokenHash);
      removeToken(key);
      tokens.set(key, clonePlain(token), ttlMs);
      tokensByUser.add(owner, key);
    },
    async consumeToken(purpose, tokenHash) {
      const token = removeToken(tokenKey(purpose, tokenHash));
      return token ? clonePlain(token) : null;
    },
    async claimToken(purpose, tokenHash, leaseMs) {
      const key = tokenKey(purpose, tokenHash);
      const token = tokens.get(key);
      if (!token || claims.get(key)) return null;
      claims.set(key, true, leaseMs);
      return clonePlain(token);
    },
    async releaseToken(purpose, tokenHash) {
      claims.delete(tokenKey(purpose, tokenHash));
    },
    async listUserTokens(userId, purpose) {
      const listed: TokenRecord[] = [];
      for (const key of tokensByUser.keys(tokenOwner(purpose, userId))) {
        const token = tokens.get(key);
        if (token) listed.push(clonePlain(token));
      }
      return listed;
    },
    async deleteUserTokens(userId, purpose) {
      let deleted = 0;
      for (const key of tokensByUser.keys(tokenOwner(purpose, userId))) {
        if (removeToken(key)) deleted += 1;
      }
      tokensByUser.deleteOwner(tokenOwner(purpose, userId));
      return deleted;
    },
    sweep() {
      const removed = tokens.sweep() + claims.sweep();
      tokensByUser.prune((key) => tokens.get(key) !== undefined);
      return removed;
    },
    size: () => tokens.size + claims.size + tokensByUser.size,
  };
}
