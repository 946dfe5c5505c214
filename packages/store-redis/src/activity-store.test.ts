import { once } from "node:events";
import type { ActivityRecord } from "@portcullis/core";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisClient } from "./client.js";
import { createRedisStores } from "./redis-stores.js";
import { deleteKeys, serverTime, testPrefix, useRedis } from "./test-redis.js";

let redis: Awaited<ReturnType<typeof useRedis>>;
let client: Redis;
beforeAll(async () => {
  redis = await useRedis();
  client = createRedisClient(redis.url, { commandTimeout: 2_000 });
  await once(client, "ready");
});
afterAll(async () => {
  client.disconnect();
  await redis.stop();
});

const entry = (n: number, at: number): ActivityRecord => ({
  id: n.toString(16).padStart(24, "0"),
  userId: "ada",
  type: "login.succeeded",
  at,
  ip: null,
  browser: null,
  os: null,
  reason: "password",
});

describe("redis activity store", () => {
  it("record - keeps the newest activityCapPerUser entries, also under 30 concurrent writes", async () => {
    const keyPrefix = testPrefix();
    const { activity } = createRedisStores({ client, keyPrefix, activityCapPerUser: 5 });
    const now = await serverTime(client);
    await Promise.all(Array.from({ length: 30 }, (_, n) => activity.record(entry(n + 1, now + n), 60_000)));
    const kept = await activity.list("ada", { limit: 100 });
    expect(kept.map((one) => one.at)).toEqual([29, 28, 27, 26, 25].map((n) => now + n));
    await deleteKeys(client, keyPrefix);
  });

  it("record - the user's set expires a retention after its latest write, on Redis's clock", async () => {
    const keyPrefix = testPrefix();
    const { activity } = createRedisStores({ client, keyPrefix });
    await activity.record(entry(1, await serverTime(client)), 60_000);
    const [key] = await client.keys(`${keyPrefix}*`);
    const ttl = await client.pttl(key ?? "");
    expect(ttl).toBeGreaterThan(55_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    await deleteKeys(client, keyPrefix);
  });
});
