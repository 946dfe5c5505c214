import { createHash } from "node:crypto";
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: the ledger and store-sql's tables are not part of a host database type.
export type AnyKysely = Kysely<any>;

/**
 * The import ledger, `<prefix>import_ledger`: which source id became which account. It is what
 * makes a re-run idempotent (a source id already in it is skipped before anything is read or
 * written) and tells a duplicate address within one source (`duplicate_email`) from an account
 * that was already in the target (`email_taken`). The core never reads it; drop it after the
 * cut-over.
 */
export interface Ledger {
  /** Whether the table exists (a dry run creates nothing, so it reads an absent ledger as empty). */
  exists(): Promise<boolean>;
  /** Creates the table when absent (primary key: source and source id; unique: source and user id). */
  create(): Promise<void>;
  /** Whether this source id was imported from `source`. */
  has(source: string, sourceId: string): Promise<boolean>;
  /** Whether this account was created by an import from `source`. */
  created(source: string, userId: string): Promise<boolean>;
  /** Records an import, through `db` (the transaction that created the account). */
  record(
    db: AnyKysely,
    entry: { source: string; sourceId: string; userId: string; at: number },
  ): Promise<void>;
}

/** The longest key kept as it is; a longer one is kept as its SHA-256 (still unique, fits an index on every dialect). */
const MAX_KEY = 190;
const key = (value: string) =>
  value.length <= MAX_KEY ? value : `sha256:${createHash("sha256").update(value).digest("base64url")}`;

/** The ledger in `<tablePrefix>import_ledger` of `db`, through Kysely: the same on SQLite, PostgreSQL and MySQL. */
export function sqlLedger(db: AnyKysely, tablePrefix = "portcullis_"): Ledger {
  const table = `${tablePrefix}import_ledger`;
  return {
    async exists() {
      const tables = await db.introspection.getTables();
      return tables.some((found) => found.name === table);
    },
    async create() {
      await db.schema
        .createTable(table)
        .ifNotExists()
        .addColumn("source", "varchar(191)", (column) => column.notNull())
        .addColumn("source_id", "varchar(191)", (column) => column.notNull())
        .addColumn("user_id", "varchar(191)", (column) => column.notNull())
        .addColumn("imported_at", "bigint", (column) => column.notNull())
        .addPrimaryKeyConstraint(`${table}_pk`, ["source", "source_id"])
        .addUniqueConstraint(`${table}_user`, ["source", "user_id"])
        .execute();
    },
    async has(source, sourceId) {
      const row = await db
        .selectFrom(table)
        .select("user_id")
        .where("source", "=", key(source))
        .where("source_id", "=", key(sourceId))
        .executeTakeFirst();
      return row !== undefined;
    },
    async created(source, userId) {
      const row = await db
        .selectFrom(table)
        .select("source_id")
        .where("source", "=", key(source))
        .where("user_id", "=", userId)
        .executeTakeFirst();
      return row !== undefined;
    },
    async record(trx, { source, sourceId, userId, at }) {
      await trx
        .insertInto(table)
        .values({ source: key(source), source_id: key(sourceId), user_id: userId, imported_at: at })
        .execute();
    },
  };
}
