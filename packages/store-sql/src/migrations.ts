import { sql } from "kysely";
import { apiKeysSchema } from "./api-key-migration.js";
import { auditLogSchema } from "./audit-log-migration.js";
import { type AnyKysely, detectDialect, type SqlDialect, type SqlTables, tableNames } from "./context.js";
import { type Migration, type MigrationResult, Migrator } from "./kysely-migration.js";
import { withMigrationTablesIntrospection } from "./migration-introspection.js";
import { oauthSchema } from "./oauth-migration.js";
import { organizationsSchema } from "./organization-migration.js";
import { setPostgresSessionTimeouts } from "./postgres-pool.js";
import { EPOCH_MS, ID, PRIMARY_ID, required, schemaSteps } from "./schema-steps.js";
import { scimSchema } from "./scim-migration.js";
import { signingKeysSchema } from "./signing-key-migration.js";
import { retryWhileBusy } from "./sqlite-dialect.js";
import { ssoSchema } from "./sso-migration.js";
import { webhooksSchema } from "./webhook-migration.js";

export interface MigrateOptions {
  /** The prefix of every table (the same one given to `createSqlStores`). Default `portcullis_`. */
  tablePrefix?: string;
  /** Only needed when the dialect cannot be told from the Kysely instance. */
  dialect?: SqlDialect;
  /**
   * PostgreSQL: the schema of the migration bookkeeping tables. `migrate` uses the connection's
   * `current_schema()`; without one, Kysely's Migrator looks for its tables in every schema of the
   * database and, when another schema has them, skips creating its own.
   */
  migrationTableSchema?: string;
}

/**
 * The schema, as versioned migrations. A migration, once released, never changes: a new
 * version of the schema is a new entry here. The names sort in the order they run.
 */
export function sqlMigrations(tables: SqlTables, dialect: SqlDialect): Record<string, Migration> {
  return {
    "0001_initial": initialSchema(tables, dialect),
    "0002_identities": identitiesTable(tables, dialect),
    "0003_last_sign_in": addedColumn(tables.users, "last_sign_in_at", "bigint"),
    "0004_token_claims": addedColumn(tables.tokens, "claimed_until", "bigint"),
    "0005_access_token_allowlist": accessTokenAllowlist(tables, dialect),
    "0006_session_rotated_at": addedColumn(tables.sessions, "rotated_at", "bigint"),
    "0007_session_remember_me": addedColumn(tables.sessions, "remember_me", "smallint"),
    "0008_activity": activityTable(tables, dialect),
    "0010_passkeys": passkeysTable(tables, dialect),
    "0012_back_office": backOffice(tables, dialect),
    "0013_organizations": organizationsSchema(tables, dialect),
    "0014_api_keys": apiKeysSchema(tables, dialect),
    "0015_audit_log": auditLogSchema(tables, dialect),
    "0016_webhooks": webhooksSchema(tables, dialect),
    "0017_signing_keys": signingKeysSchema(tables, dialect),
    "0018_oauth": oauthSchema(tables, dialect),
    "0019_sso": ssoSchema(tables, dialect),
    "0020_scim": scimSchema(tables, dialect),
  };
}

