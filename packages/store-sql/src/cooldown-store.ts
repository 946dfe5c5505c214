import { randomUUID } from "node:crypto";
import type { CooldownStore } from "@portcullis/core";
import { type Expression, sql } from "kysely";
import { compiledQuery } from "./compiled-query.js";
import { type AnyKysely, inTransaction, type SqlContext, storedKey, toNumber } from "./context.js";

/**
 * Cooldowns (`<prefix>cooldowns`) and attempt counters (`<prefix>counters`). `acquire` and `hit`
 * are one UPSERT each whose expiry logic runs inside the statement: `INSERT … ON CONFLICT DO
 * UPDATE … RETURNING` (SQLite, PostgreSQL), or on MySQL `INSERT … ON DUPLICATE KEY UPDATE` and a
 * read of the locked row in one transaction. An acquire writes a random holder id: the caller
 * whose id is on the row afterwards is the one that acquired. An acquire first reads the row, and
 * a live one answers it without a write: a refusal (the 429 of a running cooldown, what a flood
 * of requests meets) is then a read, with no row lock, no write lock and no commit to flush;
 * the UPSERT still decides every acquire that may succeed.
 *
 * Ends are deadlines on the store's clock. A cooldown keeps the length it was started with in its
 * holder id (`<random>/<length ms>`: no column of its own); an end further away than that length
 * (the clock was set back after a forward jump) is moved to it from now by the call that reads it.
 * A counter's end further than the hit's `windowMs` away is moved in the UPSERT itself.
 *
 * On PostgreSQL a counter's writes (`hit`, `refundHit`) commit without waiting for the WAL flush
 * (`synchronous_commit` off for their own one-statement transaction only, see `RELAXED_COMMIT`):
 * a counter may lose its last fraction of a second of hits if the database server itself
 * crashes, never on a crash of the app. So does `clearKeys`' one statement of both tables (a
 * successful sign-in's clearing), whose loss only brings a count or a lock back. Every other
 * write, a cooldown's start included, stays durable. The
 * hit's statement is built and compiled once (SQLite, PostgreSQL), as hot reads are.
 */
export function createSqlCooldownStore(context: SqlContext): CooldownStore {
  const { db, tables, clock } = context;
  const pieces = upserts(context);
  const counters = sqlCounters(context, pieces);
  const clearBoth = clearBothOnPostgres(context);

  return {
    acquire: (key, ttlMs) => acquireCooldown(context, pieces, key, ttlMs),

    async remainingMs(key) {
      const row = await db
        .selectFrom(tables.cooldowns)
        .select(["holder", "expires_at"])
        .where("id", "=", storedKey(key))
        .executeTakeFirst();
      // Read after the row, for the same reason as in `acquireCooldown`.
      const now = clock.now();
      return row && toNumber(row.expires_at) > now ? cooldownLeft(context, key, row as CooldownRow, now) : 0;
    },

    async release(key) {
      await db.deleteFrom(tables.cooldowns).where("id", "=", storedKey(key)).execute();
    },

    hit: (key, windowMs) => counters.hit(key, windowMs),
    refundHit: counters.refund,

    async clearHits(key) {
      await db.deleteFrom(tables.counters).where("id", "=", storedKey(key)).execute();
    },

    clearKeys: (counterKeys, cooldownKeys) =>
      clearKeys(context, clearBoth, counterKeys.map(storedKey), cooldownKeys.map(storedKey)),
  };
}

/** The UPSERT and the pieces its update part is written with, for one store's dialect. */
export type Upserts = ReturnType<typeof upserts>;

