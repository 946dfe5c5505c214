import { runSigningKeyStoreSuite } from "@portcullis/testing";
import { createRedisStores } from "./redis-stores.js";
import { redisForFile } from "./test-redis.js";

// Each test under a prefix of its own on this file's Redis (deleted after the file).
const redis = redisForFile();

runSigningKeyStoreSuite({
  name: "redis",
  create: () => ({
    store: createRedisStores({ client: redis.client, keyPrefix: redis.prefix() }).signingKeys,
  }),
});
