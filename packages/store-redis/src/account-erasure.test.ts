import { once } from "node:events";
import { createMemoryStores } from "@portcullis/store-memory";
import { entriesNaming, fillAndEraseAccount } from "@portcullis/testing";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisClient } from "./client.js";
import { createRedisStores } from "./redis-stores.js";
import { deleteKeys, testPrefix, useRedis } from "./test-redis.js";

// After DELETE /me (auth.account.delete) no key under the stores' prefix, and no value of one,
// names the user, but for the audit log's entries, which keep the account's id (not its address):
// SCAN over every key, each read whole by its type.
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
    const everything = await dump(prefix);
    // The audit log keeps what happened to the account, under its id, until its retention ends
    // (docs/audit-log.md, "Deleted accounts"): never its address or name.
    const audit = everything.filter((entry) => entry.startsWith(`${prefix}{audit}`));
    const entries = everything.filter((entry) => !entry.startsWith(`${prefix}{audit}`));
    expect(entriesNaming(entries, erased.names)).toEqual([]);
    expect(entriesNaming(entries, kept.names).length).toBeGreaterThan(0);
    expect(entriesNaming(audit, [erased.email, erased.requestedEmail])).toEqual([]);
    expect(entriesNaming(audit, [erased.userId]).some((entry) => entry.includes("user.deleted"))).toBe(true);
    memory.close();
  });
});
