import { runApiKeysAdapterSuite, runApiKeysInstancesSuite } from "@portcullis/testing";
import { redisForFile, serverTime } from "./test-redis.js";
import { redisStoresWithMemoryUsers, startExpress } from "./test-servers.js";

// API keys with the keys, their request counters (cooldowns) and sessions on Redis; users and
// organizations in memory. The request window runs on Redis's clock, so the test that waits it out
// is left out (storeNow); the rest, 20 concurrent requests of one key included, run here.
const file = redisForFile();

const createStores = redisStoresWithMemoryUsers(file);

runApiKeysAdapterSuite({
  name: "express + redis",
  createStores,
  start: startExpress,
  storeNow: () => serverTime(file.client),
});
// Two instances over one Redis: a delete through one is refused by the other at once.
runApiKeysInstancesSuite({ name: "express + redis", createStores, start: startExpress });
