import { createHash } from "node:crypto";
import type { Clock } from "@portcullis/core";
import { type Kysely, MysqlAdapter, PostgresAdapter, SqliteAdapter } from "kysely";

/** The SQL dialects the stores speak; each has its own statement for the atomic operations. */
export type SqlDialect = "sqlite" | "postgres" | "mysql";

// biome-ignore lint/suspicious/noExplicitAny: table names carry the host's prefix, so the store's tables are not in the host's database type.
export type AnyKysely = Kysely<any>;

/** The tables of one `tablePrefix`. */
export interface SqlTables {
  users: string;
  sessions: string;
  /** The access-token allowlist (migration 0005). */
  accessTokens: string;
  tokens: string;
  cooldowns: string;
  counters: string;
  identities: string;
  /** Each user's activity (migration 0008). */
  activity: string;
  /** Passkeys (migration 0010). */
  passkeys: string;
  /** Organizations, their members, custom roles and invitations (migration 0013). */
  organizations: string;
  memberships: string;
  organizationRoles: string;
  invitations: string;
  /** API keys (migration 0014). */
  apiKeys: string;
  /** The audit log's entries and its chains' heads (migration 0015). */
  auditLog: string;
  auditHeads: string;
  /** Webhook endpoints and their deliveries (migration 0016). */
  webhookEndpoints: string;
  webhookDeliveries: string;
  /** The OAuth provider's signing keys (migration 0017). */
  signingKeys: string;
  /** The OAuth provider's clients, grants, consents and device authorizations (migration 0018). */
  oauthClients: string;
  oauthGrants: string;
  oauthConsents: string;
  oauthDevices: string;
  /** Enterprise sign-in's connections, their domains, claimed domains and used assertions (migration 0019). */
  ssoConnections: string;
  ssoConnectionDomains: string;
  ssoDomains: string;
  ssoAssertions: string;
  /** Each SSO connection's SCIM users, groups and group members (migration 0020). */
  scimUsers: string;
  scimGroups: string;
  scimGroupMembers: string;
  migrations: string;
  migrationLock: string;
}

export const DEFAULT_TABLE_PREFIX = "portcullis_";

export function tableNames(prefix: string = DEFAULT_TABLE_PREFIX): SqlTables {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,30}$/.test(prefix)) {
    throw new TypeError(
      `tablePrefix must be letters, digits and underscores (at most 31, not starting with a digit), not "${prefix}"`,
    );
  }
  return {
    users: `${prefix}users`,
    sessions: `${prefix}sessions`,
    accessTokens: `${prefix}access_tokens`,
    tokens: `${prefix}tokens`,
    cooldowns: `${prefix}cooldowns`,
    counters: `${prefix}counters`,
    identities: `${prefix}identities`,
    activity: `${prefix}activity`,
    passkeys: `${prefix}passkeys`,
    organizations: `${prefix}organizations`,
    memberships: `${prefix}memberships`,
    organizationRoles: `${prefix}organization_roles`,
    invitations: `${prefix}invitations`,
    apiKeys: `${prefix}api_keys`,
    auditLog: `${prefix}audit_log`,
    auditHeads: `${prefix}audit_heads`,
    webhookEndpoints: `${prefix}webhook_endpoints`,
    webhookDeliveries: `${prefix}webhook_deliveries`,
    signingKeys: `${prefix}signing_keys`,
    oauthClients: `${prefix}oauth_clients`,
    oauthGrants: `${prefix}oauth_grants`,
    oauthConsents: `${prefix}oauth_consents`,
    oauthDevices: `${prefix}oauth_devices`,
    ssoConnections: `${prefix}sso_connections`,
    ssoConnectionDomains: `${prefix}sso_connection_domains`,
    ssoDomains: `${prefix}sso_domains`,
    ssoAssertions: `${prefix}sso_assertions`,
    scimUsers: `${prefix}scim_users`,
    scimGroups: `${prefix}scim_groups`,
    scimGroupMembers: `${prefix}scim_group_members`,
    migrations: `${prefix}migrations`,
    migrationLock: `${prefix}migrations_lock`,
  };
}

/** Which dialect a Kysely instance speaks, from its adapter. */
export function detectDialect(db: AnyKysely): SqlDialect {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof PostgresAdapter) return "postgres";
  if (adapter instanceof SqliteAdapter) return "sqlite";
  if (adapter instanceof MysqlAdapter) return "mysql";
  throw new TypeError(
    "@portcullis/store-sql cannot tell the Kysely dialect (SQLite, PostgreSQL or MySQL): pass the `dialect` option",
  );
}

/**
 * Runs `work` in a transaction, or, when `db` is one already (the stores of `together.run`), in
 * that one: Kysely does not nest transactions, and the enclosing one makes the work atomic anyway.
 * `readCommitted` (PostgreSQL and MySQL only) starts it at that isolation level: each statement
 * sees what committed before it, and MySQL takes no gap locks.
 */
export async function inTransaction<T>(
  db: AnyKysely,
  work: (trx: AnyKysely) => Promise<T>,
  options: { readCommitted?: boolean } = {},
): Promise<T> {
  if (db.isTransaction) return work(db);
  for (let attempt = 1; ; attempt++) {
    try {
      const transaction = db.transaction();
      const started = options.readCommitted ? transaction.setIsolationLevel("read committed") : transaction;
      return await started.execute(work);
    } catch (error) {
      // InnoDB rolled the whole transaction back and asks for it to be run again.
      if (attempt >= DEADLOCK_ATTEMPTS || !isMysqlDeadlock(error)) throw error;
    }
  }
}

