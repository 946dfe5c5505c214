import type { AnyKysely, SqlDialect, SqlTables } from "./context.js";
import type { Migration } from "./kysely-migration.js";
import { EPOCH_MS, keyColumn, required, schemaSteps } from "./schema-steps.js";

/**
 * `0013_organizations`: organizations, their memberships, custom roles and invitations, and the
 * session's active organization (`active_organization_id` on sessions, null on existing rows: no
 * active organization).
 *
 * - `<prefix>organizations`: unique `slug`; `search_name` is the name in lower case (JavaScript's
 *   `toLowerCase`, the same on every dialect), for the back office's case-insensitive prefix search.
 * - `<prefix>memberships`: one row per (organization, user); read by user (oldest first), by
 *   organization (oldest first, the member listing's cursor) and by (organization, role) (owners,
 *   a role in use).
 * - `<prefix>organization_roles`: one row per (organization, name); `permissions` a JSON array.
 * - `<prefix>invitations`: unique `token_hash`; read by (organization, email) (a newer invitation
 *   replaces the older) and by email (the invited person's list).
 *
 * User ids carry no foreign key, like every table of the store, so the users may live in the
 * host's own table. On PostgreSQL the text keys compare in byte order (`collate "C"`), so
 * listings ordered by id page the same way whatever the database's collation; SQLite and MySQL
 * (the tables' `utf8mb4_bin`) already do. Index names stay short: with the longest prefix (31
 * characters) every name fits PostgreSQL's 63 and MySQL's 64.
 */
export function organizationsSchema(tables: SqlTables, dialect: SqlDialect): Migration {
  const key = keyColumn(dialect);
  const KEY = required(key(255));
  const ROLE = required(key(64));
  return {
    async up(db: AnyKysely) {
      const { createTable } = schemaSteps(db, dialect);
      const index = (table: string, name: string, columns: string[]) =>
        db.schema.createIndex(`${table}_${name}_idx`).on(table).columns(columns).execute();
      await createTable(
        tables.organizations,
        {
          id: [key(255), "primary key"],
          name: required("text"),
          search_name: required("text"),
          slug: required(key(64)),
          created_at: EPOCH_MS,
        },
        { unique: ["slug"] },
      );
      await createTable(
        tables.memberships,
        { organization_id: KEY, user_id: KEY, role: ROLE, joined_at: EPOCH_MS },
        { primaryKey: ["organization_id", "user_id"] },
      );
      await index(tables.memberships, "user", ["user_id", "joined_at"]);
      await index(tables.memberships, "joined", ["organization_id", "joined_at", "user_id"]);
      await index(tables.memberships, "role", ["organization_id", "role"]);
      await createTable(
        tables.organizationRoles,
        { organization_id: KEY, name: ROLE, permissions: required("text"), created_at: EPOCH_MS },
        { primaryKey: ["organization_id", "name"] },
      );
      await createTable(
        tables.invitations,
        {
          id: [key(255), "primary key"],
          organization_id: KEY,
          email: required(key(320)),
          role: ROLE,
          token_hash: KEY,
          invited_by: KEY,
          created_at: EPOCH_MS,
          expires_at: EPOCH_MS,
        },
        { unique: ["token_hash"] },
      );
      await index(tables.invitations, "organization", ["organization_id", "email"]);
      await index(tables.invitations, "email", ["email", "created_at"]);
      await index(tables.invitations, "expires", ["expires_at"]);
      await db.schema
        .alterTable(tables.sessions)
        .addColumn("active_organization_id", "varchar(255)")
        .execute();
    },
    async down(db: AnyKysely) {
      await db.schema.alterTable(tables.sessions).dropColumn("active_organization_id").execute();
      for (const table of [
        tables.invitations,
        tables.organizationRoles,
        tables.memberships,
        tables.organizations,
      ]) {
        await db.schema.dropTable(table).ifExists().execute();
      }
    },
  };
}
