export { createRedisClient, type RedisClientOptions } from "./client.js";
export { createRedisStores, type RedisStores, type RedisStoresOptions } from "./redis-stores.js";
