import {
  applyRotation,
  isPastLimits,
  REMEMBERED_REFRESH_TOKEN_HASHES,
  type RotationResult,
  type SessionLimits,
  type SessionRecord,
  type SessionStore,
} from "@portcullis/core";
import { deleteReturning, inTransaction, type SqlContext, toNumber, upsert } from "./context.js";

/** Rounds of read-then-conditional-update before a rotation that keeps losing races gives up. */
const ROTATION_ATTEMPTS = 5;

/**
 * A row of `<prefix>sessions`. The allowlist has its own table since migration 0005
 * (`<prefix>access_tokens`); `access_token_expires_at` is no longer read: it is written as the
 * session's expiry, so a process of an earlier version (during a rolling upgrade) still accepts
 * the session's current access token.
 */
export interface SessionRow {
  id: string;
  user_id: string;
  browser: string | null;
  os: string | null;
  ip: string | null;
  created_at: number | string;
  last_active_at: number | string;
  refresh_token_hash: string;
  /** JSON array, newest first, at most `REMEMBERED_REFRESH_TOKEN_HASHES`. */
  previous_refresh_token_hashes: string;
  access_token_jti: string;
  access_token_expires_at: number | string;
  expires_at: number | string;
  /** When the latest rotation happened (migration 0006); null before the first. */
  rotated_at?: number | string | null;
  /** 0 when the session is not remembered (migration 0007); null or 1 otherwise. */
  remember_me?: number | string | null;
  /** Who started an impersonation session (migration 0012); null for the user's own sessions. */
  impersonated_by?: string | null;
  /**
   * The session's active organization (migration 0013): its id; `""` when set to none (null);
   * null when never set (the record has no `activeOrganizationId`).
   */
  active_organization_id?: string | null;
}

/** Whether `presentedHash` is the parent of `row`'s current hash, rotated at most `intervalMs` before `now`. */
function isParentWithinInterval(row: SessionRow, presentedHash: string, now: number, intervalMs: number) {
  const [parent] = JSON.parse(row.previous_refresh_token_hashes) as string[];
  if (parent !== presentedHash || intervalMs <= 0 || row.rotated_at == null) return false;
  return now - toNumber(row.rotated_at) <= intervalMs;
}

/** When the session was last active on the store's clock: its latest rotation, else its creation. */
const activeAt = (row: SessionRow) => toNumber(row.rotated_at ?? row.created_at);

/**
 * Deletes the session of `row` if it is still as read (same refresh token hash): true when this
 * call deleted it. A rotation between the read and here changed the hash, and the caller reads again.
 */
async function deleteIfUnchanged({ db, tables }: SqlContext, row: SessionRow): Promise<boolean> {
  const { numDeletedRows } = await db
    .deleteFrom(tables.sessions)
    .where("id", "=", row.id)
    .where("refresh_token_hash", "=", row.refresh_token_hash)
    .executeTakeFirst();
  return Number(numDeletedRows) === 1;
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
  ...(row.remember_me != null && Number(row.remember_me) === 0 ? { rememberMe: false } : {}),
  ...(row.impersonated_by != null ? { impersonatedBy: row.impersonated_by } : {}),
  ...(row.active_organization_id != null
    ? { activeOrganizationId: row.active_organization_id === "" ? null : row.active_organization_id }
    : {}),
});

/** `active_organization_id` for an active organization: its id, or `""` for none (null is never set). */
const activeOrganizationColumn = (organizationId: string | null) => organizationId ?? "";

/** A live session's row, or undefined when absent or expired at `now`. */
const liveSession = ({ db, tables }: SqlContext, id: string, now: number) =>
  db
    .selectFrom(tables.sessions)
    .selectAll()
    .where("id", "=", id)
    .where("expires_at", ">", now)
    .executeTakeFirst() as Promise<SessionRow | undefined>;

/**
 * Sessions in SQL. Expired rows read as absent in every query (the time comes from the injected
 * clock, never the database's), whether or not `sweep` has removed them yet.
 */
export function createSqlSessionStore(context: SqlContext): SessionStore {
  return {
    ...sessionMethods(context),
    ...rotationMethods(context),
    setActiveOrganization: (id, organizationId) => setActiveOrganization(context, id, organizationId),
  };
}

/**
 * Sets the live session's `active_organization_id` (one UPDATE of that column alone, so a
 * rotation racing it keeps its outcome) and reads the session back: null when it is gone.
 */
async function setActiveOrganization(
  context: SqlContext,
  id: string,
  organizationId: string | null,
): Promise<SessionRecord | null> {
  const { db, dialect, tables, clock } = context;
  const now = clock.now();
  const update = db
    .updateTable(tables.sessions)
    .set({ active_organization_id: activeOrganizationColumn(organizationId) })
    .where("id", "=", id)
    .where("expires_at", ">", now);
  if (dialect !== "mysql") {
    const row = (await update.returningAll().executeTakeFirst()) as SessionRow | undefined;
    return row ? fromSessionRow(row) : null;
  }
  // MySQL has no RETURNING, and counts an UPDATE that changes nothing as 0 rows: read it back.
  await update.execute();
  const row = await liveSession(context, id, now);
  return row ? fromSessionRow(row) : null;
}

