import type { Clock } from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import { runApiKeyBlocksSuite } from "@portcullis/testing";
import { createRedisStores } from "./redis-stores.js";
import { redisForFile } from "./test-redis.js";
import { startExpress } from "./test-servers.js";

// A key's requests counted in blocks on two instances over one Redis, each instance with a client
// of its own (its own connection), under one key prefix per test; users and organizations, the
// host's database, in memory shared by both.
const file = redisForFile();

runApiKeyBlocksSuite({
  name: "express + redis",
  start: startExpress,
  async createInstanceStores(clock: Clock) {
    const memory = createMemoryStores({ clock });
    const keyPrefix = file.prefix();
    const instance = async () => ({
      users: memory.users,
      organizations: memory.organizations,
      // A bound above the default 1 s: a burst of 100 on a busy 2-core CI machine is load, not a fault.
      ...createRedisStores({
        client: await file.openClient({ commandTimeout: 5_000 }),
        keyPrefix,
        operationTimeoutMs: 5_000,
      }),
    });
    return [await instance(), await instance()];
  },
});
