import type { AuthContext } from "../context.js";
import { AuthError } from "../errors.js";
import type { Call } from "../model.js";
import type { UserRecord } from "../ports/user-store.js";
import { currentUser } from "../sessions/current-user.js";
import { signedIn } from "../sessions/signed-in.js";
import { takeChallenge } from "../two-factor/challenge.js";
import { sendEmailCode } from "../two-factor/email-code.js";
import { requireVerifiedAddress } from "../two-factor/settings.js";

/**
 * Mails a 6-digit code (own cooldown): for turning email 2FA on, for a step-up, or — with the 2FA
 * token of a login (the call's `token`) instead of a principal — to resend the login code.
 */
export async function sendTwoFactorEmailCode(ctx: AuthContext, call: Call): Promise<{ cooldown: number }> {
  const { request = {} } = call;
  if (!ctx.emails.enabled) throw new AuthError("EMAIL_DISABLED");
  let user: UserRecord;
  // Signed in without email 2FA yet: the code is the one that turns it on.
  let setup = false;
  if (call.principal !== undefined) {
    user = await currentUser(ctx, signedIn(call));
    setup = !user.twoFactor.methods.includes("email");
    if (setup) requireVerifiedAddress(user);
  } else {
    const challenge = await takeChallenge(ctx, call.token, "any");
    await challenge.restore();
    user = challenge.user;
    if (!user.twoFactor.methods.includes("email")) throw new AuthError("TWO_FACTOR_DISABLED");
  }
  const locale = request.locale ?? ctx.translator.defaultLocale;
  return sendEmailCode(ctx, user, locale, setup ? "setup" : "sign-in");
}
