import type { AuthContext, RequestContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import { checkPasswordPolicy } from "../password-policy.js";
import type { TokenRecord } from "../ports/session-store.js";
import { consumeSingleUseToken } from "../tokens/single-use-token.js";
import { parseInput, resetPasswordInput } from "../validation.js";
import { EXPIRED_TOKEN_GRACE_MS, PASSWORD_RESET_PURPOSE } from "./request-password-reset.js";

/**
 * Sets a new password with a reset token. The policy is checked before the token is consumed;
 * the token works once; afterwards every session, refresh token and allowlisted access token of
 * the user is revoked, 2FA stays as it was, nobody is signed in, and a password-changed email
 * goes out. Accounts without a password set their first one this way.
 */
export async function resetPassword(
  ctx: AuthContext,
  token: string | undefined,
  input: unknown,
  request: RequestContext = {},
): Promise<{ success: true }> {
  const { newPassword } = parseInput(resetPasswordInput, input);
  const password = checkPasswordPolicy(newPassword, ctx.options.password, "newPassword");
  const taken = await consumeSingleUseToken(ctx, PASSWORD_RESET_PURPOSE, token);
  if (!taken) throw new AuthError("PASSWORD_RESET_TOKEN_INVALID");
  if (taken.expired) throw new AuthError("PASSWORD_RESET_TOKEN_EXPIRED");
  const { record } = taken;
  const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findById(record.userId));
  if (!user || user.email !== record.data?.email) throw new AuthError("PASSWORD_RESET_TOKEN_INVALID");

  const passwordHash = await ctx.hasher.hash(password);
  try {
    const updated = await ctx.users.update(user.id, { passwordHash });
    if (!updated) throw new AuthError("PASSWORD_RESET_TOKEN_INVALID");
  } catch (error) {
    await restoreToken(ctx, record);
    if (error instanceof AuthError) throw error;
    throw new AuthError("DATABASE_FAILURE", { cause: error });
  }

  const revoked = await guardPort("DATABASE_FAILURE", () => ctx.sessions.deleteUserSessions(user.id));
  await guardPort("DATABASE_FAILURE", () => ctx.sessions.deleteUserTokens(user.id, PASSWORD_RESET_PURPOSE));
  ctx.logger.info(
    { event: "password_reset.completed", userId: user.id, revokedSessions: revoked, ip: request.ip ?? null },
    "password reset",
  );
  ctx.emails.sendInBackground(
    "password-changed",
    user.email,
    request.locale ?? ctx.translator.defaultLocale,
    {
      name: user.name,
      link: ctx.emails.link("forgotPassword"),
    },
  );
  return { success: true };
}

/** Puts a consumed token back when the change it authorized could not be saved. */
export async function restoreToken(
  ctx: AuthContext,
  record: TokenRecord,
  graceMs = EXPIRED_TOKEN_GRACE_MS,
): Promise<void> {
  const ttlMs = record.expiresAt - ctx.clock.now() + graceMs;
  await ctx.sessions
    .saveToken(record, Math.max(ttlMs, 1))
    .catch((error: unknown) =>
      ctx.logger.error(
        { event: "token.restore_failed", purpose: record.purpose, err: String(error) },
        "could not restore a token",
      ),
    );
}
