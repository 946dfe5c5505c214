import { requireCaptcha } from "../captcha/captcha.js";
import type { AuthContext } from "../context.js";
import { emitAfterAnswer } from "../emails/after-answer.js";
import { requireEmailEnabled, sendWithCooldown } from "../emails/send-with-cooldown.js";
import { guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { issueEmailSignIn, requireEmailSignIn } from "../tokens/email-sign-in.js";
import { EMAIL_SIGN_IN_PURPOSE } from "../tokens/purposes.js";
import { saveStandInToken, standInUserId } from "../tokens/stand-in-token.js";
import { emailInput, parseInput } from "../validation.js";

/**
 * Sign-in by email, first step (`emailSignIn.enabled`). Known address → an email with a 6-digit
 * code and a link to the `emailSignIn` page (both single use, `emailSignIn.ttlSeconds`; a newer
 * request invalidates the older); unknown address → a No Principal Information email that says
 * so, and no account is created. The same `{ cooldown }` either way, with the reset request's
 * discipline: the per-IP limit, then the cooldown per normalized address, acquired before
 * anything is looked up, released when the send fails. Each request starts the address's count
 * of wrong codes again (known and unknown alike). The same work and time either way
 * (docs/security.md, A2): an unknown address stores stand-in tokens as a known one stores its
 * link and code (`saveStandInToken`), and the event is emitted after the answer.
 */
export async function requestEmailSignIn(
  ctx: AuthContext,
  { request = {}, captchaToken }: Call,
  input: unknown,
): Promise<{ cooldown: number }> {
  requireEmailSignIn(ctx);
  requireEmailEnabled(ctx);
  const { email } = parseInput(emailInput, input);
  await requireCaptcha(ctx.captcha, "emailSignIn", captchaToken, request);
  const locale = request.locale ?? ctx.translator.defaultLocale;
  await ctx.limits.ip("emailSignInRequests", request);
  let userId: string | null = null;
  const result = await sendWithCooldown(ctx, "email-sign-in", email, async () => {
    const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findByEmail(email));
    userId = user?.id ?? null;
    await ctx.limits.clearEmailSignInCodes(email);
    if (!user) {
      // The store work of a known address (a link replacing the older, and a code), for a stand-in id.
      const standIn = standInUserId(ctx.passkeyDecoys, email);
      await saveStandInToken(ctx, standIn, {
        purpose: EMAIL_SIGN_IN_PURPOSE,
        data: { email: standIn, kind: "link" },
        replaceOthers: true,
      });
      await saveStandInToken(ctx, standIn, {
        purpose: EMAIL_SIGN_IN_PURPOSE,
        data: { email: standIn, kind: "code" },
      });
      return {
        kind: "no-principal-information",
        to: email,
        locale,
        values: { link: ctx.emails.link("signUp"), variant: "signIn" },
        undo: () => ctx.singleUseTokens.deleteUserTokens(standIn, EMAIL_SIGN_IN_PURPOSE),
      };
    }
    const { token, code, ttlMs } = await issueEmailSignIn(ctx, user);
    return {
      kind: "email-sign-in",
      to: user.email,
      locale,
      values: {
        name: user.name,
        code,
        link: ctx.emails.link("emailSignIn", token),
        minutes: Math.round(ttlMs / 60_000),
      },
      undo: () => ctx.singleUseTokens.deleteUserTokens(user.id, EMAIL_SIGN_IN_PURPOSE),
    };
  });
  // After the answer: a known address's event writes an activity entry, an unknown one's none.
  emitAfterAnswer(ctx, "email_sign_in.requested", { ...request, userId });
  return result;
}