/** `acquire`: a read that answers a live cooldown, else the UPSERT that decides who holds it. */
async function acquireCooldown(
  context: SqlContext,
  { stored, incoming, ifExpired, upsert }: Upserts,
  key: string,
  ttlMs: number,
): ReturnType<CooldownStore["acquire"]> {
  const { clock } = context;
  const cooldowns = context.tables.cooldowns;
  const now = clock.now();
  // Live at `now`: nothing can take it before it ends (only `release` removes it early, and
  // a release after this read orders after this refusal). Remaining time as measured below.
  const live = await liveCooldown(context, key, now);
  if (live)
    return { acquired: false, remainingMs: Math.max(1, await cooldownLeft(context, key, live, clock.now())) };
  const holder = newHolder(ttlMs);
  // The holder is set before expires_at: on MySQL later assignments see earlier ones.
  const row = await upsert<CooldownRow>(
    cooldowns,
    storedKey(key),
    { holder, expires_at: now + ttlMs },
    {
      holder: ifExpired(cooldowns, now, incoming("holder"), stored(cooldowns, "holder")),
      expires_at: ifExpired(cooldowns, now, incoming("expires_at"), stored(cooldowns, "expires_at")),
    },
  );
  if (row.holder === holder) return { acquired: true, remainingMs: ttlMs };
  // The row was live at `now`. What remains is measured on the clock as read after the
  // statement: the holder's `now` may be later than ours (concurrent calls reach the database
  // in any order), and no later reading can put the end more than its ttl away.
  return { acquired: false, remainingMs: Math.max(1, await cooldownLeft(context, key, row, clock.now())) };
}

/**
 * What is left at `now` of the live cooldown `row` of `key`. An end further away than the
 * cooldown's own length (the clock was set back) is moved to that length from now, only on
 * that same cooldown (its holder) and never later than it already is.
 */
async function cooldownLeft(
  { db, tables }: Pick<SqlContext, "db" | "tables">,
  key: string,
  row: CooldownRow,
  now: number,
): Promise<number> {
  const remaining = toNumber(row.expires_at) - now;
  const lengthMs = lengthOf(row.holder);
  if (lengthMs === null || remaining <= lengthMs) return remaining;
  await db
    .updateTable(tables.cooldowns)
    .set({ expires_at: now + lengthMs })
    .where("id", "=", storedKey(key))
    .where("holder", "=", row.holder)
    .where("expires_at", ">", now + lengthMs)
    .execute();
  return lengthMs;
}

/**
 * A `RETURNING` item that turns `synchronous_commit` off for the statement's own transaction (its
 * third argument, `is_local`): evaluated once the row is written, before the statement's implicit
 * transaction commits, so that commit returns without waiting for the WAL to reach the disk.
 * PostgreSQL only; used on counter writes and the webhook store's bookkeeping (whose loss in a
 * database crash repeats a message, never loses one), on a connection outside any host's transaction.
 */
export const RELAXED_COMMIT = sql<string>`set_config('synchronous_commit', 'off', true)`.as("relaxed_commit");

/**
 * Whether a counter write on `db` carries `RELAXED_COMMIT`: on PostgreSQL, unless `db` is a
 * transaction (a host's, passed as the stores' `db`), whose other writes must stay durable.
 */
export const relaxesCommit = (dialect: SqlContext["dialect"], db: AnyKysely) =>
  dialect === "postgres" && !db.isTransaction;

/** A counter row as the hit's UPSERT returns it. */
type CounterRow = { hits: number | string; expires_at: number | string };

/** The update part of the hit's UPSERT: a window started at `now`, or the hits added to the live one. */
function hitUpdate({ stored, incoming, ifExpired, earliest }: Upserts, counters: string, now: unknown) {
  return {
    hits: ifExpired(counters, now, incoming("hits"), sql`${stored(counters, "hits")} + ${incoming("hits")}`),
    // Never extended; moved nearer when further than `windowMs` away (the clock was set back).
    expires_at: ifExpired(
      counters,
      now,
      incoming("expires_at"),
      earliest(stored(counters, "expires_at"), incoming("expires_at")),
    ),
  };
}

/**
 * The hit's UPSERT on `on` (SQLite, PostgreSQL): a window of `id` started with `hits` and its end
 * at `expiresAt`, or `hits` more in the live one; returns the row's `hits` and `expires_at`.
 * Arguments may be compiled placeholders (`compiledQuery`).
 */
export function hitUpsert(
  { dialect, tables }: Pick<SqlContext, "dialect" | "tables">,
  pieces: Upserts,
  on: AnyKysely,
  id: unknown,
  hits: unknown,
  now: unknown,
  expiresAt: unknown,
) {
  const counters = tables.counters;
  return on
    .insertInto(counters)
    .values({ id, hits, expires_at: expiresAt })
    .onConflict((conflict) => conflict.column("id").doUpdateSet(hitUpdate(pieces, counters, now)))
    .returning(relaxesCommit(dialect, on) ? ["hits", "expires_at", RELAXED_COMMIT] : ["hits", "expires_at"]);
}

