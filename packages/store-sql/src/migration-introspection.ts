import { type DatabaseIntrospector, sql } from "kysely";
import type { AnyKysely } from "./context.js";

/**
 * `db` as Kysely's Migrator should see it on PostgreSQL: its `introspection` looks for the
 * migration's own bookkeeping tables only, by name, in `pg_tables`.
 *
 * Kysely's own introspection reads every column of every table of the database to answer "does
 * this table exist", and names each table and schema again while it reads
 * (`pg_get_serial_sequence`, `has_schema_privilege`). A table or schema dropped by anyone during
 * that read fails the migration with "relation … does not exist" (42P01) or "schema … does not
 * exist" (3F000); on a database with many tables the read is also slow. The narrow read
 * resolves no names, so another schema's change cannot fail it.
 */
export function withMigrationTablesIntrospection(
  db: AnyKysely,
  schema: string | undefined,
  tables: readonly string[],
): AnyKysely {
  const getTables = async () => {
    const inSchema = schema === undefined ? sql`` : sql`and schemaname = ${schema}`;
    const { rows } = await sql<{ name: string; schema: string }>`
      select tablename as name, schemaname as schema from pg_catalog.pg_tables
      where tablename in (${sql.join(tables)}) ${inSchema}`.execute(db);
    return rows.map((row) => ({ ...row, isView: false, isForeign: false, columns: [] }));
  };
  // The Migrator calls these two only (the interface's other members differ between Kysely 0.28 and 0.29).
  const introspection = {
    getSchemas: () => db.introspection.getSchemas(),
    getTables,
  } as unknown as DatabaseIntrospector;
  return new Proxy(db, {
    get(target, property) {
      if (property === "introspection") return introspection;
      // Kysely's methods read private fields: they run on the instance itself.
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