/** Users, sessions, single-use tokens, cooldowns and counters. */
function initialSchema(tables: SqlTables, dialect: SqlDialect): Migration {
  return {
    async up(db: AnyKysely) {
      const { createTable, createIndexes } = schemaSteps(db, dialect);
      await createTable(
        tables.users,
        {
          id: PRIMARY_ID,
          email: required("varchar(320)"),
          email_verified: required("boolean"),
          name: ["text"],
          password_hash: ["text"],
          identity_providers: required("text"),
          two_factor_methods: required("text"),
          two_factor_preferred_method: ["varchar(16)"],
          totp_secret_encrypted: ["text"],
          recovery_code_hashes: required("text"),
          created_at: EPOCH_MS,
        },
        { unique: ["email"] },
      );

      await createTable(
        tables.sessions,
        {
          id: PRIMARY_ID,
          user_id: ID,
          browser: ["text"],
          os: ["text"],
          ip: ["text"],
          created_at: EPOCH_MS,
          last_active_at: EPOCH_MS,
          refresh_token_hash: ID,
          previous_refresh_token_hashes: required("text"),
          access_token_jti: ID,
          access_token_expires_at: EPOCH_MS,
          expires_at: EPOCH_MS,
        },
        { unique: ["access_token_jti"] },
      );
      await createIndexes(tables.sessions, ["user_id"], ["expires_at"]);

      await createTable(
        tables.tokens,
        {
          purpose: required("varchar(64)"),
          token_hash: ID,
          user_id: ID,
          expires_at: EPOCH_MS,
          data: ["text"],
          delete_at: EPOCH_MS,
        },
        { primaryKey: ["purpose", "token_hash"] },
      );
      await createIndexes(tables.tokens, ["user_id", "purpose"], ["delete_at"]);

      for (const [table, column, type] of [
        [tables.cooldowns, "holder", "varchar(64)"],
        [tables.counters, "hits", "integer"],
      ] as const) {
        await createTable(table, { id: PRIMARY_ID, [column]: required(type), expires_at: EPOCH_MS });
        await createIndexes(table, ["expires_at"]);
      }
    },
    async down(db: AnyKysely) {
      for (const table of [tables.counters, tables.cooldowns, tables.tokens, tables.sessions, tables.users]) {
        await db.schema.dropTable(table).ifExists().execute();
      }
    },
  };
}

/** The identities that providers vouch for, linked to accounts. */
function identitiesTable(tables: SqlTables, dialect: SqlDialect): Migration {
  return tableMigration(tables.identities, async (db) => {
    await schemaSteps(db, dialect).createTable(
      tables.identities,
      {
        issuer: ID,
        subject: ID,
        user_id: ID,
        provider: required("varchar(64)"),
        email: ["varchar(320)"],
        created_at: EPOCH_MS,
      },
      { primaryKey: ["issuer", "subject"], unique: ["user_id", "provider"] },
    );
  });
}

/**
 * The access-token allowlist in a table of its own (`AccessTokenAllowlist`), keyed by `jti`.
 * Until now a session row held its current access token; every session's is copied over with
 * the earlier of the two expiries (the old allowlist read both), so access tokens issued before
 * the upgrade keep working. Rows copied for sessions that have expired read as absent and are
 * swept. The sessions' columns stay (released columns never change).
 */
function accessTokenAllowlist(tables: SqlTables, dialect: SqlDialect): Migration {
  return tableMigration(tables.accessTokens, async (db) => {
    const { createTable, createIndexes } = schemaSteps(db, dialect);
    await createTable(tables.accessTokens, {
      jti: PRIMARY_ID,
      user_id: ID,
      session_id: ID,
      expires_at: EPOCH_MS,
    });
    await createIndexes(tables.accessTokens, ["expires_at"]);
    await db
      .insertInto(tables.accessTokens)
      .columns(["jti", "user_id", "session_id", "expires_at"])
      .expression(
        db
          .selectFrom(tables.sessions)
          .select([
            "access_token_jti",
            "user_id",
            "id",
            sql`case when access_token_expires_at < expires_at then access_token_expires_at else expires_at end`.as(
              "expires_at",
            ),
          ]),
      )
      .execute();
  });
}

/**
 * Each user's security events: listed newest first through (user_id, at, id), swept by `at`.
 * Free text (browser, OS, reason) is `text`; `type` is a security event's name.
 */
function activityTable(tables: SqlTables, dialect: SqlDialect): Migration {
  return tableMigration(tables.activity, async (db) => {
    const { createTable, createIndexes } = schemaSteps(db, dialect);
    await createTable(tables.activity, {
      id: PRIMARY_ID,
      user_id: ID,
      type: required("varchar(64)"),
      at: EPOCH_MS,
      ip: ["text"],
      browser: ["text"],
      os: ["text"],
      reason: ["text"],
    });
    await createIndexes(tables.activity, ["user_id", "at", "id"], ["at"]);
  });
}

