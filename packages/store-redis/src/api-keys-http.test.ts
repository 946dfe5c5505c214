import type { Clock } from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import { runApiKeysAdapterSuite, runApiKeysInstancesSuite } from "@portcullis/testing";
import { createRedisStores } from "./redis-stores.js";
import { redisForFile, serverTime } from "./test-redis.js";
import { startExpress } from "./test-servers.js";

// API keys with the keys, their request counters (cooldowns) and sessions on Redis; users and
// organizations in memory. The request window runs on Redis's clock, so the test that waits it out
// is left out (storeNow); the rest, 20 concurrent requests of one key included, run here.
const file = redisForFile();

const createStores = (clock: Clock) => {
  const memory = createMemoryStores({ clock });
  return {
    users: memory.users,
    organizations: memory.organizations,
    ...createRedisStores({ client: file.client, keyPrefix: file.prefix() }),
  };
};

runApiKeysAdapterSuite({
  name: "express + redis",
  createStores,
  start: startExpress,
  storeNow: () => serverTime(file.client),
});
// Two instances over one Redis: a delete through one is refused by the other at once.
runApiKeysInstancesSuite({ name: "express + redis", createStores, start: startExpress });
