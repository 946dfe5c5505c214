import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { User } from "../model.js";
import { assertNotLocked } from "../sessions/account-lock.js";
import type { Acting } from "../sessions/admin-actor.js";
import { IMPERSONATION_MAX_MS } from "../sessions/impersonation.js";
import { startSession } from "../sessions/start-session.js";
import { adminUserInput, parseInput } from "../validation.js";

/** What `admin.impersonate` hands the admin: a session as the user, for at most an hour. */
export interface Impersonation {
  user: User;
  accessToken: string;
  refreshToken: string;
  sessionId: string;
  /** ISO 8601: when the session ends, refreshed or not (one hour after it started). */
  expiresAt: string;
}

/**
 * A session as the user, for support: it works like the user's own (its `/me` says
 * `impersonatedBy`), ends an hour after it started (its access tokens expire by then, a refresh
 * after it is `SESSION_EXPIRED`), cannot step up (`IMPERSONATION_NOT_ALLOWED`: no security
 * setting changes, no admin route) and sends no login alert. Recorded in the user's activity and
 * emitted as `impersonation.started`, naming the admin. A locked account is `ACCOUNT_LOCKED`;
 * `USER_NOT_FOUND` for an unknown id. Reads `call.request` (the session's IP and browser).
 */
export async function impersonateUser(
  ctx: AuthContext,
  acting: Acting,
  userId: string,
): Promise<Impersonation> {
  const { actor } = acting;
  const { userId: id } = parseInput(adminUserInput, { userId });
  const { request = {} } = acting;
  const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findById(id));
  if (!user) throw new AuthError("USER_NOT_FOUND");
  assertNotLocked(user);
  const { record, ...tokens } = await startSession(ctx, user, undefined, request, true, actor);
  const details = { ...request, userId: id, sessionId: tokens.sessionId, actor };
  ctx.events.emit("impersonation.started", { ...details, reason: "admin" });
  ctx.events.emit("session.created", { ...details, reason: "impersonation" });
  return {
    user: tokens.user,
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    sessionId: tokens.sessionId,
    expiresAt: new Date(record.createdAt + IMPERSONATION_MAX_MS).toISOString(),
  };
}
