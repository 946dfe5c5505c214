import {
  applyRotation,
  type RotationResult,
  type SessionRecord,
  type SessionStore,
  type TokenRecord,
} from "@portcullis/core";
import { type SqlContext, toNumber } from "./context.js";

/** How many earlier refresh-token hashes a session remembers for reuse detection. */
const REMEMBERED_HASHES = 32;
/** Rounds of read-then-conditional-update before a rotation that keeps losing races gives up. */
const ROTATION_ATTEMPTS = 5;

/**
 * A row of `<prefix>sessions`. The session's current access token (the allowlist entry) is part
 * of the row: rotating, deleting and revoking touch one row, so no operation needs two tables.
 */
interface SessionRow {
  id: string;
  user_id: string;
  browser: string | null;
  os: string | null;
  ip: string | null;
  created_at: number | string;
  last_active_at: number | string;
  refresh_token_hash: string;
  /** JSON array, newest first, at most 32. */
  previous_refresh_token_hashes: string;
  access_token_jti: string;
  access_token_expires_at: number | string;
  expires_at: number | string;
}

interface TokenRow {
  purpose: string;
  token_hash: string;
  user_id: string;
  expires_at: number | string;
  data: string | null;
  /** When the row reads as absent (`ttlMs` after it was saved). */
  delete_at: number | string;
}

const fromSessionRow = (row: SessionRow): SessionRecord => ({
  id: row.id,
  userId: row.user_id,
  browser: row.browser,
  os: row.os,
  ip: row.ip,
  createdAt: toNumber(row.created_at),
  lastActiveAt: toNumber(row.last_active_at),
  refreshTokenHash: row.refresh_token_hash,
  accessTokenJti: row.access_token_jti,
});

const fromTokenRow = (row: TokenRow): TokenRecord => ({
  purpose: row.purpose,
  tokenHash: row.token_hash,
  userId: row.user_id,
  expiresAt: toNumber(row.expires_at),
  ...(row.data === null ? {} : { data: JSON.parse(row.data) as TokenRecord["data"] }),
});

/** A live session's row, or undefined when absent or expired at `now`. */
const liveSession = ({ db, tables }: SqlContext, id: string, now: number) =>
  db
    .selectFrom(tables.sessions)
    .selectAll()
    .where("id", "=", id)
    .where("expires_at", ">", now)
    .executeTakeFirst() as Promise<SessionRow | undefined>;

