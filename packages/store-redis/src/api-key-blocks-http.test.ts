import { once } from "node:events";
import type { Clock } from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import { runApiKeyBlocksSuite } from "@portcullis/testing";
import type { Redis } from "ioredis";
import { afterAll, beforeAll } from "vitest";
import { createRedisClient } from "./client.js";
import { createRedisStores } from "./redis-stores.js";
import { deleteKeys, testPrefix, useRedis } from "./test-redis.js";
import { startExpress } from "./test-servers.js";

// A key's requests counted in blocks on two instances over one Redis, each instance with a client
// of its own (its own connection), under one key prefix per test; users and organizations, the
// host's database, in memory shared by both.
let redis: Awaited<ReturnType<typeof useRedis>> | undefined;
const clients: Redis[] = [];
const prefixes: string[] = [];

beforeAll(async () => {
  redis = await useRedis();
});
afterAll(async () => {
  const [first] = clients;
  if (first) for (const prefix of prefixes) await deleteKeys(first, prefix);
  for (const client of clients) client.disconnect();
  await redis?.stop();
});

async function openClient(): Promise<Redis> {
  if (!redis) throw new Error("the Redis is found in beforeAll");
  const client = createRedisClient(redis.url, { commandTimeout: 5_000 });
  clients.push(client);
  await once(client, "ready");
  return client;
}

runApiKeyBlocksSuite({
  name: "express + redis",
  start: startExpress,
  async createInstanceStores(clock: Clock) {
    const memory = createMemoryStores({ clock });
    const keyPrefix = testPrefix();
    prefixes.push(keyPrefix);
    const instance = async () => ({
      users: memory.users,
      organizations: memory.organizations,
      // A bound above the default 1 s: a burst of 100 on a busy 2-core CI machine is load, not a fault.
      ...createRedisStores({ client: await openClient(), keyPrefix, operationTimeoutMs: 5_000 }),
    });
    return [await instance(), await instance()];
  },
});
