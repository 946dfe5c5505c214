import { sql } from "kysely";
import type { AnyKysely, SqlDialect } from "./context.js";

/** Rows one statement of a sweep deletes at most, unless `sweepBatchRows` says otherwise. */
export const DEFAULT_SWEEP_BATCH_ROWS = 1000;

/**
 * Which rows of a table a sweep removes: `column < before` (`strict`) or `column <= before`, and
 * only those whose `equals[0]` column holds `equals[1]` when given (the index then starts with
 * that column, then `column`).
 */
export interface SweepTarget {
  table: string;
  column: string;
  before: number;
  strict?: boolean;
  equals?: readonly [column: string, value: string];
}

/**
 * Deletes the rows of `target` in statements of at most `batchRows` rows each, every one its own
 * short transaction, until a statement deletes none: a sweep of a million expired rows never holds
 * their row locks (PostgreSQL, MySQL) or the database's write lock (SQLite) for longer than one
 * batch, so logins and refusals that write the same tables go on between the batches. Each batch
 * is found through the expiry column's index. Resolves to how many rows went. A batch that
 * deletes fewer than it found (on PostgreSQL, a row a request updated meanwhile has moved, so its
 * address no longer matches) does not end the sweep: only an empty batch does.
 */
export async function deleteInBatches(
  db: AnyKysely,
  dialect: SqlDialect,
  target: SweepTarget,
  batchRows: number = DEFAULT_SWEEP_BATCH_ROWS,
): Promise<number> {
  const statement = batchStatement(dialect, target, batchRows);
  let removed = 0;
  for (;;) {
    const result = await statement.execute(db);
    const count = Number(result.numAffectedRows ?? 0n);
    removed += count;
    if (count === 0) return removed;
  }
}

function batchStatement(dialect: SqlDialect, target: SweepTarget, limit: number) {
  const { table, column, before, strict, equals } = target;
  const t = sql.table(table);
  const c = sql.ref(column);
  const past = strict ? sql`${c} < ${before}` : sql`${c} <= ${before}`;
  const due = equals ? sql`${sql.ref(equals[0])} = ${equals[1]} and ${past}` : past;
  switch (dialect) {
    // The row's physical address: no primary key needed, and the delete touches only the rows found.
    case "postgres":
      return sql`delete from ${t} where ctid = any(array(select ctid from ${t} where ${due} limit ${limit}))`;
    case "sqlite":
      return sql`delete from ${t} where rowid in (select rowid from ${t} where ${due} limit ${limit})`;
    // MySQL refuses `limit` in an `in` subquery; its single-table delete takes one itself.
    case "mysql":
      return sql`delete from ${t} where ${due} order by ${c} limit ${limit}`;
  }
}
