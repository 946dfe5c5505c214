import { sql } from "kysely";
import type { AnyKysely, SqlDialect, SqlTables } from "./context.js";
import type { Migration } from "./kysely-migration.js";
import { EPOCH_MS, required, schemaSteps } from "./schema-steps.js";

/**
 * `0017_signing_keys`: `<prefix>signing_keys`, one row per signing key of the OAuth / OpenID
 * provider (docs/architecture.md): its `kid`, algorithm, public JWK (JSON text), the private key
 * as the provider sealed it, and its times in milliseconds. A deployment has a few rows; the
 * index on `created_at` serves the newest-first listing and the check of a rotation.
 */
export function signingKeysSchema(tables: SqlTables, dialect: SqlDialect): Migration {
  const table = tables.signingKeys;
  return {
    async up(db: AnyKysely) {
      const { createTable } = schemaSteps(db, dialect);
      await createTable(table, {
        // Byte order on PostgreSQL too, so the listing's ties sort alike on every dialect.
        kid: [dialect === "postgres" ? sql.raw('varchar(64) collate "C"') : "varchar(64)", "primary key"],
        alg: required("varchar(16)"),
        public_jwk: required("text"),
        sealed_private_key: required("text"),
        created_at: EPOCH_MS,
        activates_at: EPOCH_MS,
      });
      await db.schema.createIndex(`${table}_created_idx`).on(table).columns(["created_at"]).execute();
    },
    async down(db: AnyKysely) {
      await db.schema.dropTable(table).ifExists().execute();
    },
  };
}
