import type { AuthContext } from "../context.js";
import type { Call } from "../model.js";
import { endUserSessions } from "../sessions/session-lifecycle.js";
import { signedIn } from "../sessions/signed-in.js";

/** Ends every session of the user, the caller's included ("sign out everywhere"). */
export async function revokeAllSessions(
  ctx: AuthContext,
  call: Call,
): Promise<{ success: true; revoked: number }> {
  const principal = signedIn(call);
  const revoked = (await endUserSessions(ctx, principal.userId)).length;
  ctx.events.emit("session.revoked", {
    userId: principal.userId,
    sessionId: principal.sessionId,
    reason: `revoked_all:${revoked}`,
  });
  return { success: true, revoked };
}
