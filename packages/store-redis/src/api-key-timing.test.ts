import type { Clock } from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import { runApiKeyTimingSuite } from "@portcullis/testing";
import { createRedisStores } from "./redis-stores.js";
import { redisForFile } from "./test-redis.js";
import { startExpress } from "./test-servers.js";

// An unknown key, a wrong secret and a valid key in the same time on Redis: each request is one
// script, and a lookupId without a key answers a reply of a stored key's size (ABSENT_KEY in
// api-key-store.ts), so the three cost the same to send and parse. Users in memory.
const file = redisForFile();

// The figures are printed either way; the bound is 10 % as on PostgreSQL (each call is a round
// trip to a server that the parallel suite keeps busy on a 2-core machine), the 5 % of the
// contract is held by the benchmark (bench/api-keys.mjs, its same-time measure).
runApiKeyTimingSuite({
  name: "express + redis",
  rounds: 400,
  bound: { ratio: 0.1 },
  createStores(clock: Clock) {
    const memory = createMemoryStores({ clock });
    return {
      users: memory.users,
      organizations: memory.organizations,
      ...createRedisStores({ client: file.client, keyPrefix: file.prefix() }),
    };
  },
  start: startExpress,
});