/**
 * The counters of `<prefix>counters` (the cooldown store's `hit` and `refundHit`, and the API key
 * store's requests): `hit` is one UPSERT compiled once (SQLite, PostgreSQL) or MySQL's UPSERT and
 * read; `refund` takes one hit back from a live window, never below 0.
 */
export function sqlCounters(context: SqlContext, pieces: Upserts = upserts(context)) {
  const { db, dialect, tables, clock } = context;
  const hitStatement =
    dialect === "mysql"
      ? null
      : compiledQuery<[string, number, number, number], CounterRow>(4, (on, id, hits, now, expiresAt) =>
          hitUpsert(context, pieces, on, id, hits, now, expiresAt),
        );
  return {
    /** `hits` (default 1) more for `key` in its window of `windowMs`: the count after them. */
    async hit(key: string, windowMs: number, hits = 1): ReturnType<CooldownStore["hit"]> {
      if (!hitStatement) return countHit(context, pieces, key, windowMs, hits);
      const now = clock.now();
      const [row] = await hitStatement(db, storedKey(key), hits, now, now + windowMs);
      return hitCounted(context, row);
    },
    async refund(key: string): Promise<void> {
      const refund = db
        .updateTable(tables.counters)
        .set({ hits: sql`hits - 1` })
        .where("id", "=", storedKey(key))
        .where("expires_at", ">", clock.now())
        .where("hits", ">", 0);
      await (relaxesCommit(dialect, db) ? refund.returning(RELAXED_COMMIT) : refund).execute();
    },
    /**
     * `uses` fewer for `key`, not below 0, in its running window when that ends within
     * `maxRemainingMs` (a later window is left as it is; none is started).
     */
    async giveBack(key: string, uses: number, maxRemainingMs: number): Promise<void> {
      const now = clock.now();
      const giveBack = db
        .updateTable(tables.counters)
        .set({ hits: sql`case when hits > ${uses} then hits - ${uses} else 0 end` })
        .where("id", "=", storedKey(key))
        .where("expires_at", ">", now)
        .where("expires_at", "<=", now + maxRemainingMs);
      await (relaxesCommit(dialect, db) ? giveBack.returning(RELAXED_COMMIT) : giveBack).execute();
    },
  };
}

/** `hit` on MySQL: one UPSERT that starts a window or counts in the live one, and a read of the row. */
async function countHit(
  context: Pick<SqlContext, "tables" | "clock">,
  pieces: Upserts,
  key: string,
  windowMs: number,
  hits: number,
): ReturnType<CooldownStore["hit"]> {
  const counters = context.tables.counters;
  const now = context.clock.now();
  const row = await pieces.upsert<CounterRow>(
    counters,
    storedKey(key),
    { hits, expires_at: now + windowMs },
    hitUpdate(pieces, counters, now),
  );
  return hitCounted(context, row);
}

/** The hit's answer from the counter row as written. */
export function hitCounted({ clock }: Pick<SqlContext, "clock">, row: CounterRow | undefined) {
  if (!row) throw new Error("@portcullis/store-sql: the counter's UPSERT returned no row");
  // The window was live at `now`; what remains is measured after the statement, as in `acquireCooldown`.
  return { count: toNumber(row.hits), remainingMs: Math.max(1, toNumber(row.expires_at) - clock.now()) };
}

/** A cooldown row as read. */
interface CooldownRow {
  holder: string;
  expires_at: number | string;
}

/** A new holder id for a cooldown of `lengthMs`: random, then the length (see `lengthOf`). */
const newHolder = (lengthMs: number) => `${randomUUID()}/${lengthMs}`;

/** The length (ms) a cooldown was started with, from its holder id; null for one written before it was kept. */
function lengthOf(holder: string): number | null {
  const slash = holder.lastIndexOf("/");
  const lengthMs = slash < 0 ? Number.NaN : Number(holder.slice(slash + 1));
  return Number.isFinite(lengthMs) && lengthMs > 0 ? lengthMs : null;
}

/** `key`'s cooldown when it is live at `now`; else undefined (absent or expired). One indexed read. */
async function liveCooldown(
  { db, tables }: Pick<SqlContext, "db" | "tables">,
  key: string,
  now: number,
): Promise<CooldownRow | undefined> {
  return (await db
    .selectFrom(tables.cooldowns)
    .select(["holder", "expires_at"])
    .where("id", "=", storedKey(key))
    .where("expires_at", ">", now)
    .executeTakeFirst()) as CooldownRow | undefined;
}

