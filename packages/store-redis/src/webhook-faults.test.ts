import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger, type UserStore } from "@portcullis/core";
import { createMemoryUserStore } from "@portcullis/store-memory";
import { freePort } from "@portcullis/testing";
import type { Redis } from "ioredis";
import { describe, it } from "vitest";
import { canRunKillChild, killMidDelivery } from "../../store-sql/src/test-webhook-kill.js";
import {
  outageDuringBurst,
  receiverDownForHours,
  twoInstancesBurst,
} from "../../store-sql/src/test-webhook-scenarios.js";
import { createRedisClient } from "./client.js";
import { createRedisStores } from "./redis-stores.js";
import {
  canStartRedis,
  redisForFile,
  startDurableRedis,
  startRedisServer,
  stopRedisServer,
  testPrefix,
} from "./test-redis.js";

// docs/webhooks.md ("Delivery guarantees") with the audit log and the webhook store on Redis (the
// users in memory: Redis keeps none): a killed server, a receiver down for hours, two instances
// sharing a burst, and a redis-server stopped or frozen mid-burst. Each test prints its figures.

async function ready(client: Redis): Promise<Redis> {
  if (client.status !== "ready") await once(client, "ready");
  return client;
}

describe("webhooks on Redis (the shared test server)", () => {
  const file = redisForFile();
  const newPrefix = () => file.prefix();
  /** Stores on a client of their own under `keyPrefix`, with `users` in memory. */
  const openStores = async (keyPrefix: string, users: UserStore = createMemoryUserStore()) => {
    const client = await file.openClient({ logger: silentLogger, commandTimeout: 2_000 });
    return { users, ...createRedisStores({ client, keyPrefix }) };
  };

  it.skipIf(!canRunKillChild(true))(
    "webhooks - kill -9 between the answered calls and their delivery: the next instance delivers every event, in order",
    async () => {
      const keyPrefix = newPrefix();
      await killMidDelivery("Redis", await openStores(keyPrefix), {
        kind: "redis",
        url: file.url,
        keyPrefix,
      });
    },
    120_000,
  );

  it("webhooks - a receiver down for three hours of the back-off (scaled): everything arrives, in order", async () => {
    await receiverDownForHours("Redis", await openStores(newPrefix()));
  }, 60_000);

  it("webhooks - two instances deliver a burst of 1,000 events: none lost, in order, duplicates under 1 %", async () => {
    const keyPrefix = newPrefix();
    const users = createMemoryUserStore();
    await twoInstancesBurst("Redis", () => openStores(keyPrefix, users));
  }, 120_000);
});

type OwnStores = ReturnType<typeof createRedisStores> & { users: UserStore };

describe.skipIf(!canStartRedis)("webhooks on a redis-server of the test's own, stopped and frozen", () => {
  /**
   * A redis-server of the test's own (`durable`: every write in its append-only file before it
   * answers, so a SIGKILL loses nothing it acknowledged) and stores on it; stopped and removed after.
   */
  async function withOwnRedis(
    durable: boolean,
    run: (server: { process: ChildProcess; port: number; dir: string }, stores: OwnStores) => Promise<void>,
  ) {
    const dir = await mkdtemp(join(tmpdir(), "portcullis-webhook-redis-"));
    const port = await freePort();
    const server = {
      process: durable ? await startDurableRedis(port, dir) : await startRedisServer(port),
      port,
      dir,
    };
    const client = createRedisClient(`redis://127.0.0.1:${port}`, { logger: silentLogger });
    try {
      const stores = createRedisStores({ client: await ready(client), keyPrefix: testPrefix() });
      await run(server, { users: createMemoryUserStore(), ...stores });
    } finally {
      client.disconnect();
      server.process.kill("SIGCONT");
      await stopRedisServer(server.process);
      await rm(dir, { recursive: true, force: true });
    }
  }

  it("webhooks - redis-server stopped (SIGKILL) in the middle of a delivery burst, then started: every event arrives, in order", async () => {
    await withOwnRedis(true, (server, stores) =>
      outageDuringBurst("Redis stopped", stores, {
        async begin() {
          server.process.kill("SIGKILL");
          if (server.process.exitCode === null && server.process.signalCode === null)
            await once(server.process, "exit");
        },
        async end() {
          server.process = await startDurableRedis(server.port, server.dir);
        },
      }),
    );
  }, 90_000);

  it("webhooks - redis-server frozen (SIGSTOP) in the middle of a delivery burst, then resumed: every event arrives, in order", async () => {
    await withOwnRedis(false, (server, stores) =>
      outageDuringBurst("Redis frozen", stores, {
        begin: async () => void server.process.kill("SIGSTOP"),
        end: async () => void server.process.kill("SIGCONT"),
      }),
    );
  }, 90_000);
});
