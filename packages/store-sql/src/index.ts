export { type SqlDialect, type SqlTables, tableNames } from "./context.js";
export {
  createSqlMigrator,
  type MigrateOptions,
  migrate,
  POSTGRES_MIGRATION_TIMEOUT_MS,
  sqlMigrations,
} from "./migrations.js";
export {
  discardTimedOutConnections,
  type PgClientLike,
  type PgPoolLike,
  POSTGRES_PROBE_INTERVAL_MS,
  type PostgresConnectionOptions,
  PostgresNotAnsweringError,
  type PostgresPoolTimeoutOptions,
  type PostgresTimeouts,
  postgresPoolOptions,
} from "./postgres-pool.js";
export { type PreparedStatementOptions, preparePostgresStatements } from "./postgres-prepared.js";
export { createSqlStores, type SqlStores, type SqlStoresOptions } from "./sql-stores.js";
export { createSqliteDialect, SQLITE_ATTEMPT_BUSY_MS, type SqliteDialectOptions } from "./sqlite-dialect.js";
