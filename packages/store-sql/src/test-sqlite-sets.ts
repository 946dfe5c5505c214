import { sql } from "kysely";
import { type AnyKysely, detectDialect } from "./context.js";

/** Test support (not part of the package's exports): the bounded table sets of `freshSqlStores` on SQLite. */

/** The table sets `freshSqlStores` made on each SQLite database: their prefixes and when, oldest first. */
const sqliteSets = new WeakMap<AnyKysely, { prefix: string; at: number }[]>();
/** Sets kept on a SQLite database whatever their age, and the age beyond which the others go. */
const SQLITE_SETS_KEPT = 8;
const SQLITE_SET_MAX_AGE_MS = 20_000;

/**
 * Drops the tables of `db`'s older sets before `prefix`'s is made, on SQLite: each DDL statement
 * there costs more the more tables the file holds (a set's migration took 30 ms in an empty file
 * and 1.4 s beside 100 other sets), so an adapter suite's file, a set per test, grew slower test
 * by test. A set goes once 8 newer ones exist and it is 20 s old (the tests' default timeout):
 * the adapter suites make a set for each app a test boots, so a running test's sets stay.
 */
export async function dropOldSqliteSets(db: AnyKysely, prefix: string): Promise<void> {
  if (detectDialect(db) !== "sqlite") return;
  const sets = sqliteSets.get(db) ?? [];
  sqliteSets.set(db, sets);
  const now = Date.now();
  while (sets.length >= SQLITE_SETS_KEPT && now - (sets[0]?.at ?? now) > SQLITE_SET_MAX_AGE_MS) {
    const old = sets.shift();
    if (!old) break;
    const { rows } = await sql<{ name: string }>`
      select name from sqlite_master where type = 'table' and substr(name, 1, ${old.prefix.length}) = ${old.prefix}`.execute(
      db,
    );
    for (const { name } of rows) await sql`drop table if exists ${sql.table(name)}`.execute(db);
  }
  sets.push({ prefix, at: now });
}
