import type { AuthContext, RequestContext, User } from "../context.js";
import { toUser } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import { consumeSingleUseToken, restoreToken, spendToken } from "../tokens/single-use-token.js";
import { EXPIRED_TOKEN_GRACE_MS } from "./request-password-reset.js";
import { EMAIL_VERIFICATION_PURPOSE } from "./resend-verification.js";

/** Marks a token that verified an address, so clicking the link again answers 304, not 401. */
const USED_PURPOSE = `${EMAIL_VERIFICATION_PURPOSE}:used`;

/**
 * Verifies the address a token was sent to: single use, bound to that exact address (a changed
 * address makes it invalid), expiring. Reuse after success is 304 `EMAIL_ALREADY_VERIFIED`;
 * garbage is `EMAIL_VERIFICATION_TOKEN_INVALID` (counted per IP); an expired one `…_EXPIRED`.
 * A store failure after the consume gives the token back.
 */
export async function verifyEmail(
  ctx: AuthContext,
  token: string | undefined,
  request: RequestContext = {},
): Promise<User> {
  const fromIp = await ctx.limits.ip("invalidTokens", request);
  const taken = await consumeSingleUseToken(ctx, EMAIL_VERIFICATION_PURPOSE, token);
  if (!taken) {
    const used = await consumeSingleUseToken(ctx, USED_PURPOSE, token);
    if (!used) throw new AuthError("EMAIL_VERIFICATION_TOKEN_INVALID");
    await fromIp.succeeded();
    await restoreToken(ctx, used.record, EXPIRED_TOKEN_GRACE_MS);
    throw new AuthError("EMAIL_ALREADY_VERIFIED");
  }
  await fromIp.succeeded();
  if (taken.expired) throw new AuthError("EMAIL_VERIFICATION_TOKEN_EXPIRED");
  const { record } = taken;
  return spendToken(
    ctx,
    record,
    async () => {
      const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findById(record.userId));
      if (!user || user.email !== record.data?.email) throw new AuthError("EMAIL_VERIFICATION_TOKEN_INVALID");
      if (user.emailVerified) throw new AuthError("EMAIL_ALREADY_VERIFIED");
      const updated = await guardPort("DATABASE_FAILURE", () =>
        ctx.users.update(user.id, { emailVerified: true }),
      );
      if (!updated) throw new AuthError("EMAIL_VERIFICATION_TOKEN_INVALID");
      await ctx.sessions
        .saveToken(
          { ...record, purpose: USED_PURPOSE },
          Math.max(record.expiresAt - ctx.clock.now(), 1) + EXPIRED_TOKEN_GRACE_MS,
        )
        .catch((error: unknown) =>
          ctx.logger.warn(
            { event: "token.mark_used_failed", err: String(error) },
            "could not mark a verification token used",
          ),
        );
      ctx.logger.info({ event: "email.verified", userId: user.id }, "email address verified");
      return toUser(updated);
    },
    EXPIRED_TOKEN_GRACE_MS,
  );
}
