import type { AuthContext } from "../context.js";
import { AuthError, guardPort, ValidationError } from "../errors.js";
import { type AdminUser, toAdminUser } from "../model.js";
import type { Acting } from "../sessions/admin-actor.js";
import { adminListInput, fieldIssue, parseInput } from "../validation.js";

/** A page of `admin.listUsers`: `nextCursor` is null on the last page. */
export interface UserPage {
  items: AdminUser[];
  nextCursor: string | null;
}

/**
 * Users whose normalized address starts with `query` (trimmed, NFKC, lower-cased; empty: every
 * user), in address order, `limit` at a time (1 to 100, default 20, also as text). `cursor` is
 * the previous page's `nextCursor`: an opaque position after the last address shown, so users
 * added or removed between pages never make a page repeat or skip one that was there all along.
 * A cursor this server did not make is `VALIDATION_FAILED`.
 */
export async function listUsers(
  ctx: AuthContext,
  acting: Acting,
  input?: { query?: string | undefined; cursor?: string | undefined; limit?: number | string | undefined },
): Promise<UserPage> {
  const { actor } = acting;
  const { query, cursor, limit } = parseInput(adminListInput, input ?? {});
  const { users } = ctx;
  if (!users.listUsers) {
    ctx.logger.error(
      { event: "users.list_unsupported" },
      "stores.users has no listUsers: the back office cannot list users",
    );
    throw new AuthError("INTERNAL_ERROR");
  }
  const prefix = query.trim().normalize("NFKC").toLowerCase();
  const after = cursor === undefined ? undefined : decodeUserCursor(cursor);
  const found = await guardPort("DATABASE_FAILURE", () =>
    (users.listUsers as NonNullable<typeof users.listUsers>).call(users, { prefix, after, limit: limit + 1 }),
  );
  const items = found.slice(0, limit);
  const last = items.at(-1);
  ctx.events.emit("admin.users_listed", { ...acting.request, actor });
  return {
    items: items.map(toAdminUser),
    nextCursor: found.length > limit && last ? encodeUserCursor(last.email) : null,
  };
}

/** The opaque cursor after `email`: `u1.` and the address, base64url. */
function encodeUserCursor(email: string): string {
  return Buffer.from(`u1.${email}`, "utf8").toString("base64url");
}

/** The address a cursor names; `VALIDATION_FAILED` (at `cursor`) for one this server did not make. */
function decodeUserCursor(cursor: string): string {
  const text = /^[A-Za-z0-9_-]{1,600}$/.test(cursor) ? Buffer.from(cursor, "base64url").toString("utf8") : "";
  if (!text.startsWith("u1.") || text.length < 4 || /[\p{Cc}\uFFFD]/u.test(text))
    throw new ValidationError([fieldIssue("cursor", "invalid_cursor")]);
  return text.slice(3);
}
