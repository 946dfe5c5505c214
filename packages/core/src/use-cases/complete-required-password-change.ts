import type { AuthContext } from "../context.js";
import { AuthError, guardPort, ValidationError } from "../errors.js";
import type { Call } from "../model.js";
import { checkPasswordPolicy } from "../passwords/password-policy.js";
import { assertNotLocked } from "../sessions/account-lock.js";
import { changeEndingSessions } from "../sessions/change-together.js";
import { finishLogin, type SignedIn } from "../sessions/finish-login.js";
import { passwordFingerprint } from "../sessions/password-change.js";
import { endUserSessions } from "../sessions/session-lifecycle.js";
import { describeDevice } from "../support/user-agent.js";
import { PASSWORD_CHANGE_PURPOSE } from "../tokens/purposes.js";
import { consumeSingleUseToken, restoreToken } from "../tokens/single-use-token.js";
import { startChallenge, type TwoFactorChallenge } from "../two-factor/challenge.js";
import { fieldIssue, parseInput, requiredPasswordChangeInput } from "../validation.js";

/**
 * The second half of a password sign-in that answered `PASSWORD_CHANGE_REQUIRED`: `{ token,
 * newPassword, session?, rememberMe? }`. The policy is checked before the token is spent; the new
 * password must differ from the old one (`PASSWORD_POLICY_VIOLATION`, rule `password_reused`).
 * The token is single use (given back after that refusal), ten minutes, and holds only while the account, its password and the
 * requirement are as the login found them (`PASSWORD_CHANGE_TOKEN_INVALID` otherwise, also when
 * locked meanwhile: `ACCOUNT_LOCKED`). Then the password is set, the requirement cleared, every
 * older session ended, and the sign-in goes on as a login would: the second factor when the
 * account has one, else signed in. Reads `call.request`.
 */
export async function completeRequiredPasswordChange(
  ctx: AuthContext,
  { request = {} }: Call,
  input: unknown,
): Promise<SignedIn | ({ twoFactorRequired: true } & TwoFactorChallenge)> {
  const { token, newPassword, session, rememberMe } = parseInput(requiredPasswordChangeInput, input);
  const normalized = checkPasswordPolicy(newPassword, ctx.options.password);
  const taken = await consumeSingleUseToken(ctx, PASSWORD_CHANGE_PURPOSE, token);
  if (!taken || taken.expired) throw new AuthError("PASSWORD_CHANGE_TOKEN_INVALID");
  const userId = taken.record.userId;
  const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findById(userId));
  if (
    !user ||
    user.passwordHash === null ||
    user.passwordChangeRequired !== true ||
    passwordFingerprint(user.passwordHash) !== taken.record.data?.password
  )
    throw new AuthError("PASSWORD_CHANGE_TOKEN_INVALID");
  assertNotLocked(user);
  if (await ctx.hasher.verify(user.passwordHash, normalized)) {
    // The token was only spent on a refusal about the input: the user tries another password.
    await restoreToken(ctx, taken.record);
    throw new ValidationError([fieldIssue("newPassword", "password_reused")], "PASSWORD_POLICY_VIOLATION");
  }
  const passwordHash = await ctx.hasher.hash(normalized);
  // Fail-safe order as in `setPassword`: sessions end before and after the new password is set.
  const { result: updated } = await changeEndingSessions(ctx, userId, async (stores) => {
    await endUserSessions(stores, userId);
    const changed = await guardPort("DATABASE_FAILURE", () =>
      stores.users.update(userId, { passwordHash, passwordChangeRequired: false }),
    );
    if (!changed) throw new AuthError("PASSWORD_CHANGE_TOKEN_INVALID");
    await endUserSessions(stores, userId);
    return changed;
  });
  ctx.events.emit("password_change.completed", { ...request, userId });
  const locale = request.locale ?? ctx.translator.defaultLocale;
  ctx.emails.sendInBackground("password-changed", updated.email, locale, {
    name: updated.name,
    link: ctx.emails.link("forgotPassword"),
  });
  if (updated.twoFactor.methods.length > 0) {
    const device = describeDevice(session, request.userAgent);
    const challenge = await startChallenge(
      ctx,
      updated,
      { kind: "login", ...device, rememberMe, verifiedPasswordHash: passwordHash },
      locale,
    );
    return { twoFactorRequired: true, ...challenge };
  }
  return finishLogin(ctx, updated, session, request, { verifiedPasswordHash: passwordHash, rememberMe });
}
