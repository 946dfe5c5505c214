import type { AuthContext } from "../context.js";
import type { Call } from "../model.js";
import { endUserSessions } from "../sessions/session-lifecycle.js";
import { signedIn } from "../sessions/signed-in.js";

/**
 * Ends the sessions of the caller's user (all of them, or all but the caller's with
 * `keepCaller`) and emits one `session.revoked` for the lot: its `reason` is
 * `<reason>:<count>`, its `sessionId` the caller's.
 */
export async function endCallerUserSessions(
  ctx: AuthContext,
  call: Call,
  keepCaller: boolean,
): Promise<{ success: true; revoked: number }> {
  const { userId, sessionId } = signedIn(call);
  const ended = await endUserSessions(ctx, userId, keepCaller ? sessionId : undefined);
  const revoked = ended.length;
  const reason = keepCaller ? "revoked_others" : "revoked_all";
  ctx.events.emit("session.revoked", { userId, sessionId, reason: `${reason}:${revoked}` });
  return { success: true, revoked };
}

/** Ends every session of the user, the caller's included ("sign out everywhere"). */
export async function revokeAllSessions(
  ctx: AuthContext,
  call: Call,
): Promise<{ success: true; revoked: number }> {
  return endCallerUserSessions(ctx, call, false);
}
