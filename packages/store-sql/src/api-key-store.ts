import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { ApiKeyOwner, ApiKeyRecord, ApiKeyStore } from "@portcullis/core";
import { sql } from "kysely";
import { type ApiKeyRow, fromRow } from "./api-key-rows.js";
import { requestUses } from "./api-key-uses.js";
import { compiledQuery } from "./compiled-query.js";
import { type AnyKysely, inTransaction, type SqlContext } from "./context.js";

/** The most keys one listing returns (`ApiKeyStore.listApiKeys`). */
const MAX_LISTED = 1000;

/** How long a creation waits in all for another creation for the same owner, in seconds. */
const OWNER_LOCK_WAIT_SECONDS = 5;

/** The longest pause between two tries of a PostgreSQL owner's lock, in milliseconds. */
const MAX_LOCK_PAUSE_MS = 50;

/** The owner of a key or a listing, as `ApiKeyOwner` defines it. */
const ownerOf = (owner: ApiKeyOwner | ApiKeyRecord): ApiKeyOwner =>
  owner.organizationId === null
    ? { userId: owner.userId, organizationId: null }
    : { organizationId: owner.organizationId };

/** The owner's keys, to select from: a user's own (organization null), or an organization's. */
const ownerKeys = (executor: AnyKysely, table: string, of: ApiKeyOwner | ApiKeyRecord) => {
  const owner = ownerOf(of);
  const select = executor.selectFrom(table);
  return owner.organizationId === null
    ? select.where("user_id", "=", owner.userId).where("organization_id", "is", null)
    : select.where("organization_id", "=", owner.organizationId);
};

/**
 * `createApiKey`: counts the owner's keys and inserts in one transaction that holds a lock on the
 * owner until it ends, so concurrent creations for one owner take turns and never overshoot
 * `maxPerOwner` (as `organizationTransactions().runAsUser` does for `maxPerUser`). PostgreSQL:
 * `pg_try_advisory_xact_lock` (`tryOnPostgres`); MySQL: `GET_LOCK` on the transaction's
 * connection, released after the commit; SQLite: the write lock of `BEGIN IMMEDIATE`. Under
 * READ COMMITTED the count, a statement after the lock, sees every key committed before it.
 */
function creation({ db, dialect, tables }: SqlContext): ApiKeyStore["createApiKey"] {
  const table = tables.apiKeys;
  const countIn = async (trx: AnyKysely, record: ApiKeyRecord) => {
    const { n } = await ownerKeys(trx, table, record)
      .select((eb) => eb.fn.countAll().as("n"))
      .executeTakeFirstOrThrow();
    return Number(n);
  };
  return async (record, { maxPerOwner }) => {
    const work = async (trx: AnyKysely) => {
      if ((await countIn(trx, record)) >= maxPerOwner) return "limit-reached" as const;
      await trx.insertInto(table).values(toRow(record)).execute();
      return "created" as const;
    };
    const owner = record.organizationId === null ? `u:${record.userId}` : `o:${record.organizationId}`;
    const key = `${table}:${owner}`;
    if (dialect === "postgres") {
      const full = async (trx: AnyKysely) => (await countIn(trx, record)) >= maxPerOwner;
      return tryOnPostgres(db, key, full, work);
    }
    if (dialect !== "mysql" || db.isTransaction)
      return inTransaction(db, work, { readCommitted: dialect !== "sqlite" });
    const name = `portcullis:${createHash("sha256").update(key).digest("base64url").slice(0, 40)}`;
    return db.connection().execute(async (connection) => {
      const { rows } = await sql<{
        locked: number | null;
      }>`select get_lock(${name}, ${OWNER_LOCK_WAIT_SECONDS}) as locked`.execute(connection);
      if (Number(rows[0]?.locked) !== 1) throw new Error("the API key owner's lock was not granted in time");
      try {
        return await inTransaction(connection, work, { readCommitted: true });
      } finally {
        // A connection that fails here is gone, and MySQL releases its locks with it.
        await sql`select release_lock(${name})`.execute(connection).catch(() => {});
      }
    });
  };
}

/**
 * PostgreSQL's turn for one owner: a READ COMMITTED transaction that answers `limit-reached` at
 * once when the owner is `full` (an owner at its limit waits for nobody), else takes the owner's
 * advisory lock without waiting (`pg_try_advisory_xact_lock`) and runs `work`. When another
 * creation holds the lock, the transaction ends and a new one tries again after a short pause, up
 * to `OWNER_LOCK_WAIT_SECONDS` in all: a waiting creation holds no connection and never meets the
 * pool's `lock_timeout` (500 ms with `postgresPoolOptions`), which cancels a waiting lock.
 */