/** The row `createSession` stores for a new session that expires at `expiresAt`. */
export function newSessionRow(session: SessionRecord, expiresAt: number): SessionRow {
  return {
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
    access_token_expires_at: expiresAt,
    expires_at: expiresAt,
    ...(session.rememberMe === false ? { remember_me: 0 } : {}),
    ...(session.impersonatedBy !== undefined ? { impersonated_by: session.impersonatedBy } : {}),
    // Written only when given, so a database not yet at 0013 still takes sessions without one.
    ...(session.activeOrganizationId !== undefined
      ? { active_organization_id: activeOrganizationColumn(session.activeOrganizationId) }
      : {}),
  };
}

/** Creating, reading and deleting session rows. */
function sessionMethods(
  context: SqlContext,
): Pick<
  SessionStore,
  "createSession" | "getSession" | "listSessions" | "deleteSession" | "deleteUserSessions"
> {
  const { db, tables, clock } = context;
  const sessions = tables.sessions;
  return {
    async createSession(session, ttlMs) {
      await upsert(context, sessions, "id", newSessionRow(session, clock.now() + ttlMs));
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
      return (await deleteUserRows(context, userId, exceptSessionId)).map(fromSessionRow);
    },
  };
}

/**
 * Deletes the user's live session rows (but `exceptSessionId`) and returns them as they were:
 * `DELETE … RETURNING`, or (MySQL) the rows locked with `SELECT … FOR UPDATE`, then deleted, in
 * one transaction, so of concurrent calls each row is returned by the one that deleted it.
 */
async function deleteUserRows(
  { db, dialect, tables, clock }: SqlContext,
  userId: string,
  exceptSessionId: string | undefined,
): Promise<SessionRow[]> {
  const now = clock.now();
  if (dialect !== "mysql") {
    let query = db.deleteFrom(tables.sessions).where("user_id", "=", userId).where("expires_at", ">", now);
    if (exceptSessionId !== undefined) query = query.where("id", "<>", exceptSessionId);
    return (await query.returningAll().execute()) as SessionRow[];
  }
  return inTransaction(db, async (trx) => {
    let read = trx
      .selectFrom(tables.sessions)
      .selectAll()
      .where("user_id", "=", userId)
      .where("expires_at", ">", now);
    if (exceptSessionId !== undefined) read = read.where("id", "<>", exceptSessionId);
    const rows = (await read.forUpdate().execute()) as SessionRow[];
    if (rows.length > 0) {
      await trx
        .deleteFrom(tables.sessions)
        .where(
          "id",
          "in",
          rows.map((row) => row.id),
        )
        .execute();
    }
    return rows;
  });
}

/** Refresh-token rotation with reuse detection, as a conditional update retried on lost races. */
function rotationMethods(context: SqlContext): Pick<SessionStore, "rotateRefreshToken"> {
  const { db, tables, clock } = context;
  const sessions = tables.sessions;
  return {
    async rotateRefreshToken(
      sessionId,
      presentedHash,
      next,
      ttlMs,
      reuseIntervalMs = 0,
      limits?: SessionLimits,
    ): Promise<RotationResult> {
      for (let attempt = 0; attempt < ROTATION_ATTEMPTS; attempt++) {
        const now = clock.now();
        const row = await liveSession(context, sessionId, now);
        if (!row) return { status: "invalid" };
        const current = fromSessionRow(row);
        const isCurrent = row.refresh_token_hash === presentedHash;
        const previous = JSON.parse(row.previous_refresh_token_hashes) as string[];
        if (!isCurrent && !previous.includes(presentedHash)) return { status: "invalid" };
        if (limits && isPastLimits(current.createdAt, activeAt(row), now, limits)) {
          // Conditional on the row read: a rotation that landed meanwhile reset the idle clock.
          if (await deleteIfUnchanged(context, row)) return { status: "expired", session: current };
          continue;
        }
        if (!isCurrent) {
          // One read decides it: the parent within the interval changes nothing.
          if (isParentWithinInterval(row, presentedHash, now, reuseIntervalMs))
            return { status: "current", session: current };
          await db.deleteFrom(sessions).where("id", "=", sessionId).execute();
          return { status: "reused", session: current };
        }
        const rotated = applyRotation(current, next);
        const remembered = [presentedHash, ...previous];
        // Conditional on the hash just read: of concurrent rotations exactly one updates the row;
        // the others read again and find their hash as the parent (current, within the interval)
        // or among the previous ones (reuse).
        const { numUpdatedRows } = await db
          .updateTable(sessions)
          .set({
            browser: rotated.browser,
            os: rotated.os,
            ip: rotated.ip,
            last_active_at: rotated.lastActiveAt,
            refresh_token_hash: rotated.refreshTokenHash,
            previous_refresh_token_hashes: JSON.stringify(
              remembered.slice(0, REMEMBERED_REFRESH_TOKEN_HASHES),
            ),
            access_token_jti: rotated.accessTokenJti,
            access_token_expires_at: now + ttlMs,
            expires_at: now + ttlMs,
            rotated_at: now,
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
