import { sql } from "kysely";
import { type Migration, type MigrationResult, Migrator } from "kysely/migration";
import { type AnyKysely, detectDialect, type SqlDialect, type SqlTables, tableNames } from "./context.js";

export interface MigrateOptions {
  /** The prefix of every table (the same one given to `createSqlStores`). Default `portcullis_`. */
  tablePrefix?: string;
  /** Only needed when the dialect cannot be told from the Kysely instance. */
  dialect?: SqlDialect;
}

/**
 * The schema, as versioned migrations. A migration, once released, never changes: a new
 * version of the schema is a new entry here. The names sort in the order they run.
 */
export function sqlMigrations(tables: SqlTables, dialect: SqlDialect): Record<string, Migration> {
  const mysql = dialect === "mysql";
  // MySQL compares strings case-insensitively by default: ids and token hashes must not be.
  const finishTable = mysql ? sql`engine = InnoDB default charset = utf8mb4 collate = utf8mb4_bin` : sql``;
  return {
    "0001_initial": {
      async up(db: AnyKysely) {
        await db.schema
          .createTable(tables.users)
          .addColumn("id", "varchar(255)", (col) => col.primaryKey())
          .addColumn("email", "varchar(320)", (col) => col.notNull())
          .addColumn("email_verified", "boolean", (col) => col.notNull())
          .addColumn("name", "text")
          .addColumn("password_hash", "text")
          .addColumn("identity_providers", "text", (col) => col.notNull())
          .addColumn("two_factor_methods", "text", (col) => col.notNull())
          .addColumn("two_factor_preferred_method", "varchar(16)")
          .addColumn("totp_secret_encrypted", "text")
          .addColumn("recovery_code_hashes", "text", (col) => col.notNull())
          .addColumn("created_at", "bigint", (col) => col.notNull())
          .addUniqueConstraint(`${tables.users}_email_key`, ["email"])
          .modifyEnd(finishTable)
          .execute();

        await db.schema
          .createTable(tables.sessions)
          .addColumn("id", "varchar(255)", (col) => col.primaryKey())
          .addColumn("user_id", "varchar(255)", (col) => col.notNull())
          .addColumn("browser", "text")
          .addColumn("os", "text")
          .addColumn("ip", "text")
          .addColumn("created_at", "bigint", (col) => col.notNull())
          .addColumn("last_active_at", "bigint", (col) => col.notNull())
          .addColumn("refresh_token_hash", "varchar(255)", (col) => col.notNull())
          .addColumn("previous_refresh_token_hashes", "text", (col) => col.notNull())
          .addColumn("access_token_jti", "varchar(255)", (col) => col.notNull())
          .addColumn("access_token_expires_at", "bigint", (col) => col.notNull())
          .addColumn("expires_at", "bigint", (col) => col.notNull())
          .addUniqueConstraint(`${tables.sessions}_access_token_jti_key`, ["access_token_jti"])
          .modifyEnd(finishTable)
          .execute();
        await db.schema
          .createIndex(`${tables.sessions}_user_id_idx`)
          .on(tables.sessions)
          .column("user_id")
          .execute();
        await db.schema
          .createIndex(`${tables.sessions}_expires_at_idx`)
          .on(tables.sessions)
          .column("expires_at")
          .execute();

        await db.schema
          .createTable(tables.tokens)
          .addColumn("purpose", "varchar(64)", (col) => col.notNull())
          .addColumn("token_hash", "varchar(255)", (col) => col.notNull())
          .addColumn("user_id", "varchar(255)", (col) => col.notNull())
          .addColumn("expires_at", "bigint", (col) => col.notNull())
          .addColumn("data", "text")
          .addColumn("delete_at", "bigint", (col) => col.notNull())
          .addPrimaryKeyConstraint(`${tables.tokens}_pkey`, ["purpose", "token_hash"])
          .modifyEnd(finishTable)
          .execute();
        await db.schema
          .createIndex(`${tables.tokens}_user_id_purpose_idx`)
          .on(tables.tokens)
          .columns(["user_id", "purpose"])
          .execute();
        await db.schema
          .createIndex(`${tables.tokens}_delete_at_idx`)
          .on(tables.tokens)
          .column("delete_at")
          .execute();

        for (const [table, extra] of [
          [tables.cooldowns, "holder"],
          [tables.counters, "hits"],
        ] as const) {
          await db.schema
            .createTable(table)
            .addColumn("id", "varchar(255)", (col) => col.primaryKey())
            .addColumn(extra, extra === "hits" ? "integer" : "varchar(64)", (col) => col.notNull())
            .addColumn("expires_at", "bigint", (col) => col.notNull())
            .modifyEnd(finishTable)
            .execute();
          await db.schema.createIndex(`${table}_expires_at_idx`).on(table).column("expires_at").execute();
        }
      },
      async down(db: AnyKysely) {
        for (const table of [
          tables.counters,
          tables.cooldowns,
          tables.tokens,
          tables.sessions,
          tables.users,
        ]) {
          await db.schema.dropTable(table).ifExists().execute();
        }
      },
    },
    "0002_identities": {
      async up(db: AnyKysely) {
        await db.schema
          .createTable(tables.identities)
          .addColumn("issuer", "varchar(255)", (col) => col.notNull())
          .addColumn("subject", "varchar(255)", (col) => col.notNull())
          .addColumn("user_id", "varchar(255)", (col) => col.notNull())
          .addColumn("provider", "varchar(64)", (col) => col.notNull())
          .addColumn("email", "varchar(320)")
          .addColumn("created_at", "bigint", (col) => col.notNull())
          .addPrimaryKeyConstraint(`${tables.identities}_pkey`, ["issuer", "subject"])
          .addUniqueConstraint(`${tables.identities}_user_id_provider_key`, ["user_id", "provider"])
          .modifyEnd(finishTable)
          .execute();
      },
      async down(db: AnyKysely) {
        await db.schema.dropTable(tables.identities).ifExists().execute();
      },
    },
  };
}

/** A Kysely `Migrator` for the store's schema, with its own bookkeeping tables (`<prefix>migrations`). */
export function createSqlMigrator(db: AnyKysely, options: MigrateOptions = {}): Migrator {
  const tables = tableNames(options.tablePrefix);
  const migrations = sqlMigrations(tables, options.dialect ?? detectDialect(db));
  return new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: tables.migrations,
    migrationLockTableName: tables.migrationLock,
  });
}

/**
 * Brings the store's tables to the latest schema version (creating them on first run); safe to
 * run at every start and from several processes at once (Kysely's migration lock). Rejects with
 * the migration's error when one fails. Resolves to the names of the migrations it applied.
 */
export async function migrate(db: AnyKysely, options: MigrateOptions = {}): Promise<string[]> {
  const { error, results } = await createSqlMigrator(db, options).migrateToLatest();
  if (error) {
    const failed = results?.find((result: MigrationResult) => result.status === "Error");
    throw new Error(
      `@portcullis/store-sql migration ${failed?.migrationName ?? ""} failed`.replace("  ", " "),
      {
        cause: error,
      },
    );
  }
  return (results ?? [])
    .filter((result) => result.status === "Success")
    .map((result) => result.migrationName);
}
