import type * as KyselyMigration from "kysely/migration";

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

export const Migrator = api.Migrator;
export type Migrator = KyselyMigration.Migrator;
export type { Migration, MigrationResult } from "kysely/migration";
