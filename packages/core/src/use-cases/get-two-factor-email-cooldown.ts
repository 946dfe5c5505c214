import type { AuthContext } from "../context.js";
import { cooldownRemaining } from "../emails/send-with-cooldown.js";
import type { Principal } from "../model.js";
import { currentUser } from "../two-factor/settings.js";

/** Seconds until another 2FA code can be mailed to the user (0: now). */
export async function getTwoFactorEmailCooldown(
  ctx: AuthContext,
  principal: Principal,
): Promise<{ remaining: number }> {
  const user = await currentUser(ctx, principal);
  return cooldownRemaining(ctx, "two-factor-code", user.email);
}
