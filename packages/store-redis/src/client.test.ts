import { once } from "node:events";
import { silentLogger } from "@portcullis/core";
import { freePort } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { createRedisClient, REDIS_RECONNECT_MAX_DELAY_MS, reconnectDelayMs } from "./client.js";
import { canStartRedis, startRedisServer, stopRedisServer } from "./test-redis.js";

/** Time for the TCP connect and ioredis's ready check after the wait, with room for a busy machine. */
const CONNECT_SLACK_MS = 250;

describe("createRedisClient", () => {
  it("createRedisClient - reconnection waits grow by 50 ms up to 250 ms", () => {
    expect([1, 2, 3, 4, 5, 6, 50, 5_000].map(reconnectDelayMs)).toEqual([
      50, 100, 150, 200, 250, 250, 250, 250,
    ]);
  });

  it.skipIf(!canStartRedis)(
    "createRedisClient - after a 3 s outage the client is ready again within 250 ms of Redis returning",
    async () => {
      const port = await freePort();
      let server = await startRedisServer(port);
      const client = createRedisClient(`redis://127.0.0.1:${port}`, { logger: silentLogger });
      try {
        await once(client, "ready");
        let attempts = 0;
        client.on("reconnecting", () => attempts++);
        await stopRedisServer(server);
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        const attemptsDuringOutage = attempts;
        server = await startRedisServer(port);
        const back = Date.now();
        const ready = client.status === "ready" ? Promise.resolve() : once(client, "ready");
        await ready;
        const readyAfterMs = Date.now() - back;
        console.info("redis reconnect", { readyAfterMs, attemptsDuringOutage });
        expect(readyAfterMs).toBeLessThanOrEqual(REDIS_RECONNECT_MAX_DELAY_MS + CONNECT_SLACK_MS);
        expect(await client.ping()).toBe("PONG");
        // The cost of the short cap: a few connection attempts a second while Redis is down.
        expect(attemptsDuringOutage).toBeGreaterThanOrEqual(10);
        expect(attemptsDuringOutage).toBeLessThanOrEqual(20);
      } finally {
        client.disconnect();
        await stopRedisServer(server);
      }
    },
    20_000,
  );
});
