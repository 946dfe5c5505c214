import type * as KyselyMigration from "kysely/migration";
import type { AnyKysely } from "./context.js";

/**
 * Kysely's migration API from whichever Kysely the host installed: 0.29 serves it at
 * `kysely/migration` only (its main entry keeps type errors pointing there), 0.28 on its main
 * entry only (it has no `kysely/migration`). The classes and their options are the same in both.
 */
const api: typeof KyselyMigration = await import("kysely/migration").catch(
  async (error: { code?: string }) => {
    if (error.code !== "ERR_PACKAGE_PATH_NOT_EXPORTED" && error.code !== "ERR_MODULE_NOT_FOUND") throw error;
    return (await import("kysely")) as unknown as typeof KyselyMigration;
  },
);

// The types of the package's declarations are written out here, as both Kysely versions declare
// them, so that they name neither `kysely/migration` (absent from 0.28) nor the main entry's
// migration types (type errors in 0.29).

/** One version of the schema (Kysely's `Migration`). */
export interface Migration {
  up(db: AnyKysely): Promise<void>;
  down?(db: AnyKysely): Promise<void>;
}

/** What happened to one migration in a run (Kysely's `MigrationResult`). */
export interface MigrationResult {
  readonly migrationName: string;
  readonly direction: "Up" | "Down";
  readonly status: "Success" | "Error" | "NotExecuted";
}

/** The outcome of a run: `error` set when one failed (Kysely's `MigrationResultSet`). */
export interface MigrationResultSet {
  readonly error?: unknown;
  readonly results?: MigrationResult[];
}

/** The options of Kysely's `Migrator` that both versions take. */
export interface MigratorProps {
  readonly db: AnyKysely;
  readonly provider: { getMigrations(): Promise<Record<string, Migration>> };
  readonly migrationTableName?: string;
  readonly migrationLockTableName?: string;
  readonly migrationTableSchema?: string;
  readonly allowUnorderedMigrations?: boolean;
}

/** The methods of Kysely's `Migrator` common to 0.28 and 0.29 (0.29 adds optional options). */
export interface Migrator {
  getMigrations(): Promise<ReadonlyArray<{ name: string; migration: Migration; executedAt?: Date }>>;
  migrateToLatest(): Promise<MigrationResultSet>;
  /** A migration's name, or Kysely's `NO_MIGRATIONS` to undo them all. */
  migrateTo(targetMigrationName: string | { readonly __noMigrations__: true }): Promise<MigrationResultSet>;
  migrateUp(): Promise<MigrationResultSet>;
  migrateDown(): Promise<MigrationResultSet>;
}

/** Kysely's `Migrator` class, from the host's Kysely. */
export const Migrator: new (props: MigratorProps) => Migrator = api.Migrator;
