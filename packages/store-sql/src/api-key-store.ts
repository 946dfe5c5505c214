import type { ApiKeyOwner, ApiKeyRecord, ApiKeyStore } from "@portcullis/core";
import { type ApiKeyRow, fromRow } from "./api-key-rows.js";
import { requestUses } from "./api-key-uses.js";
import { compiledQuery } from "./compiled-query.js";
import { type AnyKysely, inTransaction, type SqlContext } from "./context.js";
import { insertWithinLimit } from "./insert-within-limit.js";

/** The most keys one listing returns (`ApiKeyStore.listApiKeys`). */
const MAX_LISTED = 1000;

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
 * `createApiKey`: counts the owner's keys and inserts under a lock on the owner
 * (`insertWithinLimit`), so concurrent creations for one owner take turns and never overshoot
 * `maxPerOwner` (as `organizationTransactions().runAsUser` does for `maxPerUser`).
 */
function creation(context: SqlContext): ApiKeyStore["createApiKey"] {
  const table = context.tables.apiKeys;
  return async (record, { maxPerOwner }) => {
    const full = async (trx: AnyKysely) => {
      const { n } = await ownerKeys(trx, table, record)
        .select((eb) => eb.fn.countAll().as("n"))
        .executeTakeFirstOrThrow();
      return Number(n) >= maxPerOwner;
    };
    const owner = record.organizationId === null ? `u:${record.userId}` : `o:${record.organizationId}`;
    return insertWithinLimit(
      context,
      { key: `${table}:${owner}`, lockName: "the API key owner's" },
      full,
      async (trx) => {
        await trx.insertInto(table).values(toRow(record)).execute();
      },
    );
  };
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
