import type { AuthContext } from "../context.js";
import { AuthError } from "../errors.js";
import type { Call } from "../model.js";
import { currentUser } from "../sessions/current-user.js";
import { signedIn } from "../sessions/signed-in.js";
import { challengeUser } from "../two-factor/challenge.js";
import { sendEmailCode } from "../two-factor/email-code.js";
import { requireVerifiedAddress } from "../two-factor/settings.js";

/**
 * Mails a 6-digit code (own cooldown): for turning email 2FA on, for a step-up, or — with the 2FA
 * token of a login or step-up (the call's `token`) — to resend the step's code. The 2FA token
 * counts first, whatever access token comes beside it; the principal (when the access token
 * authenticates) is used when no 2FA token comes, or when the one that comes is refused or names
 * a user without email 2FA.
 */
export async function sendTwoFactorEmailCode(ctx: AuthContext, call: Call): Promise<{ cooldown: number }> {
  const { request = {} } = call;
  if (!ctx.emails.enabled) throw new AuthError("EMAIL_DISABLED");
  let user = await challengeUser(ctx, call);
  // Signed in without email 2FA yet: the code is the one that turns it on.
  let setup = false;
  if (user === undefined) {
    user = await currentUser(ctx, signedIn(call));
    setup = !user.twoFactor.methods.includes("email");
    if (setup) requireVerifiedAddress(user);
  } else if (!user.twoFactor.methods.includes("email")) {
    throw new AuthError("TWO_FACTOR_DISABLED");
  }
  const locale = request.locale ?? ctx.translator.defaultLocale;
  return sendEmailCode(ctx, user, locale, setup ? "setup" : "sign-in");
}
