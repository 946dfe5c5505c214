import { type AccessTokenAllowlist, createReadBatch } from "@portcullis/core";
import { sql } from "kysely";
import { compiledQuery } from "./compiled-query.js";
import { type SqlContext, upsert } from "./context.js";

type EntryRow = { user_id: string; session_id: string };

/**
 * The allowlist in `<prefix>access_tokens` (migration 0005): one row per allowed `jti`, its
 * primary key, so `findAllowedAccessToken` is one lookup by key. Expired rows read as absent
 * (the time comes from the injected clock, never the database's). On PostgreSQL (outside a
 * transaction) the reads of requests that arrive in one turn of the event loop go as one
 * statement (`jti = any($1)`, `read-batch.ts`): each still reads the row after its request
 * arrived, so a token revoked before it is refused. An entry read with its user, or written with
 * a new session, in one statement is `createSqlJointStores` (`joint-stores.ts`).
 */
export function createSqlAccessTokenAllowlist(context: SqlContext): AccessTokenAllowlist {
  const { db, tables, clock } = context;
  const table = tables.accessTokens;
  // The read of every authenticated request, compiled once (arguments: jti, now).
  const findEntry = compiledQuery<[string, number], EntryRow>(2, (on, jti, now) =>
    on
      .selectFrom(table)
      .select(["user_id", "session_id"])
      .where("jti", "=", jti)
      .where("expires_at", ">", now),
  );
  // The same read for many jtis (one array parameter, so one prepared statement for any count).
  const findEntries = () =>
    compiledQuery<[string[], number], EntryRow & { jti: string }>(2, (on, jtis, now) =>
      on
        .selectFrom(table)
        .select(["jti", "user_id", "session_id"])
        .where("jti", "=", sql<string>`any(${jtis})`)
        .where("expires_at", ">", now),
    );
  const readEntry = batchedRead(context, findEntry, findEntries, (row) => row.jti);
  return {
    async allowAccessToken(jti, entry, ttlMs) {
      const row = {
        jti,
        user_id: entry.userId,
        session_id: entry.sessionId,
        expires_at: clock.now() + ttlMs,
      };
      await upsert(context, table, "jti", row);
    },
    async findAllowedAccessToken(jti) {
      const row = await readEntry(jti);
      return row ? { userId: row.user_id, sessionId: row.session_id } : null;
    },
    async revokeAccessTokens(jtis) {
      if (jtis.length === 0) return;
      await db.deleteFrom(table).where("jti", "in", jtis).execute();
    },
  };
}

/** A read by one jti (arguments: db, jti, now). */
export type Read<Row> = (db: SqlContext["db"], jti: string, now: number) => Promise<Row[]>;
/** The same read for many jtis at once. */
export type ReadMany<Row> = (db: SqlContext["db"], jtis: string[], now: number) => Promise<Row[]>;

/**
 * A read of the allowlist by jti: on PostgreSQL outside a transaction, batched per turn of the
 * event loop through `many` (built only there; a turn's single read keeps the one-key statement
 * of `one`); elsewhere one statement each (SQLite runs in the process; a transaction's
 * statements run one by one anyway). `jtiOf` tells which jti a row of `many` answers.
 */
export function batchedRead<Row, Many extends Row>(
  { db, dialect, clock }: SqlContext,
  one: Read<Row>,
  many: () => ReadMany<Many>,
  jtiOf: (row: Many) => string,
): (jti: string) => Promise<Row | undefined> {
  if (dialect !== "postgres" || db.isTransaction) return async (jti) => (await one(db, jti, clock.now()))[0];
  const readMany = many();
  const batch = createReadBatch<string, Row>(async (jtis) => {
    const now = clock.now();
    if (jtis.length === 1) {
      const [jti] = jtis as [string];
      const [row] = await one(db, jti, now);
      return new Map(row ? [[jti, row]] : []);
    }
    const rows = await readMany(db, jtis, now);
    return new Map(rows.map((row) => [jtiOf(row), row]));
  });
  return batch;
}
