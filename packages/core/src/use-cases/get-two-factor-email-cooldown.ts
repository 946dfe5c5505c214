import type { AuthContext } from "../context.js";
import type { Principal } from "../model.js";
import { currentUserCooldown } from "../sessions/current-user.js";

/** Seconds until another 2FA code can be mailed to the user (0: now). */
export async function getTwoFactorEmailCooldown(
  ctx: AuthContext,
  principal: Principal,
): Promise<{ remaining: number }> {
  return currentUserCooldown(ctx, principal, "two-factor-code");
}
