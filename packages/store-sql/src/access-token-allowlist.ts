import type { AccessTokenAllowlist } from "@portcullis/core";
import { type SqlContext, upsert } from "./context.js";

/**
 * The allowlist in `<prefix>access_tokens` (migration 0005): one row per allowed `jti`, its
 * primary key, so `findAllowedAccessToken` is one lookup by key. Expired rows read as absent
 * (the time comes from the injected clock, never the database's).
 */
export function createSqlAccessTokenAllowlist(context: SqlContext): AccessTokenAllowlist {
  const { db, tables, clock } = context;
  const table = tables.accessTokens;
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
      const row = await db
        .selectFrom(table)
        .select(["user_id", "session_id"])
        .where("jti", "=", jti)
        .where("expires_at", ">", clock.now())
        .executeTakeFirst();
      return row ? { userId: row.user_id as string, sessionId: row.session_id as string } : null;
    },
    async revokeAccessTokens(jtis) {
      if (jtis.length === 0) return;
      await db.deleteFrom(table).where("jti", "in", jtis).execute();
    },
  };
}
