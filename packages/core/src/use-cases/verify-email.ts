import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call, User } from "../model.js";
import { toUser } from "../model.js";
import { useLinkToken } from "../tokens/link-token.js";
import {
  EMAIL_VERIFICATION_PURPOSE,
  EXPIRED_TOKEN_GRACE_MS,
  EMAIL_VERIFICATION_USED_PURPOSE as USED_PURPOSE,
} from "../tokens/purposes.js";
import { consumeSingleUseToken, restoreToken } from "../tokens/single-use-token.js";

/**
 * Verifies the address a token was sent to: single use, bound to that exact address (a changed
 * address makes it invalid), expiring. Reuse after success is 304 `EMAIL_ALREADY_VERIFIED`;
 * garbage is `EMAIL_VERIFICATION_TOKEN_INVALID` (counted per IP); an expired one `…_EXPIRED`.
 * A store failure after the consume gives the token back.
 */
export async function verifyEmail(ctx: AuthContext, { token, request = {} }: Call): Promise<User> {
  return useLinkToken(ctx, {
    purpose: EMAIL_VERIFICATION_PURPOSE,
    token,
    request,
    invalid: "EMAIL_VERIFICATION_TOKEN_INVALID",
    expired: "EMAIL_VERIFICATION_TOKEN_EXPIRED",
    async whenUnknown(fromIp) {
      const used = await consumeSingleUseToken(ctx, USED_PURPOSE, token);
      if (!used) return;
      await fromIp.succeeded();
      await restoreToken(ctx, used.record, EXPIRED_TOKEN_GRACE_MS);
      throw new AuthError("EMAIL_ALREADY_VERIFIED");
    },
    async use(user, record) {
      if (user.emailVerified) throw new AuthError("EMAIL_ALREADY_VERIFIED");
      const updated = await guardPort("DATABASE_FAILURE", () =>
        ctx.users.update(user.id, { emailVerified: true }),
      );
      if (!updated) throw new AuthError("EMAIL_VERIFICATION_TOKEN_INVALID");
      const ttlMs = Math.max(record.expiresAt - ctx.clock.now(), 1) + EXPIRED_TOKEN_GRACE_MS;
      await ctx.singleUseTokens
        .saveToken({ ...record, purpose: USED_PURPOSE }, ttlMs)
        .catch((error: unknown) =>
          ctx.logger.warn(
            { event: "token.mark_used_failed", err: String(error) },
            "could not mark a verification token used",
          ),
        );
      ctx.events.emit("email.verified", { ...request, userId: user.id, reason: "link" });
      return toUser(updated);
    },
  });
}
