import { requireCaptcha } from "../captcha/captcha.js";
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
 * IP) or `EMAIL_COOLDOWN_ACTIVE` (a `CooldownError` with the seconds left), then send and
 * `{ cooldown }`.
 */
export async function resendVerification(ctx: AuthContext, call: Call): Promise<{ cooldown: number }> {
  const principal = signedIn(call);
  const { request = {} } = call;
  requireEmailEnabled(ctx);
  await requireCaptcha(ctx.captcha, "verificationResend", call.captchaToken, request);
  const user = await currentUserForAnswer(ctx, principal);
  if (user.emailVerified) throw new AuthError("EMAIL_ALREADY_VERIFIED");
  // The user's id goes beside the request, not spread into a copy of it: `limits.ip` makes that
  // copy only when it counts (Node 20's V8 spends ~2 µs on a spread followed by another key).
  await ctx.limits.ip("verificationSends", request, user.id);
  // Awaited, not returned: a refusal rejects within the same turn, before a returned promise would
  // get its handler, and Node's tracking of a rejection without one cost ~2 µs per 429.
  return await sendVerificationEmail(ctx, user, request.locale ?? ctx.translator.defaultLocale);
}
