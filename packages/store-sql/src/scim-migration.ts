import { sql } from "kysely";
import type { AnyKysely, SqlDialect, SqlTables } from "./context.js";
import type { Migration } from "./kysely-migration.js";
import { EPOCH_MS, keyColumn, required, schemaSteps } from "./schema-steps.js";

/**
 * `0020_scim`: each SSO connection's SCIM directory (`ScimStore`, docs/sso.md) in three tables.
 * Times are milliseconds (`bigint`); `version` starts at 1 and moves on with each update.
 *
 * - `<prefix>scim_users`, one row per SCIM user, keyed by `id`. `user_name` and `external_id` are
 *   kept as given (`text`); beside them, `user_name_key` (the lower-cased name) and
 *   `external_id_key` (the id as given) are what is indexed and compared (`scimKey`: the value
 *   itself, or its SHA-256 when it is long, so up to 1,024 characters fit a key). Unique keys:
 *   `(connection_id, user_name_key)` and `(connection_id, user_id)`, so that a connection has one
 *   user of a name in any case and one per account under concurrent creates and updates too.
 *   Indexes: `(connection_id, external_id_key)`, `(connection_id, id)` for the connection's pages
 *   and count. `active` is 0 or 1; `attributes` is JSON (MySQL: `mediumtext`, since a user's
 *   hundred addresses may pass `text`'s 64 KB).
 * - `<prefix>scim_groups`, one row per group, keyed by `id`; `display_name_key` (the lower-cased
 *   name, as above) is unique per connection. Indexes: `(connection_id, external_id_key)`,
 *   `(connection_id, id)`.
 * - `<prefix>scim_group_members`, one row per (group, member), keyed by `(group_id,
 *   user_scim_id)`. Index: `(connection_id, user_scim_id)`, for a user's groups and for removing
 *   a user or a connection.
 *
 * No foreign key, like every table of the store: deleting a user or a group deletes its
 * memberships in the same transaction. Keys are at most 255 characters, so the two-column keys
 * stay within MySQL's 3072 bytes of an index (utf8mb4); on PostgreSQL they compare in byte order
 * (`collate "C"`), as on the other dialects (MySQL: the tables' `utf8mb4_bin`), so pages and
 * member lists read in the same order everywhere. Index names stay short: with the longest prefix
 * (31 characters) every name fits PostgreSQL's 63 and MySQL's 64.
 */
export function scimSchema(tables: SqlTables, dialect: SqlDialect): Migration {
  const key = keyColumn(dialect);
  const KEY = required(key(255));
  const JSON_TEXT = required(dialect === "mysql" ? sql`mediumtext` : "text");
  const { scimUsers: users, scimGroups: groups, scimGroupMembers: members } = tables;
  return {
    async up(db: AnyKysely) {
      const { createTable } = schemaSteps(db, dialect);
      const index = (table: string, name: string, columns: string[]) =>
        db.schema.createIndex(`${table}_${name}_idx`).on(table).columns(columns).execute();
      const uniqueKey = (table: string, name: string, columns: string[]) =>
        db.schema.createIndex(`${table}_${name}_key`).unique().on(table).columns(columns).execute();
      await createTable(users, {
        id: [key(255), "primary key"],
        connection_id: KEY,
        user_id: KEY,
        user_name: required("text"),
        user_name_key: KEY,
        external_id: ["text"],
        external_id_key: [key(255)],
        active: required("boolean"),
        suspended_role: ["text"],
        attributes: JSON_TEXT,
        version: required("integer"),
        created_at: EPOCH_MS,
        updated_at: EPOCH_MS,
      });
      await uniqueKey(users, "name", ["connection_id", "user_name_key"]);
      await uniqueKey(users, "user", ["connection_id", "user_id"]);
      await index(users, "ext", ["connection_id", "external_id_key"]);
      await index(users, "conn", ["connection_id", "id"]);
      await createTable(groups, {
        id: [key(255), "primary key"],
        connection_id: KEY,
        display_name: required("text"),
        display_name_key: KEY,
        external_id: ["text"],
        external_id_key: [key(255)],
        role: ["text"],
        version: required("integer"),
        created_at: EPOCH_MS,
        updated_at: EPOCH_MS,
      });
      await uniqueKey(groups, "name", ["connection_id", "display_name_key"]);
      await index(groups, "ext", ["connection_id", "external_id_key"]);
      await index(groups, "conn", ["connection_id", "id"]);
      await createTable(
        members,
        { connection_id: KEY, group_id: KEY, user_scim_id: KEY },
        { primaryKey: ["group_id", "user_scim_id"] },
      );
      await index(members, "user", ["connection_id", "user_scim_id"]);
    },
    async down(db: AnyKysely) {
      for (const table of [members, groups, users]) {
        await db.schema.dropTable(table).ifExists().execute();
      }
    },
  };
}
