import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "kysely";
import { type AnyKysely, inTransaction, type SqlContext } from "./context.js";

/** How long an insert waits in all for another one under the same lock, in seconds. */
const LOCK_WAIT_SECONDS = 5;

/** The longest pause between two tries of a PostgreSQL lock, in milliseconds. */
const MAX_LOCK_PAUSE_MS = 50;

export type LimitedInsert = "created" | "limit-reached";

/**
 * An insert under a limit (an owner's API keys, a scope's webhook endpoints): `full` counts what
 * the lock `key` guards and `insert` writes the new row, in one transaction that holds the lock
 * until it ends, so concurrent inserts under one key take turns and never overshoot the limit.
 * PostgreSQL: `pg_try_advisory_xact_lock`, tried again after a short pause while another insert
 * holds it (`tryOnPostgres`); MySQL: `GET_LOCK` on the transaction's connection, released after
 * the commit; SQLite: the write lock of `BEGIN IMMEDIATE`. Under READ COMMITTED the count, a
 * statement after the lock, sees every row committed before it. `lockName` says whose lock it is
 * in the error when it is not granted within `LOCK_WAIT_SECONDS`.
 */
export function insertWithinLimit(
  { db, dialect }: Pick<SqlContext, "db" | "dialect">,
  lock: { key: string; lockName: string },
  full: (trx: AnyKysely) => Promise<boolean>,
  insert: (trx: AnyKysely) => Promise<void>,
): Promise<LimitedInsert> {
  const work = async (trx: AnyKysely): Promise<LimitedInsert> => {
    if (await full(trx)) return "limit-reached";
    await insert(trx);
    return "created";
  };
  const notGranted = () => new Error(`${lock.lockName} lock was not granted in time`);
  if (dialect === "postgres") return tryOnPostgres(db, lock.key, full, work, notGranted);
  if (dialect !== "mysql" || db.isTransaction)
    return inTransaction(db, work, { readCommitted: dialect !== "sqlite" });
  const name = `portcullis:${createHash("sha256").update(lock.key).digest("base64url").slice(0, 40)}`;
  return db.connection().execute(async (connection) => {
    const { rows } = await sql<{
      locked: number | null;
    }>`select get_lock(${name}, ${LOCK_WAIT_SECONDS}) as locked`.execute(connection);
    if (Number(rows[0]?.locked) !== 1) throw notGranted();
    try {
      return await inTransaction(connection, work, { readCommitted: true });
    } finally {
      // A connection that fails here is gone, and MySQL releases its locks with it.
      await sql`select release_lock(${name})`.execute(connection).catch(() => {});
    }
  });
}

/**
 * PostgreSQL's turn for one lock: a READ COMMITTED transaction that answers `limit-reached` at
 * once when `full` (a key at its limit waits for nobody), else takes the advisory lock without
 * waiting and runs `work`. When another insert holds the lock, the transaction ends and a new one
 * tries again after a short pause, up to `LOCK_WAIT_SECONDS` in all: a waiting insert holds no
 * connection and never meets the pool's `lock_timeout` (500 ms with `postgresPoolOptions`), which
 * cancels a waiting lock.
 */
async function tryOnPostgres(
  db: AnyKysely,
  key: string,
  full: (trx: AnyKysely) => Promise<boolean>,
  work: (trx: AnyKysely) => Promise<LimitedInsert>,
  notGranted: () => Error,
): Promise<LimitedInsert> {
  const giveUpAt = performance.now() + LOCK_WAIT_SECONDS * 1_000;
  for (let pauseMs = 2; ; pauseMs = Math.min(pauseMs * 2, MAX_LOCK_PAUSE_MS)) {
    const outcome = await inTransaction(
      db,
      async (trx) => {
        if (await full(trx)) return { done: "limit-reached" as const };
        const { rows } = await sql<{
          locked: boolean;
        }>`select pg_try_advisory_xact_lock(hashtextextended(${key}, 0)) as locked`.execute(trx);
        return rows[0]?.locked === true ? { done: await work(trx) } : null;
      },
      { readCommitted: true },
    );
    if (outcome) return outcome.done;
    if (performance.now() >= giveUpAt) throw notGranted();
    // Jittered, so the inserts that missed the lock together do not all come back together.
    await sleep(pauseMs * (0.5 + Math.random()));
  }
}
