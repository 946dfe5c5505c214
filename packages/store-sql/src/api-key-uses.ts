import { type ApiKeyStore, type ApiKeyUse, createCountBatch } from "@portcullis/core";
import { sql } from "kysely";
import { type ApiKeyRow, fromRow } from "./api-key-rows.js";
import { compiledQuery } from "./compiled-query.js";
import type { AnyKysely, SqlContext } from "./context.js";
import { hitCounted, sqlCounters } from "./cooldown-store.js";

/** What a lookupId's request counter is named in `<prefix>counters`. */
const USES_PREFIX = "api-key:";

/** The id of a lookupId's request counter (`useApiKey`). */
const usesOf = (lookupId: string) => `${USES_PREFIX}${lookupId}`;

/** The most lookupIds one PostgreSQL statement counts; more start another. */
const MAX_BATCH = 100;

/** A row of the PostgreSQL statement: a counter as written, and its key's columns (null when none). */
type UsesRow = { [column in keyof ApiKeyRow]: ApiKeyRow[column] | null } & {
  use_id: string;
  use_hits: number | string;
  use_ends_at: number | string;
};

/**
 * `useApiKey` on SQL: requests counted in `<prefix>counters` (as the
 * cooldown store's counters, under `api-key:<lookupId>`) and its key read from `<prefix>api_keys`.
 * On PostgreSQL one statement (`usesStatement`) counts and reads every request that arrived in one
 * turn of the event loop, so a flood of requests with one key costs the database one row write a
 * turn instead of one per request; the requests of one lookupId get consecutive counts, in arrival
 * order, so a turn's requests are counted exactly as one at a time would be. In a host's
 * transaction, one statement per request. SQLite (in process) and MySQL (no data-modifying WITH):
 * the cooldown store's UPSERT and the read, at once.
 */
export function requestUses(
  context: SqlContext,
  findByLookupId: (db: AnyKysely, lookupId: string) => Promise<ApiKeyRow[]>,
): Pick<ApiKeyStore, "useApiKey" | "returnApiKeyUses"> {
  const { db, dialect, clock } = context;
  const counters = sqlCounters(context);
  const returnApiKeyUses = (lookupId: string, uses: number, maxRemainingMs: number) =>
    counters.giveBack(usesOf(lookupId), uses, maxRemainingMs);
  if (dialect !== "postgres") {
    return {
      returnApiKeyUses,
      async useApiKey(lookupId, windowMs, uses) {
        const counter = usesOf(lookupId);
        const [hit, [row]] = await Promise.all([
          uses === 0 ? { count: 0, remainingMs: windowMs } : counters.hit(counter, windowMs, uses),
          findByLookupId(db, lookupId),
        ]);
        return { record: row ? fromRow(row) : null, ...hit };
      },
    };
  }
  const statement = usesStatement(context);
  const reads = readsStatement(context);
  /**
   * Counts `uses` requests of each lookupId (sorted, so concurrent statements lock rows in one
   * order). A turn with nothing to count (every request's count held in a block) is a plain read.
   */
  const count = async (uses: Map<string, number>, windowMs: number) => {
    const lookupIds = [...uses.keys()].sort();
    if (lookupIds.every((lookupId) => uses.get(lookupId) === 0)) {
      return new Map((await reads(db, lookupIds)).map((row) => [row.use_id, row]));
    }
    const now = clock.now();
    const rows = await statement(
      db,
      lookupIds.map(usesOf),
      lookupIds.map((lookupId) => uses.get(lookupId) ?? 1),
      now,
      now + windowMs,
    );
    return new Map(rows.map((row) => [row.use_id.slice(USES_PREFIX.length), row]));
  };
  const answer = (
    row: UsesRow | undefined,
    { through, of, weight, windowMs }: { through: number; of: number; weight: number; windowMs: number },
  ): ApiKeyUse => {
    if (!row) throw new Error("@portcullis/store-sql: the API key's counter UPSERT returned no row");
    const record = row.id === null ? null : fromRow(row as ApiKeyRow);
    if (weight === 0) return { record, count: 0, remainingMs: windowMs };
    const counted = hitCounted(context, { hits: row.use_hits, expires_at: row.use_ends_at });
    return { record, count: counted.count - of + through, remainingMs: counted.remainingMs };
  };
  if (db.isTransaction) {
    return {
      returnApiKeyUses,
      async useApiKey(lookupId, windowMs, uses) {
        const row = (await count(new Map([[lookupId, uses]]), windowMs)).get(lookupId);
        return answer(row, { through: uses, of: uses, weight: uses, windowMs });
      },
    };
  }
  return { returnApiKeyUses, useApiKey: createCountBatch(count, answer, MAX_BATCH) };
}

/**
 * PostgreSQL's statement of `useApiKey` for a turn with nothing to count, compiled once (argument:
 * the lookupIds): each joined with its key (null columns when none), as `usesStatement` answers
 * an id counting 0, without its data-modifying WITH (shorter to send, parse and plan).
 */
function readsStatement({ tables }: SqlContext) {
  return compiledQuery<[string[]], UsesRow>(1, (on, lookupIds) => {
    const query = sql<UsesRow>`select incoming.lookup_id as use_id, 0 as use_hits, 0 as use_ends_at, keys.*
from unnest(cast(${lookupIds} as text[])) as incoming(lookup_id)
left join ${sql.table(tables.apiKeys)} as keys on keys.lookup_id = incoming.lookup_id`;
    return { compile: () => query.compile(on) };
  });
}

/**
 * PostgreSQL's statement of `useApiKey`, compiled once (arguments: counter ids, their requests,
 * now, a new window's end): the UPSERT of the counters with requests to count as a data-modifying
 * WITH (a window started with the requests, or the requests added to the live one; an end further
 * than the window moved nearer, as the cooldown store's `hit` does), every id joined with its key
 * on the unique `lookup_id` (an id counting 0 is a read alone: count 0). Outside a host's transaction it commits
 * without waiting for the WAL flush, as every counter write does (see the cooldown store).
 */
function usesStatement({ dialect, tables }: SqlContext) {
  const counters = sql.table(tables.counters);
  const stored = (column: string) => sql.ref(`${tables.counters}.${column}`);
  return compiledQuery<[string[], number[], number, number], UsesRow>(4, (on, ids, uses, now, expiresAt) => {
    const relaxed =
      dialect === "postgres" && !on.isTransaction
        ? sql`, set_config('synchronous_commit', 'off', true) as relaxed_commit`
        : sql``;
    const query = sql<UsesRow>`with incoming as (
  select id, n from unnest(cast(${ids} as text[]), cast(${uses} as integer[])) as incoming(id, n)
), hit as (
  insert into ${counters} (id, hits, expires_at)
  select id, n, cast(${expiresAt} as bigint) from incoming where n > 0
  on conflict (id) do update set
    hits = case when ${stored("expires_at")} <= ${now} then excluded.hits else ${stored("hits")} + excluded.hits end,
    expires_at = case when ${stored("expires_at")} <= ${now} then excluded.expires_at else least(${stored("expires_at")}, excluded.expires_at) end
  returning id, hits, expires_at${relaxed}
)
select incoming.id as use_id,
  coalesce(hit.hits, 0) as use_hits,
  coalesce(hit.expires_at, cast(${expiresAt} as bigint)) as use_ends_at,
  keys.*
from incoming
left join hit on hit.id = incoming.id
left join ${sql.table(tables.apiKeys)} as keys on keys.lookup_id = substr(incoming.id, ${USES_PREFIX.length + 1})`;
    return { compile: () => query.compile(on) };
  });
}
