import type { AuthContext } from "../context.js";
import type { Call } from "../model.js";
import { currentUserCooldown } from "../sessions/current-user.js";
import { signedIn } from "../sessions/signed-in.js";

/** Seconds until another 2FA code can be mailed to the user (0: now). */
export async function getTwoFactorEmailCooldown(
  ctx: AuthContext,
  call: Call,
): Promise<{ remaining: number }> {
  return currentUserCooldown(ctx, signedIn(call), "two-factor-code");
}
