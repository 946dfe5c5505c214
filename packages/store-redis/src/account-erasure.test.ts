import { once } from "node:events";
import { createMemoryStores } from "@portcullis/store-memory";
import { entriesNaming, fillAndEraseAccount } from "@portcullis/testing";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisClient } from "./client.js";
import { createRedisStores } from "./redis-stores.js";
import { deleteKeys, testPrefix, useRedis } from "./test-redis.js";

// After DELETE /me (auth.account.delete) no key under the stores' prefix, and no value of one,
// names the user: SCAN over every key, each read whole by its type.
let redis: Awaited<ReturnType<typeof useRedis>>;
let client: Redis;
const prefix = testPrefix();
beforeAll(async () => {
  redis = await useRedis();
  client = createRedisClient(redis.url, { commandTimeout: 2_000 });
  await once(client, "ready");
});
afterAll(async () => {
  await deleteKeys(client, prefix);
  client.disconnect();
  await redis.stop();
});

/** Every key under `prefix` and its whole value, one string each. */
async function dump(match: string): Promise<string[]> {
  const entries: string[] = [];
  let cursor = "0";
  do {
    const [next, keys] = await client.scan(cursor, "MATCH", `${match}*`, "COUNT", 500);
    cursor = next;
    for (const key of keys) {
      const type = await client.type(key);
      const value =
        type === "string"
          ? await client.get(key)
          : type === "hash"
            ? await client.hgetall(key)
            : type === "set"
              ? await client.smembers(key)
              : type === "zset"
                ? await client.zrange(key, "0", "-1", "WITHSCORES")
                : type === "list"
                  ? await client.lrange(key, 0, -1)
                  : `(${type})`;
      entries.push(`${key} => ${JSON.stringify(value)}`);
    }
  } while (cursor !== "0");
  return entries;
}

describe("account erasure: redis", () => {
  it("account.delete - no key or value under the prefix names the user; the other account's are there", async () => {
    const memory = createMemoryStores({ sweepIntervalMs: 0 });
    const stores = { users: memory.users, ...createRedisStores({ client, keyPrefix: prefix }) };
    const { erased, kept } = await fillAndEraseAccount(stores);
    const entries = await dump(prefix);
    expect(entriesNaming(entries, erased.names)).toEqual([]);
    expect(entriesNaming(entries, kept.names).length).toBeGreaterThan(0);
    memory.close();
  });
});
