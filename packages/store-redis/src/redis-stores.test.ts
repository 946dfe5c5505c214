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

describe("allowlist reads batched on Redis", () => {
  it("20 concurrent reads of live, revoked and unknown tokens: one MGET, each its own answer; a revoke is seen by the next read", async () => {
    const keyPrefix = testPrefix();
    const { allowlist } = createRedisStores({ client, keyPrefix, operationTimeoutMs: 2_000 });
    const commands: string[] = [];
    const { get, mget } = client;
    client.get = ((...args: Parameters<Redis["get"]>) => {
      commands.push("get");
      return get.apply(client, args);
    }) as Redis["get"];
    client.mget = ((...args: Parameters<Redis["mget"]>) => {
      commands.push(`mget ${args.length}`);
      return (mget as (...keys: unknown[]) => ReturnType<Redis["mget"]>).apply(client, args);
    }) as Redis["mget"];
    try {
      const jtis = Array.from({ length: 8 }, (_, i) => `live-${i}`);
      for (const [i, jti] of jtis.entries())
        await allowlist.allowAccessToken(jti, { userId: "u1", sessionId: `s${i}` }, 60_000);
      await allowlist.allowAccessToken("revoked", { userId: "u1", sessionId: "s-revoked" }, 60_000);
      await allowlist.revokeAccessTokens(["revoked"]);
      const asked = [...jtis, "revoked", "unknown", ...jtis.slice(0, 5), "unknown", "revoked", "live-7"];
      commands.length = 0;
      const answers = await Promise.all(asked.map((jti) => allowlist.findAllowedAccessToken(jti)));
      // One MGET of the distinct keys (8 live, revoked, unknown).
      expect(commands).toEqual(["mget 10"]);
      for (const [i, jti] of asked.entries()) {
        expect(answers[i], jti).toEqual(
          jti.startsWith("live-") ? { userId: "u1", sessionId: `s${jti.slice(5)}` } : null,
        );
      }
      await allowlist.revokeAccessTokens(["live-3"]);
      commands.length = 0;
      expect(await allowlist.findAllowedAccessToken("live-3")).toBeNull();
      expect(commands).toEqual(["get"]);
    } finally {
      client.get = get;
      client.mget = mget;
      await deleteKeys(client, keyPrefix);
    }
  });
});
