import { once } from "node:events";
import {
  runAccessTokenAllowlistSuite,
  runActivityStoreSuite,
  runCooldownStoreSuite,
  runPasskeyStoreSuite,
  runSessionStoreSuite,
  runSingleUseTokenStoreSuite,
} from "@portcullis/testing";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisClient } from "./client.js";
import { createRedisStores } from "./redis-stores.js";
import { deleteKeys, serverTime, testPrefix, useRedis } from "./test-redis.js";

let redis: Awaited<ReturnType<typeof useRedis>>;
let client: Redis;
beforeAll(async () => {
  redis = await useRedis();
  // Generous timeouts: the suite shares two cores with every other test file.
  client = createRedisClient(redis.url, { commandTimeout: 2_000 });
  await once(client, "ready");
});
afterAll(async () => {
  client.disconnect();
  await redis.stop();
});

function fixture<
  K extends "cooldowns" | "sessions" | "allowlist" | "singleUseTokens" | "activity" | "passkeys",
>(kind: K) {
  return () => {
    const keyPrefix = testPrefix();
    return {
      store: createRedisStores({ client, keyPrefix, operationTimeoutMs: 2_000 })[kind],
      now: () => serverTime(client),
      cleanup: () => deleteKeys(client, keyPrefix),
    };
  };
}

runCooldownStoreSuite({ name: "redis", create: fixture("cooldowns") });
runSessionStoreSuite({ name: "redis", create: fixture("sessions") });
runAccessTokenAllowlistSuite({ name: "redis", create: fixture("allowlist") });
runSingleUseTokenStoreSuite({ name: "redis", create: fixture("singleUseTokens") });
runPasskeyStoreSuite({ name: "redis", create: fixture("passkeys") });

describe("redis single-use tokens: claims", () => {
  it("deleteUserTokens deletes a claimed token's claim with it (a finished reset leaves no key behind)", async () => {
    const keyPrefix = testPrefix();
    const { singleUseTokens } = createRedisStores({ client, keyPrefix, operationTimeoutMs: 2_000 });
    try {
      const token = {
        tokenHash: "claimed-hash",
        purpose: "password-reset",
        userId: "user-1",
        expiresAt: Date.now() + 60_000,
        data: { email: "a@example.test" },
      };
      await singleUseTokens.saveToken(token, 60_000);
      expect(await singleUseTokens.claimToken?.(token.purpose, token.tokenHash, 60_000)).toEqual(token);
      expect((await client.keys(`${keyPrefix}*`)).filter((key) => key.endsWith(":claim"))).toHaveLength(1);
      expect(await singleUseTokens.deleteUserTokens(token.userId, token.purpose)).toBe(1);
      expect(await client.keys(`${keyPrefix}*`)).toEqual([]);
    } finally {
      await deleteKeys(client, keyPrefix);
    }
  });
});
runActivityStoreSuite({ name: "redis", create: fixture("activity") });