/**
 * The back office (`admin.*`): on users, the lock (`locked_at` in ms, `lock_reason`, `locked_by`)
 * and `password_change_required` (0 or 1), all null on existing rows (not locked, no change
 * required); on sessions, `impersonated_by` (null: the user's own session). And the index the
 * address-prefix listing scans: on PostgreSQL `email collate "C"` (byte order, so a prefix is one
 * range of it whatever the database's collation); SQLite and MySQL (the table's `utf8mb4_bin`)
 * already compare emails byte for byte, and the unique key on email serves.
 */
function backOffice(tables: SqlTables, dialect: SqlDialect): Migration {
  return {
    async up(db: AnyKysely) {
      for (const [column, type] of [
        ["locked_at", "bigint"],
        ["lock_reason", "text"],
        ["locked_by", "varchar(255)"],
        ["password_change_required", "smallint"],
      ] as const) {
        await db.schema.alterTable(tables.users).addColumn(column, type).execute();
      }
      await db.schema.alterTable(tables.sessions).addColumn("impersonated_by", "varchar(255)").execute();
      if (dialect === "postgres") {
        await db.schema
          .createIndex(`${tables.users}_email_c_idx`)
          .on(tables.users)
          .expression(sql`email collate "C"`)
          .execute();
      }
    },
    async down(db: AnyKysely) {
      if (dialect === "postgres")
        await db.schema.dropIndex(`${tables.users}_email_c_idx`).ifExists().execute();
      await db.schema.alterTable(tables.sessions).dropColumn("impersonated_by").execute();
      for (const column of ["password_change_required", "locked_by", "lock_reason", "locked_at"]) {
        await db.schema.alterTable(tables.users).dropColumn(column).execute();
      }
    },
  };
}

/**
 * Passkeys (WebAuthn credentials): keyed by the credential id (its SHA-256 when longer than 200
 * characters; the full id in `credential_id`), listed per user through `user_id`.
 */
function passkeysTable(tables: SqlTables, dialect: SqlDialect): Migration {
  return tableMigration(tables.passkeys, async (db) => {
    const { createTable, createIndexes } = schemaSteps(db, dialect);
    await createTable(tables.passkeys, {
      id: PRIMARY_ID,
      credential_id: required("text"),
      user_id: ID,
      public_key: required("text"),
      counter: required("bigint"),
      transports: required("text"),
      backup_eligible: required("boolean"),
      backed_up: required("boolean"),
      name: required("text"),
      created_at: EPOCH_MS,
      last_used_at: ["bigint"],
    });
    await createIndexes(tables.passkeys, ["user_id"]);
  });
}

/**
 * A migration that adds one nullable column to `table`: a `bigint` (milliseconds, null until set)
 * or a `smallint` (0 or 1; null: not set), so existing rows start without a value. Used by:
 * - `0003_last_sign_in`: `last_sign_in_at` on users: the login alert is not sent for an
 *   account's first sign-in; existing users start at null, so each one's next sign-in after the
 *   upgrade sends no alert.
 * - `0004_token_claims`: `claimed_until` on tokens: `claimToken` holds a link token while its work
 *   runs, so the token is consumed only once its effect is complete; existing tokens start unclaimed.
 * - `0006_session_rotated_at`: `rotated_at` on sessions: when the latest rotation happened, for the
 *   refresh reuse interval; existing sessions start at null, so their parent token is reuse at once
 *   until their next rotation.
 * - `0007_session_remember_me`: `remember_me` (`smallint`) on sessions: 0 when the user chose not to
 *   stay signed in (browser-session cookies on every refresh); existing sessions start at null,
 *   which reads as remembered, as they were.
 */
function addedColumn(table: string, column: string, type: "bigint" | "smallint"): Migration {
  return {
    async up(db: AnyKysely) {
      await db.schema.alterTable(table).addColumn(column, type).execute();
    },
    async down(db: AnyKysely) {
      await db.schema.alterTable(table).dropColumn(column).execute();
    },
  };
}

/** A migration that creates one table with `up` and drops it on the way down. */
function tableMigration(table: string, up: (db: AnyKysely) => Promise<void>): Migration {
  return {
    up,
    async down(db: AnyKysely) {
      await db.schema.dropTable(table).ifExists().execute();
    },
  };
}

