import type { AuthContext } from "../context.js";
import type { Call, SessionInfo } from "../model.js";
import { liveSessions, sessionInfo } from "../sessions/session-lifecycle.js";
import { signedIn } from "../sessions/signed-in.js";

/**
 * The user's live sessions, most recently active first; `current` marks the caller's. A session
 * past its idle timeout or absolute lifetime (on the core's clock) is left out: it can no longer
 * be refreshed, and the store deletes it at the next refresh or when its record expires.
 */
export async function listSessions(ctx: AuthContext, call: Call): Promise<SessionInfo[]> {
  const principal = signedIn(call);
  const sessions = await liveSessions(ctx, principal.userId);
  return sessions.map((session) => sessionInfo(session, principal.sessionId));
}