/** How often a transaction that MySQL ended as a deadlock's victim runs: once, and twice more. */
const DEADLOCK_ATTEMPTS = 3;

/** MySQL's ER_LOCK_DEADLOCK (1213): the transaction was rolled back, nothing of it stays. */
const isMysqlDeadlock = (error: unknown): boolean =>
  typeof error === "object" && error !== null && (error as { errno?: unknown }).errno === 1213;

/** What every store of one `createSqlStores` call shares. */
export interface SqlContext {
  db: AnyKysely;
  dialect: SqlDialect;
  tables: SqlTables;
  clock: Clock;
}

/** Integers come back as numbers (SQLite, MySQL) or strings (PostgreSQL's bigint): always numbers here. */
export const toNumber = (value: unknown): number => Number(value);

/** Booleans come back as true/false (PostgreSQL) or 1/0 (SQLite, MySQL). */
export const toBoolean = (value: unknown): boolean => value === true || Number(value) === 1;

/** Keys longer than the indexed column are stored as their SHA-256: still unique, never truncated. */
export const storedKey = (key: string): string =>
  key.length <= 200 ? key : `sha256:${createHash("sha256").update(key).digest("base64url")}`;

/**
 * A unique-key violation of any dialect: MySQL's duplicate-key error, PostgreSQL's `23505`,
 * SQLite's `UNIQUE constraint failed` (inserts elsewhere use `ON CONFLICT DO NOTHING` instead;
 * `UserStore.changeEmail`'s UPDATE needs it on every dialect).
 */
export const isDuplicateKey = (error: unknown) => {
  const { code, errno, message } = (error ?? {}) as { code?: unknown; errno?: unknown; message?: unknown };
  return (
    code === "ER_DUP_ENTRY" ||
    errno === 1062 ||
    code === "23505" ||
    code === "SQLITE_CONSTRAINT_UNIQUE" ||
    (typeof message === "string" && message.startsWith("UNIQUE constraint failed"))
  );
};

/**
 * Inserts `row` unless a unique key (any of the table's) is taken, also by a concurrent insert:
 * true when it was inserted. On MySQL a duplicate-key error says so; elsewhere a conflict with no
 * target inserts nothing.
 */
export async function insertUnlessTaken<Row extends object>(
  { db, dialect }: Pick<SqlContext, "db" | "dialect">,
  table: string,
  row: Row,
): Promise<boolean> {
  if (dialect === "mysql") {
    try {
      await db.insertInto(table).values(row).execute();
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }
  const result = await db
    .insertInto(table)
    .values(row)
    .onConflict((conflict) => conflict.doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/**
 * The most rows one multi-row INSERT of `insertInChunks` writes: 500 rows of up to ~15 columns stay
 * far below every dialect's bound-parameter limit (SQLite 32,766; PostgreSQL and MySQL 65,535).
 */
export const INSERT_CHUNK_ROWS = 500;

/** Inserts `rows` into `table` with one multi-row INSERT per `INSERT_CHUNK_ROWS`, in `executor` (a transaction). */
export async function insertInChunks<Row extends object>(
  executor: AnyKysely,
  table: string,
  rows: readonly Row[],
): Promise<void> {
  for (let start = 0; start < rows.length; start += INSERT_CHUNK_ROWS)
    await executor
      .insertInto(table)
      .values(rows.slice(start, start + INSERT_CHUNK_ROWS))
      .execute();
}

/** Deletes one row and returns it as it was: `DELETE … RETURNING`, or (MySQL) read, then delete and count. */
export async function deleteReturning<Row>(
  { db, dialect }: SqlContext,
  table: string,
  where: Record<string, string>,
): Promise<Row | undefined> {
  let remove = db.deleteFrom(table);
  for (const [column, value] of Object.entries(where)) remove = remove.where(column, "=", value);
  if (dialect !== "mysql") return (await remove.returningAll().executeTakeFirst()) as Row | undefined;
  let read = db.selectFrom(table).selectAll();
  for (const [column, value] of Object.entries(where)) read = read.where(column, "=", value);
  const row = (await read.executeTakeFirst()) as Row | undefined;
  if (!row) return undefined;
  // Of concurrent deletes, only the one that removed the row gets it.
  const { numDeletedRows } = await remove.executeTakeFirst();
  return Number(numDeletedRows) === 1 ? row : undefined;
}

/** Inserts `row`, or overwrites the row of the same `key` (its primary key): `ON CONFLICT … DO UPDATE`, on MySQL `ON DUPLICATE KEY UPDATE`. */
export async function upsert<Row extends object>(
  context: Pick<SqlContext, "db" | "dialect">,
  table: string,
  key: keyof Row & string,
  row: Row,
): Promise<void> {
  await upsertQuery(context, table, key, row).execute();
}

/**
 * `upsert`'s statement, built on `db` (a Kysely, or the query creator of a `with`, so it can be
 * a data-modifying WITH of another statement or carry one) and not yet run.
 */
export function upsertQuery<Row extends object>(
  { db, dialect }: { db: Pick<SqlContext["db"], "insertInto">; dialect: SqlDialect },
  table: string,
  key: keyof Row & string,
  row: Row,
) {
  const { [key]: _key, ...rest } = row;
  const insert = db.insertInto(table).values(row);
  return dialect === "mysql"
    ? insert.onDuplicateKeyUpdate(rest)
    : insert.onConflict((conflict) => conflict.column(key).doUpdateSet(rest));
}
