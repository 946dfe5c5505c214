import type { AnyKysely, SqlDialect, SqlTables } from "./context.js";
import type { Migration } from "./kysely-migration.js";
import { EPOCH_MS, keyColumn, required, schemaSteps } from "./schema-steps.js";

/**
 * `0015_audit_log`: the audit log (`AuditLogStore`) in two tables.
 *
 * - `<prefix>audit_log`, one row per entry, written once and never changed: keyed by `seq` (the
 *   entry's place in the deployment's chain, which the deployment's listing walks), `id` unique.
 *   Indexes: `(organization_id, seq)` for an organization's listing, `(type, seq)` and
 *   `(actor_id, seq)` for the listing's filters (each walked in `seq` order, so a page stops at its
 *   limit), and `(at)` for the retention sweep and the time filters.
 * - `<prefix>audit_heads`, one row per chain: `chain` is "" for the deployment's and the
 *   organization's id for each organization's; `seq` and `hash` are those of the chain's last
 *   entry (0 and "" before the first). An append locks the rows of its chains, so concurrent
 *   appends take turns; the heads outlive the entries that the retention sweeps.
 *
 * No foreign key, like every table of the store. On PostgreSQL the text keys compare in byte
 * order (`collate "C"`), as on the other dialects (MySQL: the table's `utf8mb4_bin`).
 */
export function auditLogSchema(tables: SqlTables, dialect: SqlDialect): Migration {
  const key = keyColumn(dialect);
  return {
    async up(db: AnyKysely) {
      const { createTable, createIndexes } = schemaSteps(db, dialect);
      await createTable(
        tables.auditLog,
        {
          seq: ["bigint", "primary key"],
          id: required(key(255)),
          at: EPOCH_MS,
          type: required(key(64)),
          actor_type: required("varchar(16)"),
          actor_id: [key(255)],
          user_id: [key(255)],
          organization_id: [key(255)],
          session_id: ["varchar(255)"],
          ip: ["text"],
          user_agent: ["text"],
          reason: ["text"],
          prev_hash: required("varchar(255)"),
          org_prev_hash: ["varchar(255)"],
          hash: required("varchar(255)"),
        },
        { unique: ["id"] },
      );
      await createIndexes(
        tables.auditLog,
        ["organization_id", "seq"],
        ["type", "seq"],
        ["actor_id", "seq"],
        ["at"],
      );
      await createTable(tables.auditHeads, {
        chain: [key(255), "primary key"],
        seq: required("bigint"),
        hash: required("varchar(255)"),
      });
    },
    async down(db: AnyKysely) {
      await db.schema.dropTable(tables.auditHeads).ifExists().execute();
      await db.schema.dropTable(tables.auditLog).ifExists().execute();
    },
  };
}
