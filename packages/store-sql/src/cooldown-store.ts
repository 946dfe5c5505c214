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
 */
export function createSqlCooldownStore({ db, dialect, tables, clock }: SqlContext): CooldownStore {
  const cooldowns = tables.cooldowns;
  const counters = tables.counters;
  const { stored, incoming, ifExpired, upsert } = upserts({ db, dialect });

  return {
    async acquire(key, ttlMs) {
      const now = clock.now();
      // Live at `now`: nothing can take it before it ends (only `release` removes it early, and
      // a release after this read orders after this refusal). Remaining time as measured below.
      const liveUntil = await liveExpiry({ db, tables }, key, now);
      if (liveUntil !== null) return { acquired: false, remainingMs: Math.max(1, liveUntil - clock.now()) };
      const holder = randomUUID();
      // The holder is set before expires_at: on MySQL later assignments see earlier ones.
      const row = await upsert<{ holder: string; expires_at: number | string }>(
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
      return { acquired: false, remainingMs: Math.max(1, toNumber(row.expires_at) - clock.now()) };
    },

    async remainingMs(key) {
      const row = await db
        .selectFrom(cooldowns)
        .select("expires_at")
        .where("id", "=", storedKey(key))
        .executeTakeFirst();
      // Read after the row, for the same reason as in `acquire`.
      return row ? Math.max(0, toNumber(row.expires_at) - clock.now()) : 0;
    },

    async release(key) {
      await db.deleteFrom(cooldowns).where("id", "=", storedKey(key)).execute();
    },

    async hit(key, windowMs) {
      const now = clock.now();
      const row = await upsert<{ hits: number | string; expires_at: number | string }>(
        counters,
        storedKey(key),
        { hits: 1, expires_at: now + windowMs },
        {
          hits: ifExpired(counters, now, sql`1`, sql`${stored(counters, "hits")} + 1`),
          expires_at: ifExpired(counters, now, incoming("expires_at"), stored(counters, "expires_at")),
        },
      );
      // The window was live at `now`; what remains is measured after the statement, as in `acquire`.
      return { count: toNumber(row.hits), remainingMs: Math.max(1, toNumber(row.expires_at) - clock.now()) };
    },

    async refundHit(key) {
      await db
        .updateTable(counters)
        .set({ hits: sql`hits - 1` })
        .where("id", "=", storedKey(key))
        .where("expires_at", ">", clock.now())
        .where("hits", ">", 0)
        .execute();
    },

    async clearHits(key) {
      await db.deleteFrom(counters).where("id", "=", storedKey(key)).execute();
    },

    clearKeys: (counterKeys, cooldownKeys) =>
      clearKeys({ db, dialect, tables }, counterKeys.map(storedKey), cooldownKeys.map(storedKey)),
  };
}

/** When `key`'s cooldown is live at `now`, its end; else null (absent or expired). One indexed read. */
async function liveExpiry(
  { db, tables }: Pick<SqlContext, "db" | "tables">,
  key: string,
  now: number,
): Promise<number | null> {
  const row = await db
    .selectFrom(tables.cooldowns)
    .select("expires_at")
    .where("id", "=", storedKey(key))
    .where("expires_at", ">", now)
    .executeTakeFirst();
  return row ? toNumber(row.expires_at) : null;
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
  return { stored, incoming, ifExpired, upsert };
}
