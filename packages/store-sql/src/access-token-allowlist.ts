import {
  type AccessTokenAllowlist,
  createReadBatch,
  type SessionStore,
  type UserStore,
} from "@portcullis/core";
import { sql } from "kysely";
import { compiledQuery } from "./compiled-query.js";
import { type SqlContext, upsert, upsertQuery } from "./context.js";
import { newSessionRow } from "./session-store.js";
import { fromUserRow, type UserRow } from "./user-store.js";

type EntryRow = { user_id: string; session_id: string };
type EntryWithUserRow = UserRow & { allowed_user_id: string; allowed_session_id: string };

/**
 * The allowlist in `<prefix>access_tokens` (migration 0005): one row per allowed `jti`, its
 * primary key, so `findAllowedAccessToken` is one lookup by key. Expired rows read as absent
 * (the time comes from the injected clock, never the database's). `users`: the users store of the
 * same tables; given it, `findAllowedAccessTokenWithUser` reads the entry and its user in one
 * statement (a left join on the users' primary key) when the core's users store is that one.
 * `sessions`: the sessions store of the same tables; given it, `allowAccessTokenWithSession`
 * writes the entry and the new session in one statement; only on PostgreSQL (a data-modifying
 * WITH; SQLite and MySQL have none, so there the method is absent and the core makes two calls).
 * On PostgreSQL (outside a transaction) the reads of requests that arrive in one turn of the
 * event loop go as one statement (`jti = any($1)`, `read-batch.ts`): each still reads the row
 * after its request arrived, so a token revoked before it is refused.
 */
export function createSqlAccessTokenAllowlist(
  context: SqlContext,
  users?: UserStore,
  sessions?: SessionStore,
): AccessTokenAllowlist {
  const { db, tables, clock } = context;
  const table = tables.accessTokens;
  const ownFindById = users?.findById;
  // The two reads of every authenticated request, compiled once (arguments: jti, now).
  const findEntry = compiledQuery<[string, number], EntryRow>(2, (on, jti, now) =>
    on
      .selectFrom(table)
      .select(["user_id", "session_id"])
      .where("jti", "=", jti)
      .where("expires_at", ">", now),
  );
  const findEntryWithUser = compiledQuery<[string, number], EntryWithUserRow>(2, (on, jti, now) =>
    on
      .selectFrom(`${table} as a`)
      .leftJoin(`${tables.users} as u`, "u.id", "a.user_id")
      .selectAll("u")
      .select(["a.user_id as allowed_user_id", "a.session_id as allowed_session_id"])
      .where("a.jti", "=", jti)
      .where("a.expires_at", ">", now),
  );
  const { entry: readEntry, withUser: readEntryWithUser } = batchedReads(
    context,
    findEntry,
    findEntryWithUser,
  );
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
    ...(sessions !== undefined && context.dialect === "postgres"
      ? { allowAccessTokenWithSession: jointWrite(context, sessions) }
      : {}),
    async findAllowedAccessToken(jti) {
      const row = await readEntry(jti);
      return row ? { userId: row.user_id, sessionId: row.session_id } : null;
    },
    async findAllowedAccessTokenWithUser(jti, usersOfCore) {
      // Only for its own users, as created: a `findById` replaced since (a host's wrapper, a
      // test's) is what the core must see, so the core reads it itself.
      if (users === undefined || usersOfCore !== users || users.findById !== ownFindById) return undefined;
      const row = await readEntryWithUser(jti);
      if (!row) return null;
      const { allowed_user_id, allowed_session_id, ...user } = row;
      return {
        entry: { userId: allowed_user_id, sessionId: allowed_session_id },
        user: user.id == null ? null : fromUserRow(user),
      };
    },
    async revokeAccessTokens(jtis) {
      if (jtis.length === 0) return;
      await db.deleteFrom(table).where("jti", "in", jtis).execute();
    },
  };
}

