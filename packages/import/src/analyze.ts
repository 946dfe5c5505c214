import { PostgresAdapter, sql } from "kysely";
import type { AnyKysely } from "./ledger.js";

/**
 * Keeps PostgreSQL's planner statistics of the tables an import grows up to date while it grows
 * them. A table that went from a few rows to a million within minutes (or on a server with
 * autovacuum off, or late) is planned as the small table it was: a batch's `source_id in (…)`
 * lookup then filters the whole ledger (about 0.6 s a batch at a million rows) instead of reading
 * its primary key. So a real run analyzes the tables at its start and each time its written
 * accounts double (1,000, 2,000, 4,000, …: some 10 times for a million, each a sample of the
 * table). SQLite and MySQL plan these lookups on their indexes without it; a dry run analyzes
 * nothing. A role that may not analyze a table gets a warning from PostgreSQL, not an error.
 */
export function statisticsKeeper(db: AnyKysely, tables: readonly string[], enabled: boolean) {
  const on = enabled && db.getExecutor().adapter instanceof PostgresAdapter;
  let next = 1_000;
  const analyze = async () => {
    for (const table of tables) await sql`analyze ${sql.table(table)}`.execute(db);
  };
  return {
    /** Analyzes the tables once before the first batch (a resumed run reads a large ledger at once). */
    async atStart(): Promise<void> {
      if (on) await analyze();
    },
    /** Analyzes the tables when `written` (accounts written so far) reached the next doubling. */
    async afterBatch(written: number): Promise<void> {
      if (!on || written < next) return;
      while (next <= written) next *= 2;
      await analyze();
    },
  };
}
