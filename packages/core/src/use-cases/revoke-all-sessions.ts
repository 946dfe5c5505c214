import type { AuthContext } from "../context.js";
import type { Call } from "../model.js";
import { signOutUser } from "../sessions/sign-out-user.js";

/** Ends every session of the user, the caller's included ("sign out everywhere"). */
export async function revokeAllSessions(
  ctx: AuthContext,
  call: Call,
): Promise<{ success: true; revoked: number }> {
  return signOutUser(ctx, call, false);
}
