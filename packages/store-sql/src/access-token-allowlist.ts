import type { AccessTokenAllowlist, UserStore } from "@portcullis/core";
import { compiledQuery } from "./compiled-query.js";
import { type SqlContext, upsert } from "./context.js";
import { fromUserRow, type UserRow } from "./user-store.js";

/**
 * The allowlist in `<prefix>access_tokens` (migration 0005): one row per allowed `jti`, its
 * primary key, so `findAllowedAccessToken` is one lookup by key. Expired rows read as absent
 * (the time comes from the injected clock, never the database's). `users`: the users store of the
 * same tables; given it, `findAllowedAccessTokenWithUser` reads the entry and its user in one
 * statement (a left join on the users' primary key) when the core's users store is that one.
 */
export function createSqlAccessTokenAllowlist(context: SqlContext, users?: UserStore): AccessTokenAllowlist {
  const { db, tables, clock } = context;
  const table = tables.accessTokens;
  const ownFindById = users?.findById;
  // The two reads of every authenticated request, compiled once (arguments: jti, now).
  const findEntry = compiledQuery<[string, number], { user_id: string; session_id: string }>(
    2,
    (on, jti, now) =>
      on
        .selectFrom(table)
        .select(["user_id", "session_id"])
        .where("jti", "=", jti)
        .where("expires_at", ">", now),
  );
  const findEntryWithUser = compiledQuery<
    [string, number],
    UserRow & { allowed_user_id: string; allowed_session_id: string }
  >(2, (on, jti, now) =>
    on
      .selectFrom(`${table} as a`)
      .leftJoin(`${tables.users} as u`, "u.id", "a.user_id")
      .selectAll("u")
      .select(["a.user_id as allowed_user_id", "a.session_id as allowed_session_id"])
      .where("a.jti", "=", jti)
      .where("a.expires_at", ">", now),
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
    async findAllowedAccessToken(jti) {
      const [row] = await findEntry(db, jti, clock.now());
      return row ? { userId: row.user_id, sessionId: row.session_id } : null;
    },
    async findAllowedAccessTokenWithUser(jti, usersOfCore) {
      // Only for its own users, as created: a `findById` replaced since (a host's wrapper, a
      // test's) is what the core must see, so the core reads it itself.
      if (users === undefined || usersOfCore !== users || users.findById !== ownFindById) return undefined;
      const [row] = await findEntryWithUser(db, jti, clock.now());
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
