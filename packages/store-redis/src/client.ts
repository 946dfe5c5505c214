import { consoleLogger, type Logger } from "@portcullis/core";
import { Redis, type RedisOptions } from "ioredis";

/**
 * The longest wait between `createRedisClient`'s reconnection attempts, in milliseconds: attempt
 * n waits n × 50 ms, up to this. Redis back after an outage is used again within this long.
 */
export const REDIS_RECONNECT_MAX_DELAY_MS = 250;

/** `createRedisClient`'s reconnection back-off: attempt n (from 1) waits n × 50 ms, up to 250 ms. */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(attempt * 50, REDIS_RECONNECT_MAX_DELAY_MS);
}

export interface RedisClientOptions extends RedisOptions {
  /** Where connection errors are reported (once per distinct error until the client is ready again). */
  logger?: Logger;
}

/**
 * An ioredis client with settings that fail fast instead of queueing forever: a 500 ms command
 * timeout, no offline queue (commands fail at once while disconnected), one retry per request,
 * and reconnection with back-off capped at `REDIS_RECONNECT_MAX_DELAY_MS` (250 ms), so the app
 * recovers by itself within a quarter second of Redis returning. The price: during an outage each
 * client tries to connect about 4 times a second (each a refused or timed-out TCP connect).
 * Wait for its `ready` event before serving (`await once(client, "ready")`). Any option can be
 * overridden (`retryStrategy` for a longer cap).
 */
export function createRedisClient(url: string, options: RedisClientOptions = {}): Redis {
  const { logger = consoleLogger, ...redisOptions } = options;
  const client = new Redis(url, {
    commandTimeout: 500,
    connectTimeout: 1_000,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    retryStrategy: reconnectDelayMs,
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
