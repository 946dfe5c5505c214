import type { AuthContext } from "../context.js";
import { cooldownRemaining } from "../emails/send-with-cooldown.js";
import type { Call } from "../model.js";
import { currentUser } from "../sessions/current-user.js";
import { signedIn } from "../sessions/signed-in.js";
import { challengeUser } from "../two-factor/challenge.js";

/**
 * Seconds until another 2FA code can be mailed (0: now): to the user of the call's 2FA token (a
 * login's second step: judged on its own, whatever access token comes beside it), else to the
 * signed-in user. The same rule as `sendTwoFactorEmailCode`.
 */
export async function getTwoFactorEmailCooldown(
  ctx: AuthContext,
  call: Call,
): Promise<{ remaining: number }> {
  const user = (await challengeUser(ctx, call)) ?? (await currentUser(ctx, signedIn(call)));
  return cooldownRemaining(ctx, "two-factor-code", user.email);
}
