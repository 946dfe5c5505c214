import { once } from "node:events";
import type { Auth, Clock } from "@portcullis/core";
import { createRedisClient, createRedisStores } from "@portcullis/store-redis";
import { runAdapterSuite } from "@portcullis/testing";
import { runExampleSuite } from "example-shared/suite";
import type { Redis } from "ioredis";
import { afterAll, beforeAll } from "vitest";
import { addHostRoutes, listenForTests } from "../../../packages/adapter-fastify/src/test-server.js";
import {
  deleteKeys,
  serverTime,
  testPrefix,
  useRedis,
} from "../../../packages/store-redis/src/test-redis.js";
import type { AnyKysely } from "../../../packages/store-sql/src/context.js";
import * as pg from "../../../packages/store-sql/src/test-databases.js";
import { createApp } from "./app.js";

// The Fastify example with DATABASE_URL=postgres://… and REDIS_URL: users in PostgreSQL, sessions
// and cooldowns on Redis. The example suite, and the adapter suite on the same split of stores.
let server: Awaited<ReturnType<typeof pg.usePostgres>>;
let database: Awaited<ReturnType<typeof pg.postgresDatabase>>;
let db: AnyKysely;
let redis: Awaited<ReturnType<typeof useRedis>>;
let client: Redis;
const keyPrefix = testPrefix();
beforeAll(async () => {
  [server, redis] = await Promise.all([pg.usePostgres(), useRedis()]);
  database = await pg.postgresDatabase(server.url);
  db = pg.postgresDb(database.url);
  client = createRedisClient(redis.url, { commandTimeout: 2_000 });
  await once(client, "ready");
});
afterAll(async () => {
  await deleteKeys(client, keyPrefix);
  client.disconnect();
  await db.destroy();
  await database.drop();
  await Promise.all([server.stop(), redis.stop()]);
}, 120_000); // as examples/express/src/postgres.test.ts: cleanup on a loaded machine

async function listen(auth: Auth, outbox?: Parameters<typeof createApp>[1], hostRoutes = false) {
  const app = await createApp(auth, outbox);
  return listenForTests(hostRoutes ? addHostRoutes(app, auth) : app);
}

runExampleSuite({
  name: "fastify + postgres + redis",
  serverEntry: new URL("../dist/server.js", import.meta.url).pathname,
  env: () => ({ DATABASE_URL: database.url, REDIS_URL: redis.url, REDIS_KEY_PREFIX: keyPrefix }),
  start: ({ auth, outbox }) => listen(auth, outbox),
});

runAdapterSuite({
  name: "fastify example + postgres + redis",
  createStores: (clock: Clock) => ({
    users: pg.freshSqlStores(db, clock).users,
    ...createRedisStores({ client, keyPrefix: `${keyPrefix}${Math.random().toString(36).slice(2)}:` }),
  }),
  storeNow: () => serverTime(client),
  start: (auth) => listen(auth, undefined, true),
});
