import type { AuthContext } from "../context.js";
import type { Call } from "../model.js";
import { signOutUser } from "../sessions/sign-out-user.js";

/**
 * Ends every session of the user except the caller's ("sign out everywhere else"): their refresh
 * and access tokens stop working at once, the caller's stay. Two sessions asking at the same time
 * may end each other: each request ends every session but its own, so at most one of the two
 * survives (neither, when both requests pass authentication before either ends the other).
 */
export async function revokeOtherSessions(
  ctx: AuthContext,
  call: Call,
): Promise<{ success: true; revoked: number }> {
  return signOutUser(ctx, call, true);
}
