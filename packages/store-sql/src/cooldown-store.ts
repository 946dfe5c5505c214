import { randomUUID } from "node:crypto";
import type { CooldownStore } from "@portcullis/core";
import { type Expression, sql } from "kysely";
import { inTransaction, type SqlContext, storedKey, toNumber } from "./context.js";

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
 */
export function createSqlCooldownStore(context: SqlContext): CooldownStore {
  const { db, tables, clock } = context;
  const pieces = upserts(context);

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

    hit: (key, windowMs) => countHit(context, pieces, key, windowMs),

    async refundHit(key) {
      await db
        .updateTable(tables.counters)
        .set({ hits: sql`hits - 1` })
        .where("id", "=", storedKey(key))
        .where("expires_at", ">", clock.now())
        .where("hits", ">", 0)
        .execute();
    },

    async clearHits(key) {
      await db.deleteFrom(tables.counters).where("id", "=", storedKey(key)).execute();
    },

    clearKeys: (counterKeys, cooldownKeys) =>
      clearKeys(context, counterKeys.map(storedKey), cooldownKeys.map(storedKey)),
  };
}

/** The UPSERT and the pieces its update part is written with, for one store's dialect. */
type Upserts = ReturnType<typeof upserts>;

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

/** `hit`: one UPSERT that starts a window or counts in the live one. */
async function countHit(
  { tables, clock }: Pick<SqlContext, "tables" | "clock">,
  { stored, incoming, ifExpired, earliest, upsert }: Upserts,
  key: string,
  windowMs: number,
): ReturnType<CooldownStore["hit"]> {
  const counters = tables.counters;
  const now = clock.now();
  const row = await upsert<{ hits: number | string; expires_at: number | string }>(
    counters,
    storedKey(key),
    { hits: 1, expires_at: now + windowMs },
    {
      hits: ifExpired(counters, now, sql`1`, sql`${stored(counters, "hits")} + 1`),
      // Never extended; moved nearer when further than `windowMs` away (the clock was set back).
      expires_at: ifExpired(
        counters,
        now,
        incoming("expires_at"),
        earliest(stored(counters, "expires_at"), incoming("expires_at")),
      ),
    },
  );
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
 * `clearKeys`: the counters and the cooldowns of the ids given removed, in one statement on
 * PostgreSQL (a data-modifying WITH); SQLite and MySQL have none, so one statement per table.
 */
async function clearKeys(
  { db, dialect, tables }: Pick<SqlContext, "db" | "dialect" | "tables">,
  counterIds: string[],
  cooldownIds: string[],
): Promise<void> {
  const clearCounters = () => db.deleteFrom(tables.counters).where("id", "in", counterIds);
  const clearCooldowns = () => db.deleteFrom(tables.cooldowns).where("id", "in", cooldownIds);
  if (counterIds.length > 0 && cooldownIds.length > 0 && dialect === "postgres") {
    await db
      .with("cleared_counters", () => clearCounters())
      .deleteFrom(tables.cooldowns)
      .where("id", "in", cooldownIds)
      .execute();
    return;
  }
  if (counterIds.length > 0) await clearCounters().execute();
  if (cooldownIds.length > 0) await clearCooldowns().execute();
}

/**
 * An UPSERT that returns the row as stored afterwards, in the dialect's words, and the pieces its
 * update part is written with.
 */
function upserts({ db, dialect }: Pick<SqlContext, "db" | "dialect">) {
  const mysql = dialect === "mysql";
  /** A column of the row already stored, inside the UPSERT's update part. */
  const stored = (table: string, column: string) => sql.ref(mysql ? column : `${table}.${column}`);
  /** The value the UPSERT tried to insert. */
  const incoming = (column: string) =>
    mysql ? sql`values(${sql.ref(column)})` : sql.ref(`excluded.${column}`);
  /** `fresh` when the stored row has expired at `now`, else `kept`: evaluated by the database, in the statement. */
  const ifExpired = (table: string, now: number, fresh: Expression<unknown>, kept: Expression<unknown>) =>
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
