import type { AuthContext } from "../context.js";
import { guardPort } from "../errors.js";
import type { Call, SessionInfo } from "../model.js";
import { isSessionPastLimits, sessionLifetimes } from "../sessions/session-lifecycle.js";
import { signedIn } from "../sessions/signed-in.js";

/**
 * The user's live sessions, most recently active first; `current` marks the caller's. A session
 * past its idle timeout or absolute lifetime (on the core's clock) is left out: it can no longer
 * be refreshed, and the store deletes it at the next refresh or when its record expires.
 */
export async function listSessions(ctx: AuthContext, call: Call): Promise<SessionInfo[]> {
  const principal = signedIn(call);
  const sessions = await guardPort("DATABASE_FAILURE", () => ctx.sessions.listSessions(principal.userId));
  const { limits } = sessionLifetimes(ctx);
  const now = ctx.clock.now();
  return sessions
    .filter((session) => !isSessionPastLimits(session, now, limits))
    .sort((a, b) => b.lastActiveAt - a.lastActiveAt || b.createdAt - a.createdAt)
    .map((session) => ({
      id: session.id,
      browser: session.browser,
      os: session.os,
      ip: session.ip,
      createdAt: new Date(session.createdAt).toISOString(),
      lastActiveAt: new Date(session.lastActiveAt).toISOString(),
      current: session.id === principal.sessionId,
    }));
}
