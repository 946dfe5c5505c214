import type { AuthContext } from "../context.js";
import type { Principal } from "../model.js";
import { currentUserCooldown } from "../sessions/current-user.js";

/** Seconds until another verification email can be sent to the user's address (0: now). */
export async function getVerificationCooldown(
  ctx: AuthContext,
  principal: Principal,
): Promise<{ remaining: number }> {
  return currentUserCooldown(ctx, principal, "email-verification");
}
