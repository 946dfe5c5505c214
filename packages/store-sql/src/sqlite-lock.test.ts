import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { Kysely, sql } from "kysely";
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

  it("acquire - a write that gave up on the lock leaves nothing in progress either", async () => {
    // Every statement is kept referenced, as a busy server's are until the garbage collector
    // runs: a statement left in progress stays in progress.
    const database = new Database(file);
    const kept: unknown[] = [];
    const prepare = database.prepare.bind(database);
    database.prepare = ((source: string) => {
      const statement = prepare(source);
      kept.push(statement);
      return statement;
    }) as typeof database.prepare;
    const short = new Kysely({ dialect: createSqliteDialect({ database, busyTimeoutMs: 100 }) });
    const shortStores = createSqlStores({ db: short });
    const released = holdWriteLock(400);
    const failed = await shortStores.cooldowns.acquire("email:bob@example.test", 60_000).catch((e) => e);
    expect((failed as { code?: string }).code).toBe("SQLITE_BUSY");
    await released;
    // libsql leaves a prepared statement that failed with SQLITE_BUSY in progress on the
    // connection: every COMMIT then fails ("SQL statements in progress") while it is, and
    // the connection stays in a transaction that never commits, holding the write lock.
    const run = await measured(() => shortStores.cooldowns.hit("login:ip:192.0.2.2", 60_000));
    expect(run.error).toBeUndefined();
    expect(run.value?.count).toBe(1);
    expect((await shortStores.cooldowns.acquire("email:bob@example.test", 60_000)).acquired).toBe(true);
    expect(database.inTransaction).toBe(false);
    // Another connection (process) can write: nothing holds the lock.
    expect(() => {
      other.exec("begin immediate");
      other.exec("commit");
    }).not.toThrow();
    // The code is in the message too: a log line that prints the error shows it.
    expect((failed as Error).message).toContain("SQLITE_BUSY");
    await short.destroy();
  });

  it("createSqliteDialect - journalMode: 'wal' switches a new file to WAL, waiting for another connection's lock", async () => {
    const fresh = join(dir, "fresh.db");
    const holder = new Database(fresh);
    holder.exec("create table t (id integer primary key)");
    holder.exec("begin exclusive");
    const walDb = new Kysely({
      dialect: createSqliteDialect({ database: new Database(fresh), journalMode: "wal" }),
    });
    setTimeout(() => holder.exec("commit"), 300);
    const { rows } = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(walDb);
    expect(rows[0]?.journal_mode).toBe("wal");
    await walDb.destroy();
    holder.close();
  });

  it("getSession - reads answer while another connection holds the write lock (WAL)", async () => {
    const released = holdWriteLock(LOCK_MS);
    const run = await measured(() => stores.sessions.getSession("absent"));
    expect(run.value).toBeNull();
    expect(run.elapsedMs).toBeLessThan(150);
    await released;
  });
});