/** Deletes one row and returns it as it was: `DELETE … RETURNING`, or (MySQL) read, then delete and count. */
async function deleteReturning<Row>(
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

/**
 * Sessions, the access-token allowlist and single-use tokens in SQL. Expired rows read as absent
 * in every query (the time comes from the injected clock, never the database's), whether or not
 * `sweep` has removed them yet.
 */
export function createSqlSessionStore(context: SqlContext): SessionStore {
  return {
    ...sessionMethods(context),
    ...rotationMethods(context),
    ...allowlistMethods(context),
    ...tokenMethods(context),
  };
}

/** Creating, reading and deleting session rows. */
function sessionMethods(
  context: SqlContext,
): Pick<
  SessionStore,
  "createSession" | "getSession" | "listSessions" | "deleteSession" | "deleteUserSessions"
> {
  const { db, dialect, tables, clock } = context;
  const sessions = tables.sessions;
  return {
    async createSession(session, ttls) {
      const now = clock.now();
      const row: SessionRow = {
        id: session.id,
        user_id: session.userId,
        browser: session.browser,
        os: session.os,
        ip: session.ip,
        created_at: session.createdAt,
        last_active_at: session.lastActiveAt,
        refresh_token_hash: session.refreshTokenHash,
        previous_refresh_token_hashes: "[]",
        access_token_jti: session.accessTokenJti,
        access_token_expires_at: now + ttls.accessTokenTtlMs,
        expires_at: now + ttls.sessionTtlMs,
      };
      const { id: _id, ...rest } = row;
      const insert = db.insertInto(sessions).values(row);
      await (dialect === "mysql"
        ? insert.onDuplicateKeyUpdate(rest)
        : insert.onConflict((conflict) => conflict.column("id").doUpdateSet(rest))
      ).execute();
    },

    async getSession(id) {
      const row = await liveSession(context, id, clock.now());
      return row ? fromSessionRow(row) : null;
    },

    async listSessions(userId) {
      const rows = (await db
        .selectFrom(sessions)
        .selectAll()
        .where("user_id", "=", userId)
        .where("expires_at", ">", clock.now())
        .execute()) as SessionRow[];
      return rows.map(fromSessionRow);
    },

    async deleteSession(id) {
      const row = await deleteReturning<SessionRow>(context, sessions, { id });
      return row && toNumber(row.expires_at) > clock.now() ? fromSessionRow(row) : null;
    },

    async deleteUserSessions(userId, exceptSessionId) {
      let query = db.deleteFrom(sessions).where("user_id", "=", userId).where("expires_at", ">", clock.now());
      if (exceptSessionId !== undefined) query = query.where("id", "<>", exceptSessionId);
      return Number((await query.executeTakeFirst()).numDeletedRows);
    },
  };
}

/** Refresh-token rotation with reuse detection, as a conditional update retried on lost races. */
function rotationMethods(context: SqlContext): Pick<SessionStore, "rotateRefreshToken"> {
  const { db, tables, clock } = context;
  const sessions = tables.sessions;
  return {
    async rotateRefreshToken(sessionId, presentedHash, next, ttls): Promise<RotationResult> {
      for (let attempt = 0; attempt < ROTATION_ATTEMPTS; attempt++) {
        const now = clock.now();
        const row = await liveSession(context, sessionId, now);
        if (!row) return { status: "invalid" };
        const current = fromSessionRow(row);
        if (row.refresh_token_hash !== presentedHash) {
          const previous = JSON.parse(row.previous_refresh_token_hashes) as string[];
          if (!previous.includes(presentedHash)) return { status: "invalid" };
          await db.deleteFrom(sessions).where("id", "=", sessionId).execute();
          return { status: "reused", session: current };
        }
        const rotated = applyRotation(current, next);
        const previous = [presentedHash, ...(JSON.parse(row.previous_refresh_token_hashes) as string[])];
        // Conditional on the hash just read: of concurrent rotations exactly one updates the row;
        // the others read again and find their hash among the previous ones (reuse).
        const { numUpdatedRows } = await db
          .updateTable(sessions)
          .set({
            browser: rotated.browser,
            os: rotated.os,
            ip: rotated.ip,
            last_active_at: rotated.lastActiveAt,
            refresh_token_hash: rotated.refreshTokenHash,
            previous_refresh_token_hashes: JSON.stringify(previous.slice(0, REMEMBERED_HASHES)),
            access_token_jti: rotated.accessTokenJti,
            access_token_expires_at: now + ttls.accessTokenTtlMs,
            expires_at: now + ttls.sessionTtlMs,
          })
          .where("id", "=", sessionId)
          .where("refresh_token_hash", "=", presentedHash)
          .where("expires_at", ">", now)
          .executeTakeFirst();
        if (Number(numUpdatedRows) === 1) return { status: "rotated", session: rotated };
      }
      throw new Error(`rotateRefreshToken lost ${ROTATION_ATTEMPTS} races in a row on one session`);
    },
  };
}

/** The allowlist: a session row's current access token, live while both it and the session are. */
function allowlistMethods({ db, tables, clock }: SqlContext): Pick<SessionStore, "findAllowedAccessToken"> {
  return {
    async findAllowedAccessToken(jti) {
      const now = clock.now();
      const row = await db
        .selectFrom(tables.sessions)
        .select(["id", "user_id"])
        .where("access_token_jti", "=", jti)
        .where("access_token_expires_at", ">", now)
        .where("expires_at", ">", now)
        .executeTakeFirst();
      return row ? { userId: row.user_id as string, sessionId: row.id as string } : null;
    },
  };
}

/** Single-use tokens in `<prefix>tokens`, keyed by purpose and hash. */
function tokenMethods(
  context: SqlContext,
): Pick<SessionStore, "saveToken" | "consumeToken" | "claimToken" | "releaseToken" | "deleteUserTokens"> {
  const { db, tables, clock } = context;
  const tokens = tables.tokens;
  return {
    async saveToken(token, ttlMs, options) {
      const row: TokenRow = {
        purpose: token.purpose,
        token_hash: token.tokenHash,
        user_id: token.userId,
        expires_at: token.expiresAt,
        data: token.data === undefined ? null : JSON.stringify(token.data),
        delete_at: clock.now() + ttlMs,
      };
      await db.transaction().execute(async (trx) => {
        if (options?.replaceOthers) {
          await trx
            .deleteFrom(tokens)
            .where("user_id", "=", token.userId)
            .where("purpose", "=", token.purpose)
            .execute();
        }
        await trx
          .deleteFrom(tokens)
          .where("purpose", "=", token.purpose)
          .where("token_hash", "=", token.tokenHash)
          .execute();
        await trx.insertInto(tokens).values(row).execute();
      });
    },

    async consumeToken(purpose, tokenHash) {
      const row = await deleteReturning<TokenRow>(context, tokens, { purpose, token_hash: tokenHash });
      return row && toNumber(row.delete_at) > clock.now() ? fromTokenRow(row) : null;
    },

    async claimToken(purpose, tokenHash, leaseMs) {
      const now = clock.now();
      // One conditional UPDATE: of concurrent claims, the database lets exactly one match.
      const { numUpdatedRows } = await db
        .updateTable(tokens)
        .set({ claimed_until: now + Math.max(1, Math.ceil(leaseMs)) })
        .where("purpose", "=", purpose)
        .where("token_hash", "=", tokenHash)
        .where("delete_at", ">", now)
        .where((eb) => eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<=", now)]))
        .executeTakeFirst();
      if (Number(numUpdatedRows) !== 1) return null;
      const row = (await db
        .selectFrom(tokens)
        .selectAll()
        .where("purpose", "=", purpose)
        .where("token_hash", "=", tokenHash)
        .executeTakeFirst()) as TokenRow | undefined;
      return row ? fromTokenRow(row) : null;
    },

    async releaseToken(purpose, tokenHash) {
      await db
        .updateTable(tokens)
        .set({ claimed_until: null })
        .where("purpose", "=", purpose)
        .where("token_hash", "=", tokenHash)
        .execute();
    },

    async deleteUserTokens(userId, purpose) {
      const { numDeletedRows } = await db
        .deleteFrom(tokens)
        .where("user_id", "=", userId)
        .where("purpose", "=", purpose)
        .where("delete_at", ">", clock.now())
        .executeTakeFirst();
      return Number(numDeletedRows);
    },
  };
}