/**
 * PostgreSQL's `clearKeys` of both tables: one statement (a data-modifying WITH), compiled once,
 * each list one array parameter (arguments: the counters' ids, the cooldowns' ids).
 */
const clearBothOnPostgres = ({ tables }: Pick<SqlContext, "tables">) =>
  compiledQuery<[string[], string[]], unknown>(2, (on, counterIds, cooldownIds) => {
    const cleared = on
      .with("cleared_counters", (within) =>
        within.deleteFrom(tables.counters).where("id", "=", sql<string>`any(${counterIds})`),
      )
      .with("cleared_cooldowns", (within) =>
        within.deleteFrom(tables.cooldowns).where("id", "=", sql<string>`any(${cooldownIds})`),
      );
    // One row whatever was deleted, so the commit is relaxed even when nothing was there.
    return on.isTransaction
      ? cleared.selectNoFrom(sql<number>`1`.as("one"))
      : cleared.selectNoFrom(RELAXED_COMMIT);
  });

/**
 * `clearKeys`: the counters and the cooldowns of the ids given removed, in one statement on
 * PostgreSQL (a data-modifying WITH); SQLite and MySQL have none, so one statement per table.
 * That statement commits relaxed (`RELAXED_COMMIT`, outside a host's transaction): a clear lost in
 * a crash of the database server brings back a count or a lock, which only limits more.
 */
async function clearKeys(
  { db, dialect, tables }: Pick<SqlContext, "db" | "dialect" | "tables">,
  clearBoth: ReturnType<typeof clearBothOnPostgres>,
  counterIds: string[],
  cooldownIds: string[],
): Promise<void> {
  const clearCounters = () => db.deleteFrom(tables.counters).where("id", "in", counterIds);
  const clearCooldowns = () => db.deleteFrom(tables.cooldowns).where("id", "in", cooldownIds);
  if (counterIds.length > 0 && cooldownIds.length > 0 && dialect === "postgres") {
    await clearBoth(db, counterIds, cooldownIds);
    return;
  }
  if (counterIds.length > 0) await clearCounters().execute();
  if (cooldownIds.length > 0) await clearCooldowns().execute();
}

/**
 * An UPSERT that returns the row as stored afterwards, in the dialect's words, and the pieces its
 * update part is written with.
 */
export function upserts({ db, dialect }: Pick<SqlContext, "db" | "dialect">) {
  const mysql = dialect === "mysql";
  /** A column of the row already stored, inside the UPSERT's update part. */
  const stored = (table: string, column: string) => sql.ref(mysql ? column : `${table}.${column}`);
  /** The value the UPSERT tried to insert. */
  const incoming = (column: string) =>
    mysql ? sql`values(${sql.ref(column)})` : sql.ref(`excluded.${column}`);
  /** `fresh` when the stored row has expired at `now`, else `kept`: evaluated by the database, in the statement. */
  const ifExpired = (table: string, now: unknown, fresh: Expression<unknown>, kept: Expression<unknown>) =>
    mysql
      ? sql`if(${stored(table, "expires_at")} <= ${now}, ${fresh}, ${kept})`
      : sql`case when ${stored(table, "expires_at")} <= ${now} then ${fresh} else ${kept} end`;
  /** The smaller of two numbers, evaluated by the database (SQLite's two-argument `min`). */
  const earliest = (a: Expression<unknown>, b: Expression<unknown>) =>
    dialect === "sqlite" ? sql`min(${a}, ${b})` : sql`least(${a}, ${b})`;

  async function upsert<Row>(
    table: string,
    id: string,
    values: Record<string, unknown>,
    set: Record<string, unknown>,
  ) {
    const insert = db.insertInto(table).values({ id, ...values });
    if (!mysql) {
      return (await insert
        .onConflict((conflict) => conflict.column("id").doUpdateSet(set))
        .returningAll()
        .executeTakeFirstOrThrow()) as Row;
    }
    return inTransaction(db, async (trx) => {
      await trx.executeQuery(insert.onDuplicateKeyUpdate(set).compile());
      return (await trx.selectFrom(table).selectAll().where("id", "=", id).executeTakeFirstOrThrow()) as Row;
    });
  }
  return { stored, incoming, ifExpired, earliest, upsert };
}
