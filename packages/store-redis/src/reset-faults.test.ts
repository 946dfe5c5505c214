import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@portcullis/core";
import { createMemoryUserStore } from "@portcullis/store-memory";
import { freePort } from "@portcullis/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  authWithResetSteps,
  NEW_PASSWORD,
  type ResetStep,
  resetState,
  resettingUsers,
} from "../../store-sql/src/test-reset.js";
import { createRedisClient } from "./client.js";
import { createRedisStores } from "./redis-stores.js";
import {
  canStartRedis,
  startDurableRedis,
  startRedisServer,
  stopRedisServer,
  testPrefix,
} from "./test-redis.js";

// The half-written reset of issue 34 with the sessions and tokens on Redis (the examples'
// REDIS_URL shape; users elsewhere, here in memory): a redis-server of the test's own is frozen
// (SIGSTOP) at a step of the reset, so Redis calls time out as in a hang or a failover, and is
// thawed (SIGCONT) after the reset answered. Then: the old password with a link that works once
// the claim's lease ended, or the new password with no session from before it. Commands sent
// during the freeze still run when Redis resumes (after their 500), so the frozen case after the
// password tells less than the stopped case below, where they never run.

const SECRET = "reset-redis-secret-Hq5wZ8mXc2Lr9Tb4Ns7Kd1Jf6Vg3Pa0Ye8Uo5Ri2WtE";

describe.skipIf(!canStartRedis)("resetPassword with Redis frozen mid-reset", () => {
  let server: Awaited<ReturnType<typeof startRedisServer>>;
  let url: string;
  beforeAll(async () => {
    const port = await freePort();
    server = await startRedisServer(port);
    url = `redis://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    if (server) {
      server.kill("SIGCONT");
      await stopRedisServer(server);
    }
  });

  it.each([
    ["while the password is hashed (before the sessions end)", "old", "hash"],
    ["right after the new password is saved", "new", "update"],
  ] as const)(
    "resetPassword - Redis frozen %s: DATABASE_FAILURE, then the %s password, never a mix",
    async (_, expected, at) => {
      const client = createRedisClient(url, { logger: silentLogger });
      if (client.status !== "ready") await once(client, "ready");
      const keyPrefix = testPrefix();
      const redisStores = createRedisStores({ client, keyPrefix, operationTimeoutMs: 300 });
      let freezeAt: ResetStep | null = null;
      const { auth, users, hasher, sent } = authWithResetSteps({
        secret: SECRET,
        stores: { users: createMemoryUserStore(), ...redisStores },
        at(step) {
          if (freezeAt !== step) return;
          freezeAt = null;
          server.kill("SIGSTOP");
        },
      });
      try {
        const [user] = await resettingUsers(auth, sent, 1, `redis-${at}`);
        if (!user) throw new Error("no user");
        freezeAt = at;
        const started = Date.now();
        const answer = await auth.resetPassword({ token: user.token }, { newPassword: NEW_PASSWORD }).then(
          () => "OK",
          (error: { code?: string }) => error.code,
        );
        server.kill("SIGCONT");
        expect(answer).toBe("DATABASE_FAILURE");
        expect(Date.now() - started).toBeLessThan(3_000);
        // The release timed out with Redis: the claim ends with its lease (on Redis's clock; moved here).
        for (const key of await client.keys(`${keyPrefix}tok:*:claim`)) await client.pexpire(key, 1);
        await new Promise((resolve) => setTimeout(resolve, 10));
        expect(await resetState(auth, users, hasher, user)).toBe(expected);
      } finally {
        server.kill("SIGCONT");
        const keys = await client.keys(`${keyPrefix}*`);
        if (keys.length > 0) await client.del(...keys);
        client.disconnect();
      }
    },
  );
});

// Redis stopped (SIGKILL) at a step of the reset, so its calls fail at once, and started again from
// its append-only file: what it had written before the stop is there, what came after never ran.
describe.skipIf(!canStartRedis)("resetPassword with Redis stopped mid-reset", () => {
  it.each([
    ["while the password is hashed (before the sessions end)", "old", "hash"],
    ["right after the new password is saved", "new", "update"],
  ] as const)(
    "resetPassword - Redis stopped %s: DATABASE_FAILURE, then the %s password once it is back, never a mix",
    async (_, expected, at) => {
      const dir = await mkdtemp(join(tmpdir(), "portcullis-redis-"));
      const port = await freePort();
      let server = await startDurableRedis(port, dir);
      const client = createRedisClient(`redis://127.0.0.1:${port}`, { logger: silentLogger });
      if (client.status !== "ready") await once(client, "ready");
      const keyPrefix = testPrefix();
      const redisStores = createRedisStores({ client, keyPrefix, operationTimeoutMs: 300 });
      let stopAt: ResetStep | null = null;
      const { auth, users, hasher, sent } = authWithResetSteps({
        secret: SECRET,
        stores: { users: createMemoryUserStore(), ...redisStores },
        async at(step) {
          if (stopAt !== step) return;
          stopAt = null;
          server.kill("SIGKILL");
          await once(server, "exit");
        },
      });
      try {
        const [user] = await resettingUsers(auth, sent, 1, `redis-stop-${at}`);
        if (!user) throw new Error("no user");
        stopAt = at;
        const answer = await auth.resetPassword({ token: user.token }, { newPassword: NEW_PASSWORD }).then(
          () => "OK",
          (error: { code?: string }) => error.code,
        );
        expect(answer).toBe("DATABASE_FAILURE");
        server = await startDurableRedis(port, dir);
        const deadline = Date.now() + 5_000;
        while (client.status !== "ready" && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 20));
        // The release could not reach Redis: the claim ends with its lease (on Redis's clock; moved here).
        for (const key of await client.keys(`${keyPrefix}tok:*:claim`)) await client.pexpire(key, 1);
        await new Promise((resolve) => setTimeout(resolve, 10));
        expect(await resetState(auth, users, hasher, user)).toBe(expected);
      } finally {
        client.disconnect();
        server.kill("SIGKILL");
        if (server.exitCode === null && server.signalCode === null) await once(server, "exit");
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
