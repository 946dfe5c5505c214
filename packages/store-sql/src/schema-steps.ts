import {
  type ColumnBuilderCallback,
  type ColumnDataType,
  type CreateTableBuilder,
  type Expression,
  sql,
} from "kysely";
import type { AnyKysely, SqlDialect } from "./context.js";

/** A column: its SQL type, then `primary key` or `not null` (nullable without either). */
export type Column = readonly [
  type: ColumnDataType | Expression<unknown>,
  constraint?: "primary key" | "not null",
];

/** A `not null` column of `type`. */
export const required = (type: Column[0]): Column => [type, "not null"];
/** A single-column primary key of ids. */
export const PRIMARY_ID: Column = ["varchar(255)", "primary key"];
/** Ids, hashes and provider subjects: compared byte for byte (binary collation on MySQL). */
export const ID = required("varchar(255)");
/** An instant, in milliseconds since the epoch. */
export const EPOCH_MS = required("bigint");

/**
 * A key column's type of `length` characters: compared byte for byte, on PostgreSQL by its
 * `collate "C"` (an index on it serves prefix lookups and orders as every store does).
 */
export function keyColumn(dialect: SqlDialect): (length: number) => Column[0] {
  return (length) =>
    dialect === "postgres" ? sql.raw(`varchar(${length}) collate "C"`) : `varchar(${length})`;
}

const CONSTRAINTS: Record<NonNullable<Column[1]>, ColumnBuilderCallback> = {
  "primary key": (col) => col.primaryKey(),
  "not null": (col) => col.notNull(),
};

/** The statements the migrations are made of, on `db` in `dialect`. */
export function schemaSteps(db: AnyKysely, dialect: SqlDialect) {
  // MySQL compares strings case-insensitively by default: ids and token hashes must not be.
  const finishTable =
    dialect === "mysql" ? sql`engine = InnoDB default charset = utf8mb4 collate = utf8mb4_bin` : sql``;
  return {
    /**
     * A table of `columns` in order, with the primary key `<table>_pkey` and the unique key
     * `<table>_<columns>_key` when `keys` names them.
     */
    async createTable(
      table: string,
      columns: Record<string, Column>,
      keys: { primaryKey?: string[]; unique?: string[] } = {},
    ): Promise<void> {
      let builder: CreateTableBuilder<string, string> = db.schema.createTable(table);
      for (const [name, [type, constraint]] of Object.entries(columns)) {
        builder = builder.addColumn(name, type, constraint && CONSTRAINTS[constraint]);
      }
      if (keys.primaryKey) builder = builder.addPrimaryKeyConstraint(`${table}_pkey`, keys.primaryKey);
      if (keys.unique)
        builder = builder.addUniqueConstraint(`${table}_${keys.unique.join("_")}_key`, keys.unique);
      await builder.modifyEnd(finishTable).execute();
    },
    /** One index `<table>_<columns>_idx` for each list of columns. */
    async createIndexes(table: string, ...indexes: string[][]): Promise<void> {
      for (const columns of indexes) {
        await db.schema
          .createIndex(`${table}_${columns.join("_")}_idx`)
          .on(table)
          .columns(columns)
          .execute();
      }
    },
  };
}
