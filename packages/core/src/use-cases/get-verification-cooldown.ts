import type { AuthContext } from "../context.js";
import type { Call } from "../model.js";
import { currentUserCooldown } from "../sessions/current-user.js";
import { signedIn } from "../sessions/signed-in.js";

/** Seconds until another verification email can be sent to the user's address (0: now). */
export async function getVerificationCooldown(ctx: AuthContext, call: Call): Promise<{ remaining: number }> {
  return currentUserCooldown(ctx, signedIn(call), "email-verification");
}
