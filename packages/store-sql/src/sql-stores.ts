import {
  type AccessTokenAllowlist,
  type ActivityStore,
  type ApiKeyStore,
  type AuditLogStore,
  type Clock,
  type CooldownStore,
  type IdentityStore,
  type JointStores,
  type OAuthStore,
  type OrganizationStore,
  type PasskeyStore,
  type ScimStore,
  type SessionStore,
  type SigningKeyStore,
  type SingleUseTokenStore,
  type SsoStore,
  type StoresTogether,
  systemClock,
  type UserStore,
  type WebhookStore,
} from "@portcullis/core";
import { createSqlAccessTokenAllowlist } from "./access-token-allowlist.js";
import { createSqlActivityStore } from "./activity-store.js";
import { createSqlApiKeyStore } from "./api-key-store.js";
import { createSqlAuditLogStore } from "./audit-log-store.js";
import {
  type AnyKysely,
  DEFAULT_TABLE_PREFIX,
  detectDialect,
  inTransaction,
  type SqlContext,
  type SqlDialect,
  tableNames,
} from "./context.js";
import { createSqlCooldownStore } from "./cooldown-store.js";
import { createSqlIdentityStore } from "./identity-store.js";
import { createSqlJointStores } from "./joint-stores.js";
import { migrate } from "./migrations.js";
import { createSqlOAuthStore } from "./oauth-store.js";
import { createSqlOrganizationStore } from "./organization-store.js";
import { createSqlPasskeyStore } from "./passkey-store.js";
import { createSqlScimStore } from "./scim-store.js";
import { createSqlSessionStore } from "./session-store.js";
import { createSqlSigningKeyStore } from "./signing-key-store.js";
import { createSqlSingleUseTokenStore } from "./single-use-token-store.js";
import { createSqlSsoStore } from "./sso-store.js";
import { DEFAULT_SWEEP_BATCH_ROWS, deleteInBatches } from "./sweep.js";
import { createSqlUserStore } from "./user-store.js";
import { createSqlWebhookStore } from "./webhook-store.js";

export interface SqlStoresOptions {
  /** The host's Kysely instance (SQLite through libsql or better-sqlite3, PostgreSQL through pg, or MySQL through mysql2). The host owns it. */
  db: AnyKysely;
  /** Prefix of every table, letters, digits and underscores. Default `portcullis_`. */
  tablePrefix?: string;
  /** Time source for every expiry; tests pass a fake clock. The database's own clock is never used. Default: the system clock. */
  clock?: Clock;
  /** Only needed when the dialect cannot be told from the Kysely instance's adapter. */
  dialect?: SqlDialect;
  /**
   * Rows one statement of `sweep` (and of the activity's retention sweep) deletes at most: each
   * batch is its own short transaction, so a large sweep never holds its locks for long. Default 1000.
   */
  sweepBatchRows?: number;
}

