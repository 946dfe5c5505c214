import type { AuthContext, Principal, RequestContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { UserRecord } from "../ports/user-store.js";
import { hashToken } from "../tokens/random.js";
import { issueSingleUseToken } from "../tokens/single-use-token.js";
import { cooldownRemaining, requireEmailEnabled, sendWithCooldown } from "./email-flow.js";
import { EXPIRED_TOKEN_GRACE_MS } from "./request-password-reset.js";

export const EMAIL_VERIFICATION_PURPOSE = "email-verification";

/**
 * Sends a verification email in CONTRACT.md §4's order: (401 before, by the caller) 503
 * `EMAIL_DISABLED`, 404 `USER_NOT_FOUND`, 304 `EMAIL_ALREADY_VERIFIED`, 429
 * `EMAIL_COOLDOWN_ACTIVE`, then send and `{ cooldown }`.
 */
export async function resendVerification(
  ctx: AuthContext,
  principal: Principal,
  request: RequestContext = {},
): Promise<{ cooldown: number }> {
  requireEmailEnabled(ctx);
  const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findById(principal.userId));
  if (!user) throw new AuthError("USER_NOT_FOUND");
  if (user.emailVerified) throw new AuthError("EMAIL_ALREADY_VERIFIED");
  await ctx.limits.ip("verificationSends", { ...request, userId: user.id });
  return sendVerificationEmail(ctx, user, request.locale ?? ctx.translator.defaultLocale);
}

/** Stores a fresh verification token bound to the user's exact address and mails its link, under the cooldown. */
export function sendVerificationEmail(
  ctx: AuthContext,
  user: UserRecord,
  locale: string,
): Promise<{ cooldown: number }> {
  return sendWithCooldown(ctx, "email-verification", user.email, async () => {
    const ttlMs = ctx.options.emailVerificationTokenTtlSeconds * 1000;
    const token = await issueSingleUseToken(ctx, {
      purpose: EMAIL_VERIFICATION_PURPOSE,
      userId: user.id,
      ttlMs,
      data: { email: user.email },
      graceMs: EXPIRED_TOKEN_GRACE_MS,
      failureCode: "EMAIL_VERIFICATION_TOKEN_CREATION_FAILURE",
    });
    return {
      kind: "email-verification",
      to: user.email,
      locale,
      values: {
        name: user.name,
        link: ctx.emails.link("verifyEmail", token),
        hours: Math.round(ttlMs / 3_600_000),
      },
      undo: () => ctx.sessions.consumeToken(EMAIL_VERIFICATION_PURPOSE, hashToken(token)),
    };
  });
}

/** Seconds until another verification email can be sent to the user's address (0: now). */
export async function getVerificationCooldown(
  ctx: AuthContext,
  principal: Principal,
): Promise<{ remaining: number }> {
  const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findById(principal.userId));
  if (!user) throw new AuthError("USER_NOT_FOUND");
  return cooldownRemaining(ctx, "email-verification", user.email);
}
