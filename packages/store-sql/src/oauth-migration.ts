import type { AnyKysely, SqlDialect, SqlTables } from "./context.js";
import type { Migration } from "./kysely-migration.js";
import { EPOCH_MS, keyColumn, required, schemaSteps } from "./schema-steps.js";

/**
 * `0018_oauth`: the OAuth / OpenID provider's state (`OAuthStore`, docs/oauth-provider.md) in
 * four tables. Lists (redirect URIs, grant types, scopes, resources) are JSON arrays in `text`
 * columns; times are milliseconds (`bigint`), null where the record has none.
 *
 * - `<prefix>oauth_clients`, one row per client, keyed by `client_id` (listed in its order);
 *   `dynamic` is 0 or 1.
 * - `<prefix>oauth_grants`, one row per grant, revoked ones too until `expires_at`. Indexes:
 *   `(user_id, client_id)` for revoking a user's grants, `client_id` for deleting them with
 *   their client, `expires_at` for the sweep.
 * - `<prefix>oauth_consents`, one row per (user, client). Indexes: `(user_id, updated_at)` for
 *   the user's listing, latest first; `client_id` for deleting them with their client.
 * - `<prefix>oauth_devices`, one row per device authorization, keyed by the device code's hash;
 *   the user code's hash is unique. Indexes: `client_id`, `expires_at`.
 *
 * No foreign key, like every table of the store: deleting a client deletes its grants, consents
 * and device authorizations in the same transaction. Keys are at most 255 characters, so that the
 * two-column keys stay within MySQL's 3072 bytes of an index (utf8mb4). On PostgreSQL the text
 * keys compare in byte order (`collate "C"`), as on the other dialects (MySQL: the tables'
 * `utf8mb4_bin`), so the clients' listing reads the same. Index names stay short: with the
 * longest prefix (31 characters) every name fits PostgreSQL's 63 and MySQL's 64.
 */
export function oauthSchema(tables: SqlTables, dialect: SqlDialect): Migration {
  const key = keyColumn(dialect);
  const KEY = required(key(255));
  const LIST = required("text");
  const {
    oauthClients: clients,
    oauthGrants: grants,
    oauthConsents: consents,
    oauthDevices: devices,
  } = tables;
  return {
    async up(db: AnyKysely) {
      const { createTable } = schemaSteps(db, dialect);
      const index = (table: string, name: string, columns: string[]) =>
        db.schema.createIndex(`${table}_${name}_idx`).on(table).columns(columns).execute();
      await createTable(clients, {
        client_id: [key(255), "primary key"],
        name: required("text"),
        secret_hash: ["varchar(255)"],
        redirect_uris: LIST,
        grant_types: LIST,
        scopes: LIST,
        dynamic: required("boolean"),
        created_at: EPOCH_MS,
      });
      await createTable(grants, {
        grant_id: [key(255), "primary key"],
        client_id: KEY,
        user_id: [key(255)],
        scopes: LIST,
        resources: LIST,
        auth_time: ["bigint"],
        refresh_hash: [key(255)],
        created_at: EPOCH_MS,
        expires_at: EPOCH_MS,
        revoked_at: ["bigint"],
      });
      await index(grants, "user", ["user_id", "client_id"]);
      await index(grants, "client", ["client_id"]);
      await index(grants, "expires", ["expires_at"]);
      await createTable(
        consents,
        { user_id: KEY, client_id: KEY, scopes: LIST, created_at: EPOCH_MS, updated_at: EPOCH_MS },
        { primaryKey: ["user_id", "client_id"] },
      );
      await index(consents, "user", ["user_id", "updated_at"]);
      await index(consents, "client", ["client_id"]);
      await createTable(
        devices,
        {
          device_code_hash: [key(255), "primary key"],
          user_code_hash: KEY,
          client_id: KEY,
          scopes: LIST,
          resources: LIST,
          status: required("varchar(16)"),
          user_id: [key(255)],
          auth_time: ["bigint"],
          interval_seconds: required("integer"),
          last_polled_at: ["bigint"],
          expires_at: EPOCH_MS,
        },
        { unique: ["user_code_hash"] },
      );
      await index(devices, "client", ["client_id"]);
      await index(devices, "expires", ["expires_at"]);
    },
    async down(db: AnyKysely) {
      for (const table of [devices, consents, grants, clients]) {
        await db.schema.dropTable(table).ifExists().execute();
      }
    },
  };
}
