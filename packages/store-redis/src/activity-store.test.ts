import type { ActivityRecord } from "@portcullis/core";
import { describe, expect, it } from "vitest";
import { createRedisStores } from "./redis-stores.js";
import { redisForFile, serverTime } from "./test-redis.js";

const file = redisForFile();

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
    const client = file.client;
    const keyPrefix = file.prefix();
    const { activity } = createRedisStores({ client, keyPrefix, activityCapPerUser: 5 });
    const now = await serverTime(client);
    await Promise.all(Array.from({ length: 30 }, (_, n) => activity.record(entry(n + 1, now + n), 60_000)));
    const kept = await activity.list("ada", { limit: 100 });
    expect(kept.map((one) => one.at)).toEqual([29, 28, 27, 26, 25].map((n) => now + n));
  });

  it("record - the user's set expires a retention after its latest write, on Redis's clock", async () => {
    const client = file.client;
    const keyPrefix = file.prefix();
    const { activity } = createRedisStores({ client, keyPrefix });
    await activity.record(entry(1, await serverTime(client)), 60_000);
    const [key] = await client.keys(`${keyPrefix}*`);
    const ttl = await client.pttl(key ?? "");
    expect(ttl).toBeGreaterThan(55_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });
});
