import type { ActivityRecord, ActivityStore } from "@portcullis/core";
import { sql } from "kysely";
import { compiledQuery } from "./compiled-query.js";
import type { SqlContext } from "./context.js";
import { toNumber } from "./context.js";
import { RELAXED_COMMIT, relaxesCommit } from "./cooldown-store.js";
import { DEFAULT_SWEEP_BATCH_ROWS, deleteInBatches } from "./sweep.js";

/** A row of `<prefix>activity`; `at` in milliseconds. */
interface ActivityRow {
  id: string;
  user_id: string;
  type: string;
  at: number | string;
  ip: string | null;
  browser: string | null;
  os: string | null;
  reason: string | null;
}

const fromRow = (row: ActivityRow): ActivityRecord => ({
  id: row.id,
  userId: row.user_id,
  type: row.type,
  at: toNumber(row.at),
  ip: row.ip,
  browser: row.browser,
  os: row.os,
  reason: row.reason,
});

const COLUMNS = [
  "id",
  "user_id",
  "type",
  "at",
  "ip",
  "browser",
  "os",
  "reason",
] as const satisfies readonly (keyof ActivityRow)[];

/** Each column's PostgreSQL type, for `recordMany`'s arrays (in `COLUMNS`' order). */
const ARRAY_TYPES = ["text", "text", "text", "bigint", "text", "text", "text", "text"] as const;

const toRow = (entry: ActivityRecord): ActivityRow => ({
  id: entry.id,
  user_id: entry.userId,
  type: entry.type,
  at: entry.at,
  ip: entry.ip,
  browser: entry.browser,
  os: entry.os,
  reason: entry.reason,
});

/** The longest time between two retention sweeps a write runs (shorter for a short retention). */
const MAX_SWEEP_INTERVAL_MS = 3_600_000;

/**
 * Each user's activity in `<prefix>activity`, read through the index (user_id, at, id). The
 * retention sweep runs with a write: at most once per hour (or per tenth of the retention, when
 * that is shorter), measured by the written entries' `at`, one DELETE of every user's entries
 * more than the retention older than the written one (through the index on `at`). The first
 * write after start-up sweeps. The write that sweeps waits for it.
 *
 * On PostgreSQL an entry's insert commits without waiting for the WAL flush (`RELAXED_COMMIT`,
 * unless the stores' `db` is a host's transaction): the entry is visible at once, as every
 * answer expects, and only a crash of the database server itself within a fraction of a second
 * can lose it. The audit log, which records the same events tamper-evidently, stays durable.
 * `recordMany` writes several entries in one INSERT (on PostgreSQL one `unnest` statement for any
 * count, compiled once, committed the same way), then sweeps as `record` does.
 */
export function createSqlActivityStore(
  { db, dialect, tables }: SqlContext,
  sweepBatchRows = DEFAULT_SWEEP_BATCH_ROWS,
): ActivityStore {
  const table = tables.activity;
  let lastSweepAt = Number.NEGATIVE_INFINITY;
  // Every sign-in's write, compiled once (arguments: the row's columns in COLUMNS' order).
  // On PostgreSQL it commits relaxed (see the store's comment).
  const insert = compiledQuery<ActivityRow[keyof ActivityRow][], unknown>(COLUMNS.length, (on, ...values) => {
    const write = on
      .insertInto(table)
      .values(Object.fromEntries(COLUMNS.map((column, i) => [column, values[i]])));
    return relaxesCommit(dialect, on) ? write.returning(RELAXED_COMMIT) : write;
  });

  // Several entries: on PostgreSQL one statement for any count (one array per column), compiled once.
  const insertMany =
    dialect === "postgres"
      ? compiledQuery<unknown[][], unknown>(COLUMNS.length, (on, ...arrays) => {
          const unnested = sql.join(
            COLUMNS.map((_, i) => sql`${arrays[i]}::${sql.raw(ARRAY_TYPES[i] ?? "text")}[]`),
          );
          const write = sql`insert into ${sql.table(table)} (${sql.raw(COLUMNS.join(", "))}) select * from unnest(${unnested})`;
          const statement = relaxesCommit(dialect, on)
            ? sql`${write} returning ${sql.raw("set_config('synchronous_commit', 'off', true)")}`
            : write;
          return { compile: () => statement.compile(on) };
        })
      : undefined;

  // In batches, each its own short transaction, like `sweep`: sign-ins record activity meanwhile.
  const sweepActivity = (olderThan: number) =>
    deleteInBatches(db, dialect, { table, column: "at", before: olderThan, strict: true }, sweepBatchRows);
  /** The retention sweep, when the newest entry written is far enough from the last one's. */
  const sweepAfter = async (newest: number, retentionMs: number) => {
    if (newest - lastSweepAt < Math.min(MAX_SWEEP_INTERVAL_MS, retentionMs / 10)) return;
    lastSweepAt = newest;
    await sweepActivity(newest - retentionMs);
  };

  return {
    async record(entry, retentionMs) {
      const row = toRow(entry);
      await insert(db, ...COLUMNS.map((column) => row[column]));
      await sweepAfter(entry.at, retentionMs);
    },
    async recordMany(entries, retentionMs) {
      if (entries.length === 0) return;
      const rows = entries.map(toRow);
      if (insertMany) await insertMany(db, ...COLUMNS.map((column) => rows.map((row) => row[column])));
      else await db.insertInto(table).values(rows).execute();
      await sweepAfter(Math.max(...entries.map((entry) => entry.at)), retentionMs);
    },
    async list(userId, { before, limit, since }) {
      if (limit < 1) return [];
      let query = db.selectFrom(table).selectAll().where("user_id", "=", userId);
      if (since !== undefined) query = query.where("at", ">=", since);
      if (before) {
        query = query.where((eb) =>
          eb.or([eb("at", "<", before.at), eb.and([eb("at", "=", before.at), eb("id", "<", before.id)])]),
        );
      }
      const rows = await query.orderBy("at", "desc").orderBy("id", "desc").limit(Math.floor(limit)).execute();
      return (rows as ActivityRow[]).map(fromRow);
    },
    async deleteUserActivity(userId) {
      const result = await db.deleteFrom(table).where("user_id", "=", userId).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    sweepActivity,
  };
}
