import type { AuthContext } from "../context.js";
import { AuthError, type ErrorCode, guardPort } from "../errors.js";
import type { SecurityEventType } from "../events.js";
import type { Call, RequestContext } from "../model.js";
import { toUser } from "../model.js";
import { activeOrganizationOnRefresh, signSessionAccessToken } from "../organizations/active.js";
import type { SessionRecord } from "../ports/session-store.js";
import { isLocked } from "../sessions/account-lock.js";
import { impersonationEnd } from "../sessions/impersonation.js";
import {
  endSession,
  newAccessTokenId,
  rotateSession,
  sessionLifetimes,
} from "../sessions/session-lifecycle.js";
import type { SessionTokens } from "../sessions/start-session.js";
import { describeDevice } from "../support/user-agent.js";
import { parseRefreshToken, successorRefreshToken } from "../tokens/refresh-token.js";
import { parseInput, refreshInput } from "../validation.js";

/** How a refresh refuses a session it ends: the event, its reason, the error. */
interface SessionRefusal {
  type: SecurityEventType;
  reason: string;
  code: ErrorCode;
}
/** A refresh token presented again after its rotation: the session is revoked (theft). */
const REUSED: SessionRefusal = {
  type: "refresh_token.reused",
  reason: "session_revoked",
  code: "REFRESH_TOKEN_INVALID",
};
/** A session past its limits, or an impersonation past its hour. */
const EXPIRED: SessionRefusal = { type: "session.revoked", reason: "expired", code: "SESSION_EXPIRED" };

/** Emits the refusal's event for the session, then throws its error. */
function refuseSession(
  ctx: AuthContext,
  request: RequestContext,
  session: SessionRecord,
  { type, reason, code }: SessionRefusal,
): never {
  ctx.events.emit(type, { ...request, userId: session.userId, sessionId: session.id, reason });
  throw new AuthError(code);
}

/** A refresh answers like a sign-in: the session's new tokens. */
export type RefreshResult = SessionTokens;

/**
 * Rotates the refresh token: the presented one stops working and a new refresh and access token
 * are issued. Presenting a token that was already rotated revokes the whole session (theft),
 * except the one the latest rotation replaced within `refreshReuseIntervalSeconds`: that answers
 * the session's current refresh token (derived again from it) and an access token re-signed with
 * the session's current `jti`, so concurrent refreshes (two tabs) all succeed. A session past
 * `idleTimeoutSeconds` or `absoluteLifetimeSeconds` is ended (the store decides, atomically with
 * the rotation) and the answer is `SESSION_EXPIRED`.
 */
export async function refresh(
  ctx: AuthContext,
  { token: refreshToken, request = {} }: Call,
  input: unknown,
): Promise<RefreshResult> {
  const body = parseInput(refreshInput, input);
  const parsed = refreshToken ? parseRefreshToken(refreshToken) : null;
  if (!parsed || !refreshToken) throw new AuthError("REFRESH_TOKEN_INVALID");

  const next = successorRefreshToken(ctx.refreshTokenSuccessors, parsed.sessionId, refreshToken);
  const jti = newAccessTokenId(ctx, parsed.sessionId);
  const stated = body?.session;
  const device = stated?.browser || stated?.os ? describeDevice(stated, request.userAgent) : undefined;
  const result = await rotateSession(
    ctx,
    parsed.sessionId,
    parsed.hash,
    {
      refreshTokenHash: next.hash,
      accessTokenJti: jti,
      lastActiveAt: ctx.clock.now(),
      ...(request.ip ? { ip: request.ip } : {}),
      ...(device ? { browser: device.browser, os: device.os } : {}),
    },
    sessionLifetimes(ctx),
  );
  if (result.status === "reused") refuseSession(ctx, request, result.session, REUSED);
  if (result.status === "expired") refuseSession(ctx, request, result.session, EXPIRED);
  if (result.status === "invalid") throw new AuthError("REFRESH_TOKEN_INVALID");

  const { session } = result;
  // `current`: the session's token is the successor of the one presented (under one of the
  // secrets); a session whose token was not derived so (issued before) cannot be handed out.
  const issued =
    result.status === "current"
      ? next.candidates.find((candidate) => candidate.hash === session.refreshTokenHash)
      : next;
  if (!issued) throw new AuthError("REFRESH_TOKEN_INVALID");
  const now = ctx.clock.now();
  const user = await allowedUser(ctx, session, now, request);
  // The session's active organization, while its user is still a member (read now).
  const organizationId = await activeOrganizationOnRefresh(ctx, session);
  const accessToken = await signSessionAccessToken(ctx, session, organizationId, now);
  return {
    user: toUser(user),
    accessToken,
    refreshToken: issued.token,
    sessionId: session.id,
    rememberMe: session.rememberMe !== false,
  };
}

/**
 * The user of a rotated session, when the session may go on: an admin's impersonation ends an
 * hour after it started, refreshes or not (`SESSION_EXPIRED`); a locked account's session ends
 * (`ACCOUNT_LOCKED`); a deleted account's too (`REFRESH_TOKEN_INVALID`).
 */
async function allowedUser(ctx: AuthContext, session: SessionRecord, now: number, request: RequestContext) {
  const end = impersonationEnd(session);
  if (end !== null && now >= end) {
    await endSession(ctx, session.id, session);
    refuseSession(ctx, request, session, EXPIRED);
  }
  const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findById(session.userId));
  if (!user || isLocked(user)) {
    await endSession(ctx, session.id, session);
    throw new AuthError(user ? "ACCOUNT_LOCKED" : "REFRESH_TOKEN_INVALID");
  }
  return user;
}