async function tryOnPostgres<T>(
  db: AnyKysely,
  key: string,
  full: (trx: AnyKysely) => Promise<boolean>,
  work: (trx: AnyKysely) => Promise<T | "limit-reached">,
): Promise<T | "limit-reached"> {
  const giveUpAt = performance.now() + OWNER_LOCK_WAIT_SECONDS * 1_000;
  for (let pauseMs = 2; ; pauseMs = Math.min(pauseMs * 2, MAX_LOCK_PAUSE_MS)) {
    const outcome = await inTransaction(
      db,
      async (trx) => {
        if (await full(trx)) return { done: "limit-reached" as const };
        const { rows } = await sql<{
          locked: boolean;
        }>`select pg_try_advisory_xact_lock(hashtextextended(${key}, 0)) as locked`.execute(trx);
        return rows[0]?.locked === true ? { done: await work(trx) } : null;
      },
      { readCommitted: true },
    );
    if (outcome) return outcome.done;
    if (performance.now() >= giveUpAt) throw new Error("the API key owner's lock was not granted in time");
    // Jittered, so the creations that missed the lock together do not all come back together.
    await sleep(pauseMs * (0.5 + Math.random()));
  }
}

const toRow = (record: ApiKeyRecord): ApiKeyRow => ({
  id: record.id,
  lookup_id: record.lookupId,
  key_hash: record.keyHash,
  name: record.name,
  start: record.start,
  user_id: record.userId,
  organization_id: record.organizationId,
  permissions: record.permissions === null ? null : JSON.stringify(record.permissions),
  created_at: record.createdAt,
  expires_at: record.expiresAt,
  last_used_at: record.lastUsedAt,
});

/**
 * `deleteApiKey`: `DELETE … RETURNING`; on MySQL a transaction that locks the row (`SELECT … FOR
 * UPDATE`) before deleting it. Of concurrent deletes exactly one gets the key.
 */
function deletion(
  { db, dialect, tables }: SqlContext,
  byId: (executor: AnyKysely, id: string) => ReturnType<AnyKysely["selectFrom"]>,
): ApiKeyStore["deleteApiKey"] {
  const table = tables.apiKeys;
  return async (id) => {
    if (dialect !== "mysql") {
      const row = await db.deleteFrom(table).where("id", "=", id).returningAll().executeTakeFirst();
      return row ? fromRow(row as ApiKeyRow) : null;
    }
    return inTransaction(
      db,
      async (trx) => {
        const row = await byId(trx, id).forUpdate().executeTakeFirst();
        if (!row) return null;
        await trx.deleteFrom(table).where("id", "=", id).execute();
        return fromRow(row as ApiKeyRow);
      },
      { readCommitted: true },
    );
  };
}

/**
 * API keys in `<prefix>api_keys` (migration `0014_api_keys`). The primary key and the unique
 * `lookup_id` make `createApiKey` reject a duplicate; it counts the owner's keys and inserts in
 * one transaction that holds a lock on the owner (`creation`), so concurrent creations never
 * overshoot `maxPerOwner`; `useApiKey`, on every request that carries a key, counts the
 * request in `<prefix>counters` (the cooldown store's UPSERT, under `api-key:<lookupId>`) and
 * reads the key on the unique index: on PostgreSQL one compiled statement (a data-modifying
 * WITH), elsewhere the two at once; `touchApiKey` is one UPDATE
 * conditional on the stored `last_used_at` (the row's lock makes it a compare and set); and
 * `deleteApiKey` is `DELETE … RETURNING`, on MySQL a transaction that locks the row
 * (`SELECT … FOR UPDATE`) before deleting it, so of concurrent deletes exactly one gets the key.
 * An organization's keys go with it (`deleteOrganization` of the SQL organization store).
 */
export function createSqlApiKeyStore(context: SqlContext): ApiKeyStore {
  const { db, tables } = context;
  const table = tables.apiKeys;
  // The read of a key by its lookupId, compiled once (argument: lookupId).
  const findByLookupId = compiledQuery<[string], ApiKeyRow>(1, (on, lookupId) =>
    on.selectFrom(table).selectAll().where("lookup_id", "=", lookupId),
  );
  const byId = (executor: AnyKysely, id: string) =>
    executor.selectFrom(table).selectAll().where("id", "=", id);
  return {
    createApiKey: creation(context),

    async findApiKeyByLookupId(lookupId) {
      const [row] = await findByLookupId(db, lookupId);
      return row ? fromRow(row) : null;
    },

    ...requestUses(context, findByLookupId),

    async findApiKey(id) {
      const row = await byId(db, id).executeTakeFirst();
      return row ? fromRow(row as ApiKeyRow) : null;
    },

    async listApiKeys(owner) {
      const rows = await ownerKeys(db, table, owner)
        .selectAll()
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(MAX_LISTED)
        .execute();
      return rows.map((row) => fromRow(row as ApiKeyRow));
    },

    deleteApiKey: deletion(context, byId),

    async touchApiKey(id, at, minIntervalMs) {
      // Matched rows on every dialect (mysql2 reports found rows by default); the condition is
      // checked again under the row's lock, so of concurrent touches at most one matches.
      const result = await db
        .updateTable(table)
        .set({ last_used_at: at })
        .where("id", "=", id)
        .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<=", at - minIntervalMs)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async deleteUserApiKeys(userId) {
      const result = await db
        .deleteFrom(table)
        .where("user_id", "=", userId)
        .where("organization_id", "is", null)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    async deleteOrganizationApiKeys(organizationId) {
      const result = await db
        .deleteFrom(table)
        .where("organization_id", "=", organizationId)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
