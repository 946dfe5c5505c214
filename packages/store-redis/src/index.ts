export { createRedisClient, type RedisClientOptions } from "./client.js";
export { createRedisStores, type RedisStores, type RedisStoresOptions } from "./redis-stores.js";
export { createRedisSsoStore, type RedisSsoStoreOptions } from "./sso-store.js";