/** A Kysely `Migrator` for the store's schema, with its own bookkeeping tables (`<prefix>migrations`). */
export function createSqlMigrator(db: AnyKysely, options: MigrateOptions = {}): Migrator {
  const tables = tableNames(options.tablePrefix);
  const dialect = options.dialect ?? detectDialect(db);
  const migrations = sqlMigrations(tables, dialect);
  const bookkeeping = [tables.migrations, tables.migrationLock];
  return new Migrator({
    db: withMigrationTablesIntrospection(db, dialect, options.migrationTableSchema, bookkeeping),
    provider: { getMigrations: async () => migrations },
    migrationTableName: tables.migrations,
    migrationLockTableName: tables.migrationLock,
    ...(options.migrationTableSchema ? { migrationTableSchema: options.migrationTableSchema } : {}),
  });
}

/**
 * How long a SQLite migration waits for another process's write lock (another process migrating
 * the same file, or writing to it) before it fails with `SQLITE_BUSY`.
 */
export const SQLITE_MIGRATION_LOCK_WAIT_MS = 30_000;

/**
 * Brings the store's tables to the latest schema version (creating them on first run); safe to
 * run at every start and from several processes at once. PostgreSQL and MySQL: Kysely's migration
 * lock. SQLite (where Kysely takes no lock and runs each migration outside a transaction): the
 * whole run is one `BEGIN IMMEDIATE` transaction, which holds the file's write lock, so a second
 * process waits for it (up to `SQLITE_MIGRATION_LOCK_WAIT_MS`, asynchronously), then finds the
 * migrations applied; a failed run leaves the file as it was. Rejects with the migration's error
 * when one fails. Resolves to the names of the migrations it applied.
 */
export async function migrate(db: AnyKysely, options: MigrateOptions = {}): Promise<string[]> {
  const dialect = options.dialect ?? detectDialect(db);
  if (dialect === "sqlite" && !db.isTransaction) {
    return db.connection().execute(async (connection) => {
      await retryWhileBusy(() => sql`begin immediate`.execute(connection), SQLITE_MIGRATION_LOCK_WAIT_MS);
      let applied: string[];
      try {
        applied = await migrateNow(connection, { ...options, dialect });
      } catch (error) {
        await sql`rollback`.execute(connection).catch(() => {});
        throw error;
      }
      await retryWhileBusy(() => sql`commit`.execute(connection), SQLITE_MIGRATION_LOCK_WAIT_MS);
      return applied;
    });
  }
  if (dialect === "postgres" && !db.isTransaction) {
    // The pool's timeouts bound requests (1 s by default); a migration run, or the wait for
    // another process's run (Kysely's migration lock), may take longer: one connection of the
    // pool runs it with PostgreSQL's timeouts raised (a pool guarded by `discardTimedOutConnections`
    // raises the client's with them), and gets the pool's back after it.
    return db.connection().execute(async (connection) => {
      await setPostgresSessionTimeouts(connection, POSTGRES_MIGRATION_TIMEOUT_MS);
      try {
        return await migrateNow(connection, { ...options, dialect });
      } finally {
        await setPostgresSessionTimeouts(connection, undefined).catch(() => {});
      }
    });
  }
  return migrateNow(db, { ...options, dialect });
}

/** PostgreSQL's statement and lock timeouts during a migration run (and its wait for another's). */
export const POSTGRES_MIGRATION_TIMEOUT_MS = 60_000;

async function migrateNow(
  db: AnyKysely,
  options: MigrateOptions & { dialect: SqlDialect },
): Promise<string[]> {
  const { dialect } = options;
  let migrationTableSchema = options.migrationTableSchema;
  if (dialect === "postgres" && migrationTableSchema === undefined) {
    const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
    migrationTableSchema = rows[0]?.schema ?? undefined;
  }
  const migrator = createSqlMigrator(db, { ...options, dialect, migrationTableSchema });
  const { error, results } = await migrator.migrateToLatest();
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
