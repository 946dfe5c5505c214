import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import { type AdminUser, toAdminUser } from "../model.js";
import type { Acting } from "../sessions/admin-actor.js";
import { endUserSessions } from "../sessions/session-lifecycle.js";
import { parseInput, requirePasswordChangeInput } from "../validation.js";

/**
 * Makes the user's next password sign-in set a new password before it gets any token: login then
 * answers 403 `PASSWORD_CHANGE_REQUIRED` with a `passwordChangeToken`, which
 * `POST /password/change-required` takes with the new password (docs/back-office.md). Every session
 * ends too, unless `endSessions: false`. Sign-ins that use no password (identity providers,
 * passkeys, email links) are not held back. `USER_NOT_FOUND` for an unknown id.
 */
export async function requirePasswordChange(
  ctx: AuthContext,
  acting: Acting,
  input: { userId: string; endSessions?: boolean | undefined },
): Promise<AdminUser> {
  const { actor } = acting;
  const { userId, endSessions } = parseInput(requirePasswordChangeInput, input);
  const user = await guardPort("DATABASE_FAILURE", () =>
    ctx.users.update(userId, { passwordChangeRequired: true }),
  );
  if (!user) throw new AuthError("USER_NOT_FOUND");
  const ended = endSessions === false ? [] : await endUserSessions(ctx, userId);
  ctx.events.emit("password_change.required", {
    ...acting.request,
    userId,
    actor,
    reason: `sessions_ended:${ended.length}`,
  });
  return toAdminUser(user);
}