export interface SqlStores {
  users: UserStore;
  sessions: SessionStore;
  /** The access-token allowlist, in `<prefix>access_tokens`. */
  allowlist: AccessTokenAllowlist;
  /** Single-use tokens, in `<prefix>tokens`. */
  singleUseTokens: SingleUseTokenStore;
  cooldowns: CooldownStore;
  /** Identity-provider links (for `identityProviders`), in `<prefix>identities`. */
  identities: IdentityStore;
  /**
   * The users, sessions, allowlist and single-use tokens above worked on together, for
   * `createAuth`'s `stores.together`: a multi-step change (a reset, `setPassword`) in one
   * transaction. Pass it only with those four stores as returned here: a host that wraps or
   * replaces one of them leaves it out (`const { together, joint, ...stores } = createSqlStores(...)`),
   * and changes then rely on their fail-safe order.
   */
  together: StoresTogether;
  /**
   * The users, sessions and allowlist above worked on together, for `createAuth`'s `stores.joint`:
   * an access token's entry read with its user in one statement (every authenticated request is
   * one round trip), and, on PostgreSQL, a new session written with its entry in one statement
   * (both rows or neither; a password sign-in's also clears its throttle in `cooldowns` above,
   * which the core lets it do only while `stores.cooldowns` is that very store). Pass it only
   * with those three stores as returned here: a host that
   * wraps or replaces one of them leaves it out (`const { joint, ...stores } = createSqlStores(...)`),
   * and the core then makes the separate calls.
   */
  joint: JointStores;
  /**
   * Each user's activity, in `<prefix>activity`. Entries past the retention are swept by a write
   * at most once an hour (or `activity.sweepActivity(olderThan)` on a schedule of the host's).
   */
  activity: ActivityStore;
  /** Passkeys (for `webauthn`), in `<prefix>passkeys`. */
  passkeys: PasskeyStore;
  /**
   * Organizations (for `organizations`), their members, custom roles and invitations, in
   * `<prefix>organizations`, `<prefix>memberships`, `<prefix>organization_roles` and `<prefix>invitations`.
   */
  organizations: OrganizationStore;
  /**
   * API keys (for `apiKeys`), in `<prefix>api_keys`; an organization's keys are deleted with it by
   * `organizations` above. Expired keys stay (their owners see them as expired) until deleted.
   */
  apiKeys: ApiKeyStore;
  /**
   * The audit log (for `auditLog`), in `<prefix>audit_log`, and its hash chains' heads in
   * `<prefix>audit_heads`. Entries past the retention go in `auditLog.sweepAudit(olderThan)`, in
   * batches of `sweepBatchRows`; `sweep` leaves them.
   */
  auditLog: AuditLogStore;
  /**
   * Webhook endpoints (for `webhooks`), each one's place in the audit log and lease, in
   * `<prefix>webhook_endpoints`, and their deliveries in `<prefix>webhook_deliveries`. Finished
   * deliveries past the retention go in `webhooks.sweepDeliveries(olderThan)`, in batches of
   * `sweepBatchRows`; `sweep` leaves them.
   */
  webhooks: WebhookStore;
  /** The OAuth / OpenID provider's signing keys, in `<prefix>signing_keys` (docs/oauth-provider.md). */
  signingKeys: SigningKeyStore;
  /**
   * The OAuth / OpenID provider's clients, grants, consents and device authorizations, in
   * `<prefix>oauth_clients`, `<prefix>oauth_grants`, `<prefix>oauth_consents` and
   * `<prefix>oauth_devices` (docs/oauth-provider.md).
   */
  oauth: OAuthStore;
  /**
   * Enterprise sign-in's connections, claimed domains and used assertions (for `@portcullis/sso`),
   * in `<prefix>sso_connections`, `<prefix>sso_connection_domains`, `<prefix>sso_domains` and
   * `<prefix>sso_assertions` (docs/sso.md). Used assertions past their end go in `sweep`.
   */
  sso: SsoStore;
  /**
   * Each SSO connection's SCIM users and groups (for `@portcullis/sso`'s `scim`), in
   * `<prefix>scim_users`, `<prefix>scim_groups` and `<prefix>scim_group_members` (docs/sso.md).
   */
  scim: ScimStore;
  /**
   * Deletes every expired row (sessions, allowed access tokens, single-use tokens, cooldowns, counters) and resolves to
   * how many went, in batches of `sweepBatchRows`, each its own short transaction: requests that
   * write the same tables go on between the batches. Expired rows read as absent whether or not they were swept; schedule this
   * (every few minutes) only to keep the tables small.
   */
  sweep(): Promise<number>;
  /** `migrate(db, { tablePrefix })` for these stores: creates or upgrades the tables. */
  migrate(): Promise<string[]>;
}

