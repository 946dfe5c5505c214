import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { assertNotImpersonating } from "../sessions/impersonation.js";
import { endSession } from "../sessions/session-lifecycle.js";
import { signedIn } from "../sessions/signed-in.js";
import { isSessionId } from "../tokens/random.js";

/**
 * Ends one of the user's sessions (its refresh and access token stop working at once);
 * `NOT_FOUND` for another user's, and for an id that cannot be a session id (not asked of the store).
 * An impersonation ends no session this way (`IMPERSONATION_NOT_ALLOWED`): it ends itself by logging out.
 */
export async function revokeSession(
  ctx: AuthContext,
  call: Call,
  sessionId: string,
): Promise<{ success: true }> {
  const principal = signedIn(call);
  assertNotImpersonating(principal);
  if (!isSessionId(sessionId)) throw new AuthError("NOT_FOUND");
  const session = await guardPort("DATABASE_FAILURE", () => ctx.sessions.getSession(sessionId));
  if (!session || session.userId !== principal.userId) throw new AuthError("NOT_FOUND");
  await endSession(ctx, sessionId, session);
  ctx.events.emit("session.revoked", { userId: principal.userId, sessionId, reason: "revoked_by_user" });
  return { success: true };
}
