import { randomUUID } from "node:crypto";
import { once } from "node:events";
import {
  runAccessTokenAllowlistSuite,
  runActivityStoreSuite,
  runApiKeyStoreSuite,
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
  K extends "cooldowns" | "sessions" | "allowlist" | "singleUseTokens" | "activity" | "passkeys" | "apiKeys",
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
runAccessTokenAllowlistSuite({
  name: "redis",
  // With the sessions and joint of the same call: the suite checks the joint rotation too.
  create: () => {
    const keyPrefix = testPrefix();
    const { allowlist, sessions, joint } = createRedisStores({
      client,
      keyPrefix,
      operationTimeoutMs: 2_000,
    });
    return {
      store: allowlist,
      sessions,
      joint,
      now: () => serverTime(client),
      cleanup: () => deleteKeys(client, keyPrefix),
    };
  },
});
runSingleUseTokenStoreSuite({ name: "redis", create: fixture("singleUseTokens") });
runPasskeyStoreSuite({ name: "redis", create: fixture("passkeys") });
runApiKeyStoreSuite({ name: "redis", create: fixture("apiKeys") });

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

describe("redis API keys", () => {
  /** The names of the commands the shared client sends until `stop`, and their replies. */
  const recordCommands = () => {
    const commands: string[] = [];
    const replies: unknown[] = [];
    const { sendCommand } = client;
    client.sendCommand = ((...args: Parameters<Redis["sendCommand"]>) => {
      commands.push(args[0].name);
      void args[0].promise.then((reply) => replies.push(reply));
      return sendCommand.apply(client, args);
    }) as Redis["sendCommand"];
    return { commands, replies, stop: () => (client.sendCommand = sendCommand) };
  };
  const record = (userId: string, organizationId: string | null) => ({
    id: `id-${randomUUID()}`,
    lookupId: randomUUID().replaceAll("-", "").slice(0, 12),
    keyHash: "hash",
    name: "CI",
    start: "pc_12345678",
    userId,
    organizationId,
    permissions: organizationId === null ? null : ["project:read"],
    createdAt: 1_700_000_000_000,
    expiresAt: null,
    lastUsedAt: null,
  });

  it("useApiKey is one command (a script: the counter's INCR and the key's HGETALL), found or not", async () => {
    const keyPrefix = testPrefix();
    const { apiKeys } = createRedisStores({ client, keyPrefix, operationTimeoutMs: 2_000 });
    const { commands, stop } = recordCommands();
    try {
      const key = record("user-1", null);
      await apiKeys.createApiKey(key, { maxPerOwner: 100 });
      commands.length = 0;
      expect(await apiKeys.useApiKey(key.lookupId, 60_000, 1)).toMatchObject({ record: key, count: 1 });
      expect(await apiKeys.useApiKey("absent000000", 60_000, 1)).toMatchObject({ record: null, count: 1 });
      expect(commands).toEqual(["evalsha", "evalsha"]);
    } finally {
      stop();
      await deleteKeys(client, keyPrefix);
    }
  });

  it("useApiKey - a read of a lookupId without a key answers as many fields as a stored key's (the same time to send and parse)", async () => {
    const keyPrefix = testPrefix();
    const { apiKeys } = createRedisStores({ client, keyPrefix, operationTimeoutMs: 2_000 });
    const { commands, replies, stop } = recordCommands();
    try {
      const key = { ...record("user-1", null), lastUsedAt: 1_700_000_000_000 }; // a user's key once used
      await apiKeys.createApiKey(key, { maxPerOwner: 100 });
      commands.length = 0;
      replies.length = 0;
      for (const uses of [0, 1]) {
        expect(await apiKeys.useApiKey(key.lookupId, 60_000, uses)).toMatchObject({ record: key });
        expect(await apiKeys.useApiKey("absent000000", 60_000, uses)).toMatchObject({ record: null });
      }
      expect(commands).toEqual(["evalsha", "evalsha", "evalsha", "evalsha"]);
      const [stored, absent, storedCounted, absentCounted] = replies as [
        string[][],
        string[][],
        [string[]][],
        [string[]][],
      ];
      expect(absent[0]).toHaveLength(stored[0]?.length ?? -1);
      expect(absentCounted[0]?.[0]).toHaveLength(storedCounted[0]?.[0]?.length ?? -1);
      expect(await apiKeys.findApiKeyByLookupId("absent000000")).toBeNull();
    } finally {
      stop();
      await deleteKeys(client, keyPrefix);
    }
  });

  it("useApiKey - 30 requests of 3 keys and an unknown lookupId in one turn: one script, counts 1..n per lookupId", async () => {
    const keyPrefix = testPrefix();
    const { apiKeys } = createRedisStores({ client, keyPrefix, operationTimeoutMs: 2_000 });
    const { commands, stop } = recordCommands();
    try {
      const keys = [record("user-1", null), record("user-2", null), record("user-3", "org-1")];
      for (const key of keys) await apiKeys.createApiKey(key, { maxPerOwner: 100 });
      const lookupIds = [...keys.map((key) => key.lookupId), "absent000000"];
      commands.length = 0;
      const calls = Array.from({ length: 30 }, (_, i) => lookupIds[i % 4] as string);
      const uses = await Promise.all(calls.map((lookupId) => apiKeys.useApiKey(lookupId, 60_000, 1)));
      expect(commands).toEqual(["evalsha"]);
      for (const [index, lookupId] of lookupIds.entries()) {
        const mine = uses.filter((_, i) => calls[i] === lookupId);
        expect(mine.map((use) => use.count)).toEqual(Array.from({ length: mine.length }, (_, i) => i + 1));
        for (const use of mine) expect(use.record).toEqual(keys[index] ?? null);
      }
    } finally {
      stop();
      await deleteKeys(client, keyPrefix);
    }
  });

  it("deleting keys, one by one or a user's or an organization's, leaves no Redis key behind", async () => {
    const keyPrefix = testPrefix();
    const { apiKeys } = createRedisStores({ client, keyPrefix, operationTimeoutMs: 2_000 });
    try {
      const keys = [record("user-1", null), record("user-1", null), record("user-1", "org-1")];
      const other = record("user-2", "org-1");
      for (const key of [...keys, other]) await apiKeys.createApiKey(key, { maxPerOwner: 100 });
      await apiKeys.touchApiKey(other.id, 1_700_000_100_000, 60_000);
      expect(await apiKeys.deleteApiKey(keys[0]?.id ?? "")).toEqual(keys[0]);
      expect(await apiKeys.deleteUserApiKeys("user-1")).toBe(1);
      expect(await apiKeys.deleteOrganizationApiKeys("org-1")).toBe(2);
      expect(await client.keys(`${keyPrefix}*`)).toEqual([]);
    } finally {
      await deleteKeys(client, keyPrefix);
    }
  });
});
