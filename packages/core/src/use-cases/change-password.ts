import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import { giveBackOnFailure } from "../limits/throttle.js";
import type { Call } from "../model.js";
import {
  checkPasswordPolicy,
  normalizePassword,
  refuseBreachedPassword,
} from "../passwords/password-policy.js";
import type { ChangeStores } from "../ports/stores-together.js";
import { changeEndingSessions } from "../sessions/change-together.js";
import { currentUser } from "../sessions/current-user.js";
import { assertNotImpersonating } from "../sessions/impersonation.js";
import { endUserSessions } from "../sessions/session-lifecycle.js";
import { signedIn } from "../sessions/signed-in.js";
import { PASSWORD_RESET_PURPOSE } from "../tokens/purposes.js";
import { changePasswordInput, parseInput } from "../validation.js";

/**
 * The signed-in user changes their password (docs/concepts.md, "Account self-service"); an impersonation may not
 * (`IMPERSONATION_NOT_ALLOWED`, before anything else). In this order: the input; the new
 * password's policy (`PASSWORD_POLICY_VIOLATION`: no guess is spent on it); an account without a
 * password is `PASSWORD_NOT_SET` (it sets its first one through the reset flow); the current
 * password, counted on the session's own password budget before it is checked (the login's rules;
 * `LOGIN_THROTTLED` once spent; a wrong one `INVALID_CREDENTIALS`), so a stolen access token is no
 * unlimited password oracle, also under concurrency, while failed logins on the address (anyone's)
 * do not block the signed-in owner. Then the new hash replaces the one that was checked (a
 * compare-and-set where the store has one: a reset landing meanwhile wins, and this answers
 * `INVALID_CREDENTIALS`), every other session of the user ends (the caller's stays), open reset
 * links die, and the "password changed" email goes out.
 *
 * Fail-safe order as for a reset (docs/security.md): other sessions end before and after the new
 * hash is stored, in one transaction when the stores run together.
 */
export async function changePassword(
  ctx: AuthContext,
  call: Call,
  input: unknown,
): Promise<{ success: true }> {
  const principal = signedIn(call);
  assertNotImpersonating(principal);
  const { request = {} } = call;
  const { currentPassword, newPassword } = parseInput(changePasswordInput, input);
  const password = checkPasswordPolicy(newPassword, ctx.options.password, "newPassword");
  const user = await currentUser(ctx, principal);
  const checkedHash = user.passwordHash;
  if (checkedHash === null) throw new AuthError("PASSWORD_NOT_SET");
  const attempt = await ctx.limits.sessionPassword(principal.sessionId, { ...request, userId: user.id });
  const ok = await giveBackOnFailure([attempt], () =>
    ctx.hasher.verify(checkedHash, normalizePassword(currentPassword)),
  );
  if (!ok) {
    ctx.events.emit("step_up.failed", {
      ...request,
      userId: user.id,
      sessionId: principal.sessionId,
      reason: "password_change",
    });
    throw new AuthError("INVALID_CREDENTIALS");
  }
  await attempt.succeeded();
  // Breached passwords (docs/security.md, "Breached passwords"): the new password is checked here,
  // after the current one was proved and before anything is stored (400 `PASSWORD_BREACHED`).
  await refuseBreachedPassword(ctx, password, "newPassword");
  const passwordHash = await ctx.hasher.hash(password);
  const keep = principal.sessionId;
  let revoked = 0;
  const steps = async (stores: ChangeStores) => {
    revoked = (await endUserSessions(stores, user.id, keep)).length;
    const replace = stores.users.replacePasswordHash?.bind(stores.users);
    const replaced = replace
      ? await guardPort("DATABASE_FAILURE", () => replace(user.id, checkedHash, passwordHash))
      : (await guardPort("DATABASE_FAILURE", () => stores.users.update(user.id, { passwordHash }))) !== null;
    if (!replaced) throw new AuthError("INVALID_CREDENTIALS");
    revoked += (await endUserSessions(stores, user.id, keep)).length;
    await guardPort("DATABASE_FAILURE", () =>
      stores.singleUseTokens.deleteUserTokens(user.id, PASSWORD_RESET_PURPOSE),
    );
  };
  const { endedAfter } = await changeEndingSessions(ctx, user.id, steps, keep);
  ctx.events.emit("password.changed", {
    ...request,
    userId: user.id,
    sessionId: keep,
    reason: `revoked_sessions:${revoked + endedAfter}`,
  });
  ctx.emails.sendInBackground(
    "password-changed",
    user.email,
    request.locale ?? ctx.translator.defaultLocale,
    {
      name: user.name,
      link: ctx.emails.link("forgotPassword"),
      variant: "kept",
    },
  );
  return { success: true };
}
