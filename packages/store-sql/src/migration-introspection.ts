import { type DatabaseIntrospector, sql } from "kysely";
import type { AnyKysely, SqlDialect } from "./context.js";

/**
 * `db` as Kysely's Migrator should see it: its `introspection` looks for the migration's own
 * bookkeeping tables only, by name, in the catalog (`pg_tables`, `sqlite_master`,
 * `information_schema.tables`).
 *
 * Kysely's own introspection reads every column of every table of the database to answer "does
 * this table exist" (on SQLite a `pragma table_info` per table). On PostgreSQL it names each table
 * and schema again while it reads (`pg_get_serial_sequence`, `has_schema_privilege`): a table or
 * schema dropped by anyone during that read fails the migration with "relation … does not exist"
 * (42P01) or "schema … does not exist" (3F000). On every dialect the read grows with the
 * database: on a SQLite file holding 150 sets of the store's tables one migration took 7 s, most
 * of it this read. The narrow read resolves no names and costs the same on any database.
 */
export function withMigrationTablesIntrospection(
  db: AnyKysely,
  dialect: SqlDialect,
  schema: string | undefined,
  tables: readonly string[],
): AnyKysely {
  const getTables = async () => {
    const rows = await bookkeepingTables(db, dialect, schema, tables);
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

/** Which of `tables` exist (in `schema`, else the connection's own schema or database). */
async function bookkeepingTables(
  db: AnyKysely,
  dialect: SqlDialect,
  schema: string | undefined,
  tables: readonly string[],
): Promise<{ name: string; schema?: string }[]> {
  const names = sql.join(tables);
  if (dialect === "sqlite") {
    const { rows } = await sql<{ name: string }>`
      select name from sqlite_master where type = 'table' and name in (${names})`.execute(db);
    return rows;
  }
  if (dialect === "mysql") {
    const inSchema = schema === undefined ? sql`database()` : sql`${schema}`;
    const { rows } = await sql<{ name: string; schema: string }>`
      select table_name as name, table_schema as \`schema\` from information_schema.tables
      where table_name in (${names}) and table_schema = ${inSchema}`.execute(db);
    return rows;
  }
  const inSchema = schema === undefined ? sql`` : sql`and schemaname = ${schema}`;
  const { rows } = await sql<{ name: string; schema: string }>`
    select tablename as name, schemaname as schema from pg_catalog.pg_tables
    where tablename in (${names}) ${inSchema}`.execute(db);
  return rows;
}
