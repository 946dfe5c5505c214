import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import { toUser, type User } from "../model.js";
import { checkNewPassword } from "../passwords/password-policy.js";
import type { Acting } from "../sessions/admin-actor.js";
import { changeEndingSessions } from "../sessions/change-together.js";
import { endUserSessions } from "../sessions/session-lifecycle.js";
import { PASSWORD_RESET_PURPOSE } from "../tokens/purposes.js";
import { parseInput, passwordField, userIdField } from "../validation.js";

/**
 * Sets a user's password from a script or back office: the policy is checked (and the breach
 * corpus, with `breachedPasswords`), every session and
 * open reset link of the user ends, the address's failed-login lock is lifted, and the
 * password-changed email goes out (when email is on). `USER_NOT_FOUND` for an unknown id.
 */
export async function setPassword(
  ctx: AuthContext,
  _acting: Acting,
  { userId, password }: { userId: string; password: string },
): Promise<User> {
  const id = parseInput(userIdField, userId);
  const normalized = await checkNewPassword(ctx, parseInput(passwordField, password));
  const passwordHash = await ctx.hasher.hash(normalized);
  // Fail-safe order (docs/security.md): sessions end before and after the new password is set,
  // so a failure at any step never leaves the new password beside a session from before it; in
  // one transaction when the stores run together.
  const { result: updated } = await changeEndingSessions(ctx, id, async (stores) => {
    await endUserSessions(stores, id);
    const user = await guardPort("DATABASE_FAILURE", () => stores.users.update(id, { passwordHash }));
    if (!user) throw new AuthError("USER_NOT_FOUND");
    await endUserSessions(stores, id);
    await guardPort("DATABASE_FAILURE", () =>
      stores.singleUseTokens.deleteUserTokens(id, PASSWORD_RESET_PURPOSE),
    );
    return user;
  });
  await ctx.limits.clearPassword(updated.email);
  ctx.events.emit("password.set", { userId: id, reason: "admin" });
  ctx.emails.sendInBackground("password-changed", updated.email, ctx.translator.defaultLocale, {
    name: updated.name,
    link: ctx.emails.link("forgotPassword"),
  });
  return toUser(updated);
}
