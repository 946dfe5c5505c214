import type { AnyKysely, SqlDialect, SqlTables } from "./context.js";
import type { Migration } from "./kysely-migration.js";
import { EPOCH_MS, keyColumn, required, schemaSteps } from "./schema-steps.js";

/**
 * `0016_webhooks`: webhook endpoints and their deliveries (`WebhookStore`) in two tables.
 *
 * - `<prefix>webhook_endpoints`, one row per endpoint: `events` and `secrets` are JSON arrays,
 *   `enabled` is 0 or 1, `cursor` the audit `seq` the endpoint has dealt with, and `lease_owner`
 *   with `lease_until` (ms) the instance working on it and until when (both null when free). Index
 *   `(organization_id, created_at, id)` for a scope's listing, oldest first.
 * - `<prefix>webhook_deliveries`, one row per message to an endpoint. Indexes:
 *   `(endpoint_id, status, created_at, id)` for an endpoint's pending deliveries in order,
 *   `(endpoint_id, created_at, id)` for its listing (newest first) and for deleting them with it,
 *   and `(status, created_at)` for the sweep of finished ones. The index names are short, so that
 *   a 31-character prefix stays within MySQL's 64 characters.
 *
 * No foreign key, like every table of the store: deleting an endpoint deletes its deliveries in
 * the same transaction. On PostgreSQL the text keys compare in byte order (`collate "C"`), as on
 * the other dialects (MySQL: the table's `utf8mb4_bin`), so ties ordered by id read the same.
 */
export function webhooksSchema(tables: SqlTables, dialect: SqlDialect): Migration {
  const key = keyColumn(dialect);
  const { webhookEndpoints: endpoints, webhookDeliveries: deliveries } = tables;
  return {
    async up(db: AnyKysely) {
      const { createTable } = schemaSteps(db, dialect);
      const index = (table: string, name: string, columns: string[]) =>
        db.schema.createIndex(`${table}_${name}_idx`).on(table).columns(columns).execute();
      await createTable(endpoints, {
        id: [key(255), "primary key"],
        organization_id: [key(255)],
        url: required("text"),
        events: required("text"),
        enabled: required("boolean"),
        disabled_reason: ["varchar(16)"],
        secrets: required("text"),
        created_by: [key(255)],
        created_at: EPOCH_MS,
        cursor: required("bigint"),
        lease_owner: ["varchar(255)"],
        lease_until: ["bigint"],
      });
      await index(endpoints, "scope", ["organization_id", "created_at", "id"]);
      await createTable(deliveries, {
        id: [key(255), "primary key"],
        endpoint_id: required(key(255)),
        entry_id: required(key(255)),
        seq: required("bigint"),
        type: required("varchar(64)"),
        status: required("varchar(16)"),
        attempts: required("integer"),
        created_at: EPOCH_MS,
        last_attempt_at: ["bigint"],
        last_status_code: ["integer"],
        last_error: ["text"],
        next_attempt_at: ["bigint"],
        redelivery: required("boolean"),
      });
      await index(deliveries, "pending", ["endpoint_id", "status", "created_at", "id"]);
      await index(deliveries, "listed", ["endpoint_id", "created_at", "id"]);
      await index(deliveries, "sweep", ["status", "created_at"]);
    },
    async down(db: AnyKysely) {
      await db.schema.dropTable(deliveries).ifExists().execute();
      await db.schema.dropTable(endpoints).ifExists().execute();
    },
  };
}
