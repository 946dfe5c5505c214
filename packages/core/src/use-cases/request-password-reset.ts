import type { AuthContext } from "../context.js";
import { requireEmailEnabled, sendWithCooldown } from "../emails/send-with-cooldown.js";
import { guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { issueLinkToken } from "../tokens/link-token.js";
import { PASSWORD_RESET_PURPOSE } from "../tokens/purposes.js";
import { emailInput, parseInput } from "../validation.js";

/**
 * Known address → a reset email with a single-use link (a newer one invalidates older links);
 * unknown address → a No Principal Information email. The same `{ cooldown }` either way, and the
 * same cooldown per normalized address, acquired before anything is looked up.
 */
export async function requestPasswordReset(
  ctx: AuthContext,
  { request = {} }: Call,
  input: unknown,
): Promise<{ cooldown: number }> {
  requireEmailEnabled(ctx);
  const { email } = parseInput(emailInput, input);
  const locale = request.locale ?? ctx.translator.defaultLocale;
  await ctx.limits.ip("passwordResetRequests", request);
  let userId: string | null = null;
  const result = await sendWithCooldown(ctx, "password-reset", email, async () => {
    const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findByEmail(email));
    userId = user?.id ?? null;
    if (!user) {
      return {
        kind: "no-principal-information",
        to: email,
        locale,
        values: { link: ctx.emails.link("signUp") },
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
  ctx.events.emit("password_reset.requested", { ...request, userId });
  return result;
}
