import type { AuthContext } from "../context.js";
import { cooldownRemaining } from "../emails/send-with-cooldown.js";
import { AuthError, guardPort } from "../errors.js";
import type { Principal } from "../model.js";

/** Seconds until another verification email can be sent to the user's address (0: now). */
export async function getVerificationCooldown(
  ctx: AuthContext,
  principal: Principal,
): Promise<{ remaining: number }> {
  const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findById(principal.userId));
  if (!user) throw new AuthError("USER_NOT_FOUND");
  return cooldownRemaining(ctx, "email-verification", user.email);
}