/**
 * UserStore, SessionStore, AccessTokenAllowlist, SingleUseTokenStore, CooldownStore and
 * IdentityStore in the host's SQL database through Kysely. Run
 * `migrate` (or `stores.migrate()`) once at start-up before using them.
 * @example
 * ```ts
 * import { createAuth } from "@portcullis/core";
 * import { createSqlStores, discardTimedOutConnections, postgresPoolOptions } from "@portcullis/store-sql";
 * import { Kysely, PostgresDialect } from "kysely";
 * import pg from "pg";
 *
 * const pool = discardTimedOutConnections(
 *   new pg.Pool({ connectionString: process.env.DATABASE_URL, ...postgresPoolOptions() }),
 * );
 * pool.on("error", (error) => console.error("PostgreSQL connection lost", error));
 * const stores = createSqlStores({ db: new Kysely({ dialect: new PostgresDialect({ pool }) }) });
 * await stores.migrate(); // creates or upgrades the tables, at every start
 * const auth = createAuth({
 *   secret: process.env.AUTH_SECRET ?? "",
 *   stores,
 *   appOrigin: "https://acme.test",
 *   email: { enabled: false },
 * });
 * ```
 */
export function createSqlStores(options: SqlStoresOptions): SqlStores {
  const tablePrefix = options.tablePrefix ?? DEFAULT_TABLE_PREFIX;
  const dialect = options.dialect ?? detectDialect(options.db);
  const sweepBatchRows = options.sweepBatchRows ?? DEFAULT_SWEEP_BATCH_ROWS;
  if (!Number.isInteger(sweepBatchRows) || sweepBatchRows < 1) {
    throw new RangeError(`sweepBatchRows must be a positive integer, not ${sweepBatchRows}`);
  }
  const context: SqlContext = {
    db: options.db,
    dialect,
    tables: tableNames(tablePrefix),
    clock: options.clock ?? systemClock,
  };
  const { db, tables, clock } = context;
  const changeStores = (on: SqlContext) => {
    return {
      users: createSqlUserStore(on),
      sessions: createSqlSessionStore(on),
      allowlist: createSqlAccessTokenAllowlist(on),
      singleUseTokens: createSqlSingleUseTokenStore(on),
    };
  };
  const cooldowns = createSqlCooldownStore(context);
  return {
    ...changeStores(context),
    cooldowns,
    identities: createSqlIdentityStore(context),
    together: {
      run: (work) => inTransaction(db, (trx) => work(changeStores({ ...context, db: trx }))),
    },
    joint: createSqlJointStores(context, cooldowns),
    activity: createSqlActivityStore(context, sweepBatchRows),
    passkeys: createSqlPasskeyStore(context),
    organizations: createSqlOrganizationStore(context),
    apiKeys: createSqlApiKeyStore(context),
    auditLog: createSqlAuditLogStore(context, sweepBatchRows),
    webhooks: createSqlWebhookStore(context, sweepBatchRows),
    signingKeys: createSqlSigningKeyStore(context),
    oauth: createSqlOAuthStore(context),
    sso: createSqlSsoStore(context),
    scim: createSqlScimStore(context),
    async sweep() {
      const now = clock.now();
      let removed = 0;
      for (const [table, column] of [
        [tables.sessions, "expires_at"],
        [tables.accessTokens, "expires_at"],
        [tables.tokens, "delete_at"],
        [tables.cooldowns, "expires_at"],
        [tables.counters, "expires_at"],
        // An invitation past its expiry can no longer be accepted, listed or counted as pending.
        [tables.invitations, "expires_at"],
        // A grant past its end (a revoked one's tombstone included) and a device code past its expiry refuse everything.
        [tables.oauthGrants, "expires_at"],
        [tables.oauthDevices, "expires_at"],
        // A used assertion past its own end is refused anyway.
        [tables.ssoAssertions, "expires_at"],
      ] as const) {
        removed += await deleteInBatches(db, dialect, { table, column, before: now }, sweepBatchRows);
      }
      return removed;
    },
    migrate: () => migrate(db, { tablePrefix, dialect }),
  };
}
