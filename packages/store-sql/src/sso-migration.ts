import type { AnyKysely, SqlDialect, SqlTables } from "./context.js";
import type { Migration } from "./kysely-migration.js";
import { EPOCH_MS, keyColumn, required, schemaSteps } from "./schema-steps.js";

/**
 * `0019_sso`: enterprise sign-in's state (`SsoStore`, docs/sso.md) in four tables. Settings and
 * lists (a connection's SAML or OIDC settings, its domains) are JSON in `text` columns; times are
 * milliseconds (`bigint`), null where the record has none.
 *
 * - `<prefix>sso_connections`, one row per connection, keyed by `id`; `domains` is the record's
 *   list as given; `sso_required` and `idp_initiated` are 0 or 1. Indexes: `(organization_id,
 *   created_at)` for the organization's listing, oldest first; `scim_token_hash` for the read of
 *   every SCIM request.
 * - `<prefix>sso_connection_domains`, one row per domain a connection names, keyed by `domain`:
 *   the key makes "a domain belongs to at most one connection" hold in the database, under
 *   concurrent creates and updates. Index: `connection_id`, for changing or deleting the
 *   connection's domains.
 * - `<prefix>sso_domains`, one row per (organization, domain) claim. `verified_domain` is the
 *   domain once the claim is verified, else null, and is unique: "a domain is verified for at most
 *   one organization" holds in the database (a unique column null while unverified, since MySQL
 *   has no partial index). Listed by the primary key `(organization_id, domain)`.
 * - `<prefix>sso_assertions`, one row per used (connection, assertion id) until `expires_at`.
 *   Index: `expires_at`, for the sweep.
 *
 * No foreign key, like every table of the store: deleting a connection deletes its domain rows
 * and used assertions in the same transaction. Keys are at most 255 characters (two-column keys
 * stay within MySQL's 3072 bytes of an index in utf8mb4); on PostgreSQL they compare in byte order
 * (`collate "C"`), as on the other dialects (MySQL: the tables' `utf8mb4_bin`), so the domains'
 * listing reads the same everywhere. Index names stay short: with the longest prefix (31
 * characters) every name fits PostgreSQL's 63 and MySQL's 64.
 */
export function ssoSchema(tables: SqlTables, dialect: SqlDialect): Migration {
  const key = keyColumn(dialect);
  const KEY = required(key(255));
  const {
    ssoConnections: connections,
    ssoConnectionDomains: connectionDomains,
    ssoDomains: domains,
    ssoAssertions: assertions,
  } = tables;
  return {
    async up(db: AnyKysely) {
      const { createTable } = schemaSteps(db, dialect);
      const index = (table: string, name: string, columns: string[]) =>
        db.schema.createIndex(`${table}_${name}_idx`).on(table).columns(columns).execute();
      await createTable(connections, {
        id: [key(255), "primary key"],
        organization_id: KEY,
        type: required("varchar(16)"),
        saml: ["text"],
        oidc: ["text"],
        default_role: required("text"),
        domains: required("text"),
        sso_required: required("boolean"),
        idp_initiated: required("boolean"),
        scim_token_hash: [key(255)],
        created_at: EPOCH_MS,
        updated_at: EPOCH_MS,
      });
      await index(connections, "org", ["organization_id", "created_at"]);
      await index(connections, "scim", ["scim_token_hash"]);
      await createTable(connectionDomains, { domain: [key(255), "primary key"], connection_id: KEY });
      await index(connectionDomains, "conn", ["connection_id"]);
      await createTable(
        domains,
        {
          organization_id: KEY,
          domain: KEY,
          verification_token: required("text"),
          verified_at: ["bigint"],
          verified_domain: [key(255)],
          created_at: EPOCH_MS,
        },
        { primaryKey: ["organization_id", "domain"], unique: ["verified_domain"] },
      );
      await createTable(
        assertions,
        { connection_id: KEY, assertion_id: KEY, expires_at: EPOCH_MS },
        { primaryKey: ["connection_id", "assertion_id"] },
      );
      await index(assertions, "expires", ["expires_at"]);
    },
    async down(db: AnyKysely) {
      for (const table of [assertions, domains, connectionDomains, connections]) {
        await db.schema.dropTable(table).ifExists().execute();
      }
    },
  };
}
