import { randomBytes } from "node:crypto";
import { createFakeClock } from "@portcullis/testing";
import { expect } from "vitest";
import type { AnyKysely } from "./context.js";
import { createSqlMigrator, migrate } from "./migrations.js";
import { createSqlStores } from "./sql-stores.js";

/**
 * Test support (not part of the package's exports) for the upgrade checks (`*-upgrade.ts`): stores
 * on a fake clock under a new table prefix on `db` (`letter` and 10 hex digits), their tables
 * migrated up to `migration` only. `upgrade` migrates them to the latest version (answering the
 * migrations applied); `downgrade` migrates them back down to `migration`, without an error.
 */
export async function storesAtMigration(db: AnyKysely, letter: string, migration: string) {
  const tablePrefix = `${letter}${randomBytes(5).toString("hex")}_`;
  const stores = createSqlStores({ db, clock: createFakeClock(), tablePrefix });
  await createSqlMigrator(db, { tablePrefix }).migrateTo(migration);
  return {
    tablePrefix,
    stores,
    upgrade: () => migrate(db, { tablePrefix }),
    async downgrade() {
      expect((await createSqlMigrator(db, { tablePrefix }).migrateTo(migration)).error).toBeUndefined();
    },
  };
}