type Read<Row> = (db: SqlContext["db"], jti: string, now: number) => Promise<Row[]>;
type ReadMany<Row> = (db: SqlContext["db"], jtis: string[], now: number) => Promise<Row[]>;

/**
 * The allowlist's two reads by jti: on PostgreSQL outside a transaction, batched per turn of the
 * event loop (a turn's single read keeps the one-key statement); elsewhere one statement each
 * (SQLite runs in the process; a transaction's statements run one by one anyway).
 */
function batchedReads(
  { db, dialect, tables, clock }: SqlContext,
  findEntry: Read<EntryRow>,
  findEntryWithUser: Read<EntryWithUserRow>,
) {
  const single =
    <Row>(read: Read<Row>) =>
    async (jti: string): Promise<Row | undefined> =>
      (await read(db, jti, clock.now()))[0];
  if (dialect !== "postgres" || db.isTransaction)
    return { entry: single(findEntry), withUser: single(findEntryWithUser) };
  const table = tables.accessTokens;
  // The same reads for many jtis (one array parameter, so one prepared statement for any count).
  const findEntries = compiledQuery<[string[], number], EntryRow & { jti: string }>(2, (on, jtis, now) =>
    on
      .selectFrom(table)
      .select(["jti", "user_id", "session_id"])
      .where("jti", "=", sql<string>`any(${jtis})`)
      .where("expires_at", ">", now),
  );
  const findEntriesWithUser = compiledQuery<[string[], number], EntryWithUserRow & { allowed_jti: string }>(
    2,
    (on, jtis, now) =>
      on
        .selectFrom(`${table} as a`)
        .leftJoin(`${tables.users} as u`, "u.id", "a.user_id")
        .selectAll("u")
        .select([
          "a.jti as allowed_jti",
          "a.user_id as allowed_user_id",
          "a.session_id as allowed_session_id",
        ])
        .where("a.jti", "=", sql<string>`any(${jtis})`)
        .where("a.expires_at", ">", now),
  );
  const batch = <Row, Many extends Row>(one: Read<Row>, many: ReadMany<Many>, jtiOf: (row: Many) => string) =>
    createReadBatch<string, Row>(async (jtis) => {
      const now = clock.now();
      if (jtis.length === 1) {
        const [jti] = jtis as [string];
        const [row] = await one(db, jti, now);
        return new Map(row ? [[jti, row]] : []);
      }
      const rows = await many(db, jtis, now);
      return new Map(rows.map((row) => [jtiOf(row), row]));
    });
  return {
    entry: batch(findEntry, findEntries, (row) => row.jti),
    withUser: batch(findEntryWithUser, findEntriesWithUser, (row) => row.allowed_jti),
  };
}

/**
 * `allowAccessTokenWithSession` on PostgreSQL: the entry's UPSERT as a data-modifying WITH of the
 * session's, one statement, so both rows are written or neither. Only for `sessions` as created (a
 * wrapped `createSession` must be called, so the core makes the two calls).
 */
function jointWrite(
  { db, dialect, tables, clock }: SqlContext,
  sessions: SessionStore,
): NonNullable<AccessTokenAllowlist["allowAccessTokenWithSession"]> {
  const ownCreateSession = sessions.createSession;
  return async (jti, entry, ttlMs, session, sessionTtlMs, sessionsOfCore) => {
    if (sessionsOfCore !== sessions || sessions.createSession !== ownCreateSession) return false;
    const now = clock.now();
    const allowed = { jti, user_id: entry.userId, session_id: entry.sessionId, expires_at: now + ttlMs };
    const withAllowed = db.with("allowed", (on) =>
      upsertQuery({ db: on, dialect }, tables.accessTokens, "jti", allowed),
    );
    const created = newSessionRow(session, now + sessionTtlMs);
    await upsertQuery({ db: withAllowed, dialect }, tables.sessions, "id", created).execute();
    return true;
  };
}
