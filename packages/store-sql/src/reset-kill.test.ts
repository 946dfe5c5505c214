import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { silentLogger } from "@portcullis/core";
import { createFakeClock, freePort } from "@portcullis/testing";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisClient, createRedisStores } from "../../store-redis/src/index.js";
import {
  canStartRedis,
  deleteKeys,
  startDurableRedis,
  stopRedisServer,
  testPrefix,
} from "../../store-redis/src/test-redis.js";
import type { AnyKysely } from "./context.js";
import { createSqlStores } from "./sql-stores.js";
import { canStartPostgres, postgresDb, sqliteDb, startPostgresServer } from "./test-databases.js";
import { NEW_PASSWORD, resetAuth, resetState, resettingUsers } from "./test-reset.js";

// kill -9 during 50 concurrent resets (issue 34): a child process (the built packages, default
// argon2 parameters, so the hashes queue) fires 50 resets at once and is SIGKILLed 20, 150 and
// 400 ms later. Then the stores are opened here, on a clock past the claims' lease, and every user
// is checked: the new password and no session from before it, or the old password and a link
// that still works (and completes the reset now). No consumed link without its effect.
// The same with the examples' REDIS_URL shape: users in SQL, sessions, single-use tokens and
// cooldowns on a redis-server of the test's own (append-only, fsync always) that stays up while
// the child dies; the claims the child held end with their lease on Redis's clock (moved here).

const SECRET = "reset-kill-secret-Vb7nQ2xLk9RtYp4WzM1cH8sJd3FgA6uEo0iKqZ5yTlN";
const USERS = 50;
const KILL_AFTER_MS = [20, 150, 400];
const CHILD = fileURLToPath(new URL("./reset-kill-child.mjs", import.meta.url));
const BUILT = fileURLToPath(new URL("../dist/index.js", import.meta.url));
const BUILT_REDIS = fileURLToPath(new URL("../../store-redis/dist/index.js", import.meta.url));
const withRedis = canStartRedis && existsSync(BUILT_REDIS);
const LEASE_MS = 60_000;

interface Target {
  name: string;
  db: () => AnyKysely;
  child: Record<string, string>;
  /** The URL of the Redis holding the sessions, tokens and cooldowns; none: all in SQL. */
  redisUrl?: string;
}

/** Runs the child, which SIGKILLs itself `killAfterMs` after it fired the resets; how many had answered. */
function runUntilKilled(config: Record<string, unknown>): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, JSON.stringify(config)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let output = "";
    // A child stuck before its own kill is killed from here.
    const fallback = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      clearTimeout(fallback);
      if (signal !== "SIGKILL" || !output.includes("fired\n"))
        reject(new Error(`the child did not die by SIGKILL after firing (exit ${code}): ${output}`));
      else resolve(output.split("\n").filter((line) => line.startsWith("done ")).length);
    });
  });
}

async function killDuringResets(target: Target, killAfterMs: number) {
  const prefix = `k${randomBytes(5).toString("hex")}_`;
  const clock = createFakeClock({ start: Date.now() });
  const db = target.db();
  const stores = createSqlStores({ db, clock, tablePrefix: prefix });
  await stores.migrate();
  if (target.child.dialect === "sqlite") await sql`pragma journal_mode = wal`.execute(db);
  const redis = target.redisUrl ? createRedisClient(target.redisUrl, { logger: silentLogger }) : undefined;
  if (redis && redis.status !== "ready") await once(redis, "ready");
  const keyPrefix = testPrefix();
  const { auth, hasher, sent } = resetAuth({
    secret: SECRET,
    stores: redis ? { users: stores.users, ...createRedisStores({ client: redis, keyPrefix }) } : stores,
    clock,
  });
  try {
    const setupStarted = Date.now();
    const users = await resettingUsers(auth, sent, USERS, `kill-${killAfterMs}`);
    const answered = await runUntilKilled({
      ...target.child,
      prefix,
      secret: SECRET,
      newPassword: NEW_PASSWORD,
      tokens: users.map((user) => user.token),
      killAfterMs,
      ...(target.redisUrl ? { redis: { url: target.redisUrl, keyPrefix } } : {}),
    });
    // Past the lease of the claims the dead process held (it ran on the real clock; on Redis,
    // the lease runs on Redis's clock: the claims are shortened there).
    clock.advance(Date.now() - clock.now() + LEASE_MS + 1_000);
    const claims = redis ? await redis.keys(`${keyPrefix}tok:*:claim`) : [];
    for (const key of claims) await redis?.pexpire(key, 1);
    if (redis) await new Promise((resolve) => setTimeout(resolve, 10));
    const started = Date.now();
    const states = { old: 0, new: 0 };
    for (const user of users) states[await resetState(auth, stores.users, hasher, user)] += 1;
    console.info(
      `kill -9 ${target.name} at ${killAfterMs} ms: ${answered} of ${USERS} resets had answered; ` +
        `new password, old sessions gone: ${states.new}; old password, link working: ${states.old}; mixed: 0${redis ? `; claim keys on Redis, shortened: ${claims.length}` : ""} (setup ${started - setupStarted} ms, check ${Date.now() - started} ms)`,
    );
    return states;
  } finally {
    await db.destroy();
    if (redis) {
      await deleteKeys(redis, keyPrefix);
      redis.disconnect();
    }
  }
}

describe.skipIf(!existsSync(BUILT))("resetPassword killed mid-way (kill -9 of a child process)", () => {
  let dir: string;
  let server: Awaited<ReturnType<typeof startPostgresServer>> | undefined;
  let redisServer: ChildProcess | undefined;
  let redisUrl: string | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "portcullis-kill-"));
    if (canStartPostgres) server = await startPostgresServer();
    if (withRedis) {
      const port = await freePort();
      await mkdir(join(dir, "redis"));
      redisServer = await startDurableRedis(port, join(dir, "redis"));
      redisUrl = `redis://127.0.0.1:${port}`;
    }
  }, 60_000);
  afterAll(async () => {
    await server?.destroy();
    if (redisServer) await stopRedisServer(redisServer);
    await rm(dir, { recursive: true, force: true });
  });

  const targets = (): Target[] => {
    const file = join(dir, "auth.db");
    const list: Target[] = [{ name: "SQLite", db: () => sqliteDb(file), child: { dialect: "sqlite", file } }];
    if (server) {
      const url = server.url;
      list.push({ name: "PostgreSQL", db: () => postgresDb(url), child: { dialect: "postgres", url } });
    }
    if (redisUrl) {
      for (const sqlTarget of [...list])
        list.push({ ...sqlTarget, name: `${sqlTarget.name} + Redis`, redisUrl });
    }
    return list;
  };

  for (const name of ["SQLite", "PostgreSQL", "SQLite + Redis", "PostgreSQL + Redis"]) {
    it.skipIf((name.startsWith("PostgreSQL") && !canStartPostgres) || (name.endsWith("Redis") && !withRedis))(
      `resetPassword - ${name}: SIGKILL at ${KILL_AFTER_MS.join(", ")} ms of ${USERS} concurrent resets leaves no user half-reset`,
      async () => {
        const target = targets().find((candidate) => candidate.name === name);
        if (!target) throw new Error(`no ${name}`);
        let changed = 0;
        for (const killAfterMs of KILL_AFTER_MS) {
          const states = await killDuringResets(target, killAfterMs);
          expect(states.old + states.new).toBe(USERS);
          changed += states.new;
        }
        // The kill points fall inside the run: some resets were cut off before the password.
        expect(changed).toBeLessThan(USERS * KILL_AFTER_MS.length);
      },
      120_000,
    );
  }
});
