import type { AnyKysely } from "./context.js";

/**
 * Kysely's `getTables()`, read again when a concurrent drop elsewhere failed it: the read takes
 * every table of the database and, on PostgreSQL, names each one again while it reads
 * (`pg_get_serial_sequence`), so a table or schema another test file drops meanwhile fails it
 * with 42P01 or 3F000 (seen in CI).
 */
export async function wholeDatabaseTables(db: AnyKysely, tries = 5) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.introspection.getTables();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (attempt >= tries || (code !== "42P01" && code !== "3F000")) throw error;
    }
  }
}
