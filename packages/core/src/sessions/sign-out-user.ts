import { forgetTrustedBrowsers } from "../devices/trusted-browsers.js";
import type { SecurityEvents } from "../events.js";
import type { Call } from "../model.js";
import type { SingleUseTokenStore } from "../ports/single-use-token-store.js";
import { assertNotImpersonating } from "./impersonation.js";
import { endUserSessions, type SessionLifecycleDeps } from "./session-lifecycle.js";
import { signedIn } from "./signed-in.js";

/**
 * Ends the sessions of the signed-in caller's user: all of them, or with `keepCaller` all but the
 * caller's. Emits one `session.revoked` for the lot, its `reason` `revoked_all:<n>` or
 * `revoked_others:<n>` and its `sessionId` the caller's. Ending all of them also ends the user's
 * trust in every browser (`trustBrowser`). `AUTHENTICATION_REQUIRED` without an
 * issued principal; `IMPERSONATION_NOT_ALLOWED` for an impersonation (it ends itself by logging out).
 */
export async function signOutUser(
  deps: SessionLifecycleDeps & { events: SecurityEvents; singleUseTokens: SingleUseTokenStore },
  call: Call,
  keepCaller: boolean,
): Promise<{ success: true; revoked: number }> {
  const principal = signedIn(call);
  assertNotImpersonating(principal);
  const { userId, sessionId } = principal;
  const revoked = (await endUserSessions(deps, userId, keepCaller ? sessionId : undefined)).length;
  // Signing out everywhere also ends the trust in every browser (it skipped the second factor).
  if (!keepCaller && deps.singleUseTokens.listUserTokens !== undefined) {
    await forgetTrustedBrowsers(deps, { id: userId });
  }
  const reason = keepCaller ? "revoked_others" : "revoked_all";
  deps.events.emit("session.revoked", { ...call.request, userId, sessionId, reason: `${reason}:${revoked}` });
  return { success: true, revoked };
}
