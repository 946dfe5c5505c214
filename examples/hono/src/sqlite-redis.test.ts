import { once } from "node:events";
import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock } from "@portcullis/core";
import { createRedisClient, createRedisStores } from "@portcullis/store-redis";
import { runAdapterSuite } from "@portcullis/testing";
import { runExampleSuite } from "example-shared/suite";
import type { Redis } from "ioredis";
import { afterAll, beforeAll } from "vitest";
import {
  deleteKeys,
  serverTime,
  testPrefix,
  useRedis,
} from "../../../packages/store-redis/src/test-redis.js";
import { freshSqlStores, sqliteDb } from "../../../packages/store-sql/src/test-databases.js";
import { startExample, startWithHostRoutes } from "./test-servers.js";

// The Hono example with DATABASE_URL=sqlite:<file> and REDIS_URL: users in SQLite, sessions and
// cooldowns on Redis. The example suite, and the adapter suite through the Fetch adapter on the
// same split of stores.
const dir = mkdtempSync(join(tmpdir(), "portcullis-hono-sqlite-"));
const db = sqliteDb(join(dir, "adapter.db"));
let redis: Awaited<ReturnType<typeof useRedis>>;
let client: Redis;
const keyPrefix = testPrefix();
beforeAll(async () => {
  redis = await useRedis();
  client = createRedisClient(redis.url, { commandTimeout: 2_000 });
  await once(client, "ready");
});
afterAll(async () => {
  await deleteKeys(client, keyPrefix);
  client.disconnect();
  await redis.stop();
  await db.destroy();
  await rm(dir, { recursive: true, force: true });
});

runExampleSuite({
  name: "hono + sqlite + redis",
  serverEntry: new URL("../dist/server.js", import.meta.url).pathname,
  env: () => ({
    DATABASE_URL: `sqlite:${join(dir, "example.db")}`,
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: keyPrefix,
  }),
  start: startExample,
});

runAdapterSuite({
  name: "hono example + sqlite + redis",
  createStores: (clock: Clock) => ({
    users: freshSqlStores(db, clock).users,
    ...createRedisStores({ client, keyPrefix: `${keyPrefix}${Math.random().toString(36).slice(2)}:` }),
  }),
  storeNow: () => serverTime(client),
  start: startWithHostRoutes,
});
