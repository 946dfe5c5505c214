export { type SqlDialect, type SqlTables, tableNames } from "./context.js";
export { createSqlMigrator, type MigrateOptions, migrate, sqlMigrations } from "./migrations.js";
export { createSqlStores, type SqlStores, type SqlStoresOptions } from "./sql-stores.js";
