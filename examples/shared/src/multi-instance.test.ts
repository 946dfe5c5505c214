import { Redis } from "ioredis";
import { deleteKeys, testPrefix, useRedis } from "../../../packages/store-redis/src/test-redis.js";
import { runTwoInstanceTests } from "./two-instances.js";

let redis: Awaited<ReturnType<typeof useRedis>>;
const keyPrefix = testPrefix();

runTwoInstanceTests("two example instances sharing one Redis", {
  async setup() {
    redis = await useRedis();
    return { REDIS_URL: redis.url, REDIS_KEY_PREFIX: keyPrefix };
  },
  async teardown() {
    const client = new Redis(redis.url);
    await deleteKeys(client, keyPrefix);
    client.disconnect();
    await redis.stop();
  },
});
