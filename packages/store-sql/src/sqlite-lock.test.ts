import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { Kysely } from "kysely";
import Database from "libsql";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AnyKysely } from "./context.js";
import { createSqlStores, type SqlStores } from "./sql-stores.js";
import { createSqliteDialect } from "./sqlite-dialect.js";
import { sqliteDb } from "./test-databases.js";

// A second connection (another process, in real life) holds the file's write lock: the stores'
// writes wait for it without blocking the event loop, then succeed, or fail cleanly at the deadline.
const LOCK_MS = 2_000;

describe("sqlite dialect: a file locked by another connection", () => {
  let dir: string;
  let file: string;
  let db: AnyKysely;
  let stores: SqlStores;
  let other: Database.Database;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "portcullis-sqlite-lock-"));
    file = join(dir, "auth.db");
    db = sqliteDb(file);
    stores = createSqlStores({ db });
    await stores.migrate();
    other = new Database(file);
  });
  afterEach(async () => {
    other.close();
    await db.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  /** Holds the write lock from the other connection for `ms`, as a writing process would. */
  const holdWriteLock = (ms: number) => {
    other.exec("begin immediate");
    return sleep(ms).then(() => other.exec("commit"));
  };

  /** Runs `work` while measuring the event loop's longest delay and counting 10 ms ticks. */
  async function measured<T>(work: () => Promise<T>) {
    const delay = monitorEventLoopDelay({ resolution: 5 });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    delay.enable();
    const started = Date.now();
    const outcome = await work().then(
      (value) => ({ value, error: undefined }),
      (error: unknown) => ({ value: undefined, error }),
    );
    const elapsedMs = Date.now() - started;
    delay.disable();
    clearInterval(ticker);
    return { ...outcome, elapsedMs, maxLagMs: delay.max / 1e6, ticks };
  }

  it("acquire - waits for the lock asynchronously: the event loop stays responsive, the write lands after it", async () => {
    const released = holdWriteLock(LOCK_MS);
    const run = await measured(() => stores.cooldowns.acquire("email:ada@example.test", 60_000));
    await released;
    expect(run.error).toBeUndefined();
    expect(run.value?.acquired).toBe(true);
    expect(run.elapsedMs).toBeGreaterThanOrEqual(LOCK_MS - 100);
    expect(run.maxLagMs).toBeLessThan(150);
    // A 10 ms ticker keeps ticking through the wait (a blocked loop would count ~0).
    expect(run.ticks).toBeGreaterThan(LOCK_MS / 10 / 2);
    expect((await stores.cooldowns.acquire("email:ada@example.test", 60_000)).acquired).toBe(false);
  });

  it("transaction - a hit (a transaction) waits for the lock the same way and counts once", async () => {
    const released = holdWriteLock(LOCK_MS);
    const run = await measured(() => stores.cooldowns.hit("login:ip:192.0.2.1", 60_000));
    await released;
    expect(run.error).toBeUndefined();
    expect(run.value?.count).toBe(1);
    expect(run.maxLagMs).toBeLessThan(150);
    expect((await stores.cooldowns.hit("login:ip:192.0.2.1", 60_000)).count).toBe(2);
  });

  it("acquire - past busyTimeoutMs it fails with SQLITE_BUSY, without blocking, and nothing is written", async () => {
    const short = new Kysely({
      dialect: createSqliteDialect({ database: new Database(file), busyTimeoutMs: 500 }),
    });
    const shortStores = createSqlStores({ db: short });
    const released = holdWriteLock(LOCK_MS);
    const run = await measured(() => shortStores.cooldowns.acquire("email:bob@example.test", 60_000));
    expect((run.error as { code?: string }).code).toBe("SQLITE_BUSY");
    expect(run.elapsedMs).toBeGreaterThanOrEqual(450);
    expect(run.elapsedMs).toBeLessThan(LOCK_MS);
    expect(run.maxLagMs).toBeLessThan(150);
    await released;
    expect(await shortStores.cooldowns.remainingMs("email:bob@example.test")).toBe(0);
    await short.destroy();
  });

  it("getSession - reads answer while another connection holds the write lock (WAL)", async () => {
    const released = holdWriteLock(LOCK_MS);
    const run = await measured(() => stores.sessions.getSession("absent"));
    expect(run.value).toBeNull();
    expect(run.elapsedMs).toBeLessThan(150);
    await released;
  });
});
