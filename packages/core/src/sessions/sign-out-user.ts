import type { SecurityEvents } from "../events.js";
import type { Call } from "../model.js";
import { assertNotImpersonating } from "./impersonation.js";
import { endUserSessions, type SessionLifecycleDeps } from "./session-lifecycle.js";
import { signedIn } from "./signed-in.js";

/**
 * Ends the sessions of the signed-in caller's user: all of them, or with `keepCaller` all but the
 * caller's. Emits one `session.revoked` for the lot, its `reason` `revoked_all:<n>` or
 * `revoked_others:<n>` and its `sessionId` the caller's. `AUTHENTICATION_REQUIRED` without an
 * issued principal; `IMPERSONATION_NOT_ALLOWED` for an impersonation (it ends itself by logging out).
 */
export async function signOutUser(
  deps: SessionLifecycleDeps & { events: SecurityEvents },
  call: Call,
  keepCaller: boolean,
): Promise<{ success: true; revoked: number }> {
  const principal = signedIn(call);
  assertNotImpersonating(principal);
  const { userId, sessionId } = principal;
  const revoked = (await endUserSessions(deps, userId, keepCaller ? sessionId : undefined)).length;
  const reason = keepCaller ? "revoked_others" : "revoked_all";
  deps.events.emit("session.revoked", { ...call.request, userId, sessionId, reason: `${reason}:${revoked}` });
  return { success: true, revoked };
}
