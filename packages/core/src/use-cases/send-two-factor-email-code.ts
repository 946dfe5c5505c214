import type { AuthContext } from "../context.js";
import { AuthError } from "../errors.js";
import type { Principal, RequestContext } from "../model.js";
import type { UserRecord } from "../ports/user-store.js";
import { currentUser } from "../sessions/current-user.js";
import { takeChallenge } from "../two-factor/challenge.js";
import { sendEmailCode } from "../two-factor/email-code.js";
import { requireVerifiedAddress } from "../two-factor/settings.js";

/**
 * Mails a 6-digit code (own cooldown): for turning email 2FA on, for a step-up, or — with the 2FA
 * token of a login instead of an access token — to resend the login code.
 */
export async function sendTwoFactorEmailCode(
  ctx: AuthContext,
  who: { principal: Principal } | { twoFactorToken: string | undefined },
  request: RequestContext = {},
): Promise<{ cooldown: number }> {
  if (!ctx.emails.enabled) throw new AuthError("EMAIL_DISABLED");
  let user: UserRecord;
  // Signed in without email 2FA yet: the code is the one that turns it on.
  let setup = false;
  if ("principal" in who) {
    user = await currentUser(ctx, who.principal);
    setup = !user.twoFactor.methods.includes("email");
    if (setup) requireVerifiedAddress(user);
  } else {
    const challenge = await takeChallenge(ctx, who.twoFactorToken, "any");
    await challenge.restore();
    user = challenge.user;
    if (!user.twoFactor.methods.includes("email")) throw new AuthError("TWO_FACTOR_DISABLED");
  }
  const locale = request.locale ?? ctx.translator.defaultLocale;
  return sendEmailCode(ctx, user, locale, setup ? "setup" : "sign-in");
}
