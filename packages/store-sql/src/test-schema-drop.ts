import { sql } from "kysely";
import type { AnyKysely } from "./context.js";

// Test support (not part of the package's exports).

/** How many tables one statement of `dropSchemaInBatches` drops. */
const TABLES_PER_DROP = 40;

/**
 * Drops a test schema: its tables 40 at a time, then the schema. One `drop schema … cascade` of a
 * file whose every test had its own tables (the back office's: 28 prefixes of 30 tables, each with
 * its indexes) locks every relation in one transaction; beside the other files' transactions on
 * the shared server, that went past its shared lock table (max_locks_per_transaction ×
 * max_connections, 6,400 by default) once in CI: "out of shared memory".
 */
export async function dropSchemaInBatches(admin: AnyKysely, schema: string): Promise<void> {
  const { rows } = await sql<{ tablename: string }>`
    select tablename from pg_tables where schemaname = ${schema}`.execute(admin);
  for (let start = 0; start < rows.length; start += TABLES_PER_DROP) {
    const tables = rows.slice(start, start + TABLES_PER_DROP).map((row) => sql.id(schema, row.tablename));
    await sql`drop table if exists ${sql.join(tables)} cascade`.execute(admin);
  }
  await sql`drop schema ${sql.id(schema)} cascade`.execute(admin);
}
