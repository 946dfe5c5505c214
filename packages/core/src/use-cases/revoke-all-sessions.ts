import type { AuthContext } from "../context.js";
import type { Principal } from "../model.js";
import { endUserSessions } from "../sessions/session-lifecycle.js";

/** Ends every session of the user, the caller's included ("sign out everywhere"). */
export async function revokeAllSessions(
  ctx: AuthContext,
  principal: Principal,
): Promise<{ success: true; revoked: number }> {
  const revoked = (await endUserSessions(ctx, principal.userId)).length;
  ctx.events.emit("session.revoked", {
    userId: principal.userId,
    sessionId: principal.sessionId,
    reason: `revoked_all:${revoked}`,
  });
  return { success: true, revoked };
}
