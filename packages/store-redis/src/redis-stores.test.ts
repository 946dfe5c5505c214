import { once } from "node:events";
import { runCooldownStoreSuite, runSessionStoreSuite } from "@portcullis/testing";
import type { Redis } from "ioredis";
import { afterAll, beforeAll } from "vitest";
import { createRedisClient } from "./client.js";
import { createRedisStores } from "./redis-stores.js";
import { deleteKeys, testPrefix, useRedis } from "./test-redis.js";

let redis: Awaited<ReturnType<typeof useRedis>>;
let client: Redis;
beforeAll(async () => {
  redis = await useRedis();
  client = createRedisClient(redis.url);
  await once(client, "ready");
});
afterAll(async () => {
  client.disconnect();
  await redis.stop();
});

function fixture<K extends "cooldowns" | "sessions">(kind: K) {
  return () => {
    const keyPrefix = testPrefix();
    return {
      store: createRedisStores({ client, keyPrefix })[kind],
      cleanup: () => deleteKeys(client, keyPrefix),
    };
  };
}

runCooldownStoreSuite({ name: "redis", create: fixture("cooldowns") });
runSessionStoreSuite({ name: "redis", create: fixture("sessions") });
