import type { AnyKysely, SqlDialect, SqlTables } from "./context.js";
import type { Migration } from "./kysely-migration.js";
import { EPOCH_MS, keyColumn, required, schemaSteps } from "./schema-steps.js";

/**
 * `0014_api_keys`: `<prefix>api_keys`, one row per API key (never the key, only its keyed hash).
 *
 * - `lookup_id` is unique: a request's key is found by it with one read of that unique index.
 * - `user_id` and `organization_id` are indexed for the two listings (a user's own keys, an
 *   organization's keys) and for deleting them with the account or the organization.
 * - `permissions` is a JSON array (null for a user's key); times are milliseconds, `expires_at`
 *   and `last_used_at` null when never.
 *
 * Like every table of the store, no foreign key: the users may live in the host's own table, and
 * the organization store deletes an organization's keys in the transaction that deletes it. On
 * PostgreSQL the text keys compare in byte order (`collate "C"`), so the listing's order by id
 * is the same on every dialect (MySQL: the table's `utf8mb4_bin`).
 */
export function apiKeysSchema(tables: SqlTables, dialect: SqlDialect): Migration {
  const key = keyColumn(dialect);
  const table = tables.apiKeys;
  return {
    async up(db: AnyKysely) {
      const { createTable } = schemaSteps(db, dialect);
      const index = (name: string, columns: string[]) =>
        db.schema.createIndex(`${table}_${name}_idx`).on(table).columns(columns).execute();
      await createTable(
        table,
        {
          id: [key(255), "primary key"],
          lookup_id: required(key(64)),
          key_hash: required(key(255)),
          name: required("text"),
          start: required("varchar(64)"),
          user_id: required(key(255)),
          organization_id: [key(255)],
          permissions: ["text"],
          created_at: EPOCH_MS,
          expires_at: ["bigint"],
          last_used_at: ["bigint"],
        },
        { unique: ["lookup_id"] },
      );
      await index("user", ["user_id"]);
      await index("organization", ["organization_id"]);
    },
    async down(db: AnyKysely) {
      await db.schema.dropTable(table).ifExists().execute();
    },
  };
}
