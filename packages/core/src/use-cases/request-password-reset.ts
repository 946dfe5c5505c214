import { requireCaptcha } from "../captcha/captcha.js";
import type { AuthContext } from "../context.js";
import { emitAfterAnswer } from "../emails/after-answer.js";
import { requireEmailEnabled, sendWithCooldown } from "../emails/send-with-cooldown.js";
import { guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { issueLinkToken } from "../tokens/link-token.js";
import { PASSWORD_RESET_PURPOSE } from "../tokens/purposes.js";
import { saveStandInToken, standInUserId } from "../tokens/stand-in-token.js";
import { parseEmailInput } from "../validation.js";

/**
 * Known address → a reset email with a single-use link (a newer one invalidates older links);
 * unknown address → a No Principal Information email. The same `{ cooldown }` either way, and the
 * same cooldown per normalized address, acquired before anything is looked up. The same work and
 * time either way (docs/security.md, A2): an unknown address stores a stand-in token as a known
 * one stores its link's (`saveStandInToken`), and the event (a known address's activity entry)
 * is emitted after the answer. A running cooldown throws its `CooldownError`
 * (`EMAIL_COOLDOWN_ACTIVE` with the seconds left).
 */
export async function requestPasswordReset(
  ctx: AuthContext,
  { request = {}, captchaToken }: Call,
  input: unknown,
): Promise<{ cooldown: number }> {
  requireEmailEnabled(ctx);
  const { email } = parseEmailInput(input);
  await requireCaptcha(ctx.captcha, "resetRequest", captchaToken, request);
  const locale = request.locale ?? ctx.translator.defaultLocale;
  await ctx.limits.ip("passwordResetRequests", request);
  let userId: string | null = null;
  const result = await sendWithCooldown(ctx, "password-reset", email, async () => {
    const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findByEmail(email));
    userId = user?.id ?? null;
    if (!user) {
      // The store work of a known address (a link token replacing the older), for a stand-in id.
      const standIn = standInUserId(ctx.passkeyDecoys, email);
      await saveStandInToken(ctx, standIn, {
        purpose: PASSWORD_RESET_PURPOSE,
        data: { email: standIn },
        replaceOthers: true,
      });
      return {
        kind: "no-principal-information",
        to: email,
        locale,
        values: { link: ctx.emails.link("signUp") },
        undo: () => ctx.singleUseTokens.deleteUserTokens(standIn, PASSWORD_RESET_PURPOSE),
      };
    }
    const ttlMs = ctx.options.passwordResetTokenTtlSeconds * 1000;
    const token = await issueLinkToken(ctx, user, {
      purpose: PASSWORD_RESET_PURPOSE,
      ttlMs,
      failureCode: "DATABASE_FAILURE",
      replaceOthers: true,
    });
    return {
      kind: "password-reset",
      to: user.email,
      locale,
      values: {
        name: user.name,
        link: ctx.emails.link("resetPassword", token),
        minutes: Math.round(ttlMs / 60_000),
      },
      undo: () => ctx.singleUseTokens.deleteUserTokens(user.id, PASSWORD_RESET_PURPOSE),
    };
  });
  // After the answer: a known address's event writes an activity entry, an unknown one's none.
  emitAfterAnswer(ctx, "password_reset.requested", { ...request, userId });
  return result;
}
