import type { AuthContext } from "../context.js";
import { requireEmailEnabled } from "../emails/send-with-cooldown.js";
import { sendVerificationEmail } from "../emails/verification-email.js";
import { AuthError } from "../errors.js";
import type { Call } from "../model.js";
import { currentUserForAnswer } from "../sessions/current-user.js";
import { signedIn } from "../sessions/signed-in.js";

/**
 * Sends a verification email in docs/http-api.md's order: (401 before, by the caller) 503
 * `EMAIL_DISABLED`, 404 `USER_NOT_FOUND`, 304 `EMAIL_ALREADY_VERIFIED`, 429 `RATE_LIMITED` (per
 * IP) or `EMAIL_COOLDOWN_ACTIVE`, then send and `{ cooldown }`.
 */
export async function resendVerification(ctx: AuthContext, call: Call): Promise<{ cooldown: number }> {
  const principal = signedIn(call);
  const { request = {} } = call;
  requireEmailEnabled(ctx);
  const user = await currentUserForAnswer(ctx, principal);
  if (user.emailVerified) throw new AuthError("EMAIL_ALREADY_VERIFIED");
  await ctx.limits.ip("verificationSends", { ...request, userId: user.id });
  return sendVerificationEmail(ctx, user, request.locale ?? ctx.translator.defaultLocale);
}
