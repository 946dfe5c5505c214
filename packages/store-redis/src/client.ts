import { consoleLogger, type Logger } from "@portcullis/core";
import { Redis, type RedisOptions } from "ioredis";

export interface RedisClientOptions extends RedisOptions {
  /** Where connection errors are reported (once per distinct error until the client is ready again). */
  logger?: Logger;
}

/**
 * An ioredis client with settings that fail fast instead of queueing forever: a 500 ms command
 * timeout, no offline queue (commands fail at once while disconnected), one retry per request,
 * and reconnection with capped back-off, so the app recovers by itself when Redis returns.
 * Wait for its `ready` event before serving (`await once(client, "ready")`). Any option can be
 * overridden.
 */
export function createRedisClient(url: string, options: RedisClientOptions = {}): Redis {
  const { logger = consoleLogger, ...redisOptions } = options;
  const client = new Redis(url, {
    commandTimeout: 500,
    connectTimeout: 1_000,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
    ...redisOptions,
  });
  let lastError: string | undefined;
  client.on("error", (error: Error) => {
    if (error.message === lastError) return;
    lastError = error.message;
    logger.warn({ event: "redis.error", err: error.message }, "Redis connection error");
  });
  client.on("ready", () => {
    if (lastError !== undefined) logger.info({ event: "redis.ready" }, "Redis connection restored");
    lastError = undefined;
  });
  return client;
}
