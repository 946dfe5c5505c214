import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { checkPasswordPolicy, refuseBreachedPassword } from "../passwords/password-policy.js";
import type { ChangeStores } from "../ports/stores-together.js";
import { NO_TWO_FACTOR } from "../ports/user-store.js";
import { changeEndingSessions } from "../sessions/change-together.js";
import { endUserSessions } from "../sessions/session-lifecycle.js";
import { useLinkToken } from "../tokens/link-token.js";
import { PASSWORD_RESET_PURPOSE } from "../tokens/purposes.js";
import { opaqueToken, parseInput, resetPasswordInput } from "../validation.js";

/**
 * Sets a new password with a reset token. The policy (and the breach corpus, with
 * `breachedPasswords`) is checked before the token is touched; the
 * token works once. Afterwards every session, refresh token and allowlisted access token of the
 * user is revoked, the address's failed-login lock is lifted (a known browser's budget is the old
 * password's, so each starts afresh: limits.ts), nobody is signed in, and a
 * password-changed email goes out. Accounts without a password set their first one this way. 2FA
 * stays as it was, except on an address that was never verified: the emailed link proves it now,
 * so 2FA set up before by whoever registered it is removed (docs/limits.md).
 *
 * Fail-safe order (docs/security.md): claim the token → hash → end every session → set the
 * password → end every session again (one signed in with the old password meanwhile) → delete the
 * user's reset tokens, this one among them. A failure (or a crash) before the password is set
 * leaves the old password and a link that works again (released at once, or when the claim's
 * lease ends); after it, the new password with every earlier session gone, and the link working
 * until it is consumed (a retry repeats the same steps). When the stores run together (one SQL
 * database, `stores.together`), the steps after the hash are one transaction, so a failure leaves
 * the old state whole (sessions too), and the sessions are ended once more after the commit.
 */
export async function resetPassword(
  ctx: AuthContext,
  { token, request = {} }: Call,
  input: unknown,
): Promise<{ success: true }> {
  const { newPassword } = parseInput(resetPasswordInput, input);
  const password = checkPasswordPolicy(newPassword, ctx.options.password, "newPassword");
  // Before the token is claimed, so a refused password leaves the link working; only for a
  // token that can be one, so requests without a link send no range request.
  if (opaqueToken.safeParse(token).success) await refuseBreachedPassword(ctx, password, "newPassword");
  return useLinkToken(ctx, {
    purpose: PASSWORD_RESET_PURPOSE,
    token,
    request,
    invalid: "PASSWORD_RESET_TOKEN_INVALID",
    expired: "PASSWORD_RESET_TOKEN_EXPIRED",
    async use(user, _record, consume) {
      const passwordHash = await ctx.hasher.hash(password);
      const firstProof = !user.emailVerified;
      const patch = {
        passwordHash,
        ...(firstProof ? { emailVerified: true, twoFactor: { ...NO_TWO_FACTOR } } : {}),
      };
      let revoked = 0;
      const steps = async (stores: ChangeStores) => {
        revoked = (await endUserSessions(stores, user.id)).length;
        const updated = await guardPort("DATABASE_FAILURE", () => stores.users.update(user.id, patch));
        if (!updated) throw new AuthError("PASSWORD_RESET_TOKEN_INVALID");
        const again = await endUserSessions(stores, user.id);
        revoked += again.length;
        // The user's reset tokens, this one among them: every open link dies with this one.
        await guardPort("DATABASE_FAILURE", () =>
          stores.singleUseTokens.deleteUserTokens(user.id, PASSWORD_RESET_PURPOSE),
        );
      };
      await consume(async () => {
        const { endedAfter } = await changeEndingSessions(ctx, user.id, steps);
        revoked += endedAfter;
      });
      await ctx.limits.clearPassword(user.email);
      if (firstProof && user.twoFactor.methods.length > 0) {
        ctx.logger.warn(
          { event: "two_factor.removed_on_first_proof", userId: user.id, methods: user.twoFactor.methods },
          "2FA set up before the address was verified was removed by the owner's reset",
        );
      }
      ctx.events.emit("password_reset.completed", {
        ...request,
        userId: user.id,
        reason: `revoked_sessions:${revoked}`,
      });
      ctx.emails.sendInBackground(
        "password-changed",
        user.email,
        request.locale ?? ctx.translator.defaultLocale,
        { name: user.name, link: ctx.emails.link("forgotPassword") },
      );
      return { success: true as const };
    },
  });
}
