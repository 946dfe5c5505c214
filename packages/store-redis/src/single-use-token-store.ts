import type { SingleUseTokenStore, TokenRecord } from "@portcullis/core";
import type { Bounded, RedisKeys, ScriptedRedis } from "./redis-stores.js";

/** Single-use tokens, each under its own key, listed in a per-user, per-purpose index set. */
export function redisSingleUseTokenStore(
  redis: ScriptedRedis,
  bounded: Bounded,
  { tokenKey, tokenIndex, tokenClaim }: RedisKeys,
): SingleUseTokenStore {
  /**
   * Deletes every token an index names, each with its claim (a token key and its claim share a
   * slot; tokens live in their own slots: one command each), so no claim outlives its token.
   */
  async function deleteIndexedTokens(index: string): Promise<number> {
    const keys = await bounded(redis.smembers(index));
    const deleted = await Promise.all(
      keys.map(async (key) => {
        const [token] = await Promise.all([bounded(redis.del(key)), bounded(redis.del(`${key}:claim`))]);
        return token;
      }),
    );
    await bounded(redis.del(index));
    return deleted.reduce((sum, count) => sum + count, 0);
  }

  return {
    async saveToken(token, ttlMs, saveOptions) {
      const index = tokenIndex(token.userId, token.purpose);
      if (saveOptions?.replaceOthers) await deleteIndexedTokens(index);
      const key = tokenKey(token.purpose, token.tokenHash);
      const ttl = Math.max(1, Math.ceil(ttlMs));
      await Promise.all([
        bounded(redis.set(key, JSON.stringify(token), "PX", ttl)),
        bounded(redis.del(tokenClaim(token.purpose, token.tokenHash))),
      ]);
      // The index lives as long as its longest-lived token: a shorter-lived newer token never shortens it.
      await bounded(redis.portcullisIndexToken(index, key, ttl));
    },
    async consumeToken(purpose, tokenHash) {
      const [raw] = await Promise.all([
        bounded(redis.getdel(tokenKey(purpose, tokenHash))),
        bounded(redis.del(tokenClaim(purpose, tokenHash))),
      ]);
      if (!raw) return null;
      const token = JSON.parse(raw) as TokenRecord;
      await bounded(redis.srem(tokenIndex(token.userId, token.purpose), tokenKey(purpose, tokenHash)));
      return token;
    },
    async claimToken(purpose, tokenHash, leaseMs) {
      const raw = await bounded(
        redis.portcullisClaimToken(
          tokenKey(purpose, tokenHash),
          tokenClaim(purpose, tokenHash),
          Math.max(1, Math.ceil(leaseMs)),
        ),
      );
      return raw ? (JSON.parse(raw) as TokenRecord) : null;
    },
    async releaseToken(purpose, tokenHash) {
      await bounded(redis.del(tokenClaim(purpose, tokenHash)));
    },
    async listUserTokens(userId, purpose) {
      const keys = await bounded(redis.smembers(tokenIndex(userId, purpose)));
      const raws = await Promise.all(keys.map((key) => bounded(redis.get(key))));
      return raws.flatMap((raw) => (raw ? [JSON.parse(raw) as TokenRecord] : []));
    },
    async deleteUserTokens(userId, purpose) {
      return deleteIndexedTokens(tokenIndex(userId, purpose));
    },
  };
}
