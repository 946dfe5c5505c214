import { deleteUserKeys } from "../api-keys/api-keys.js";
import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import { type AdminUser, toAdminUser } from "../model.js";
import type { Acting } from "../sessions/admin-actor.js";
import { endUserSessions } from "../sessions/session-lifecycle.js";
import { lockUserInput, parseInput } from "../validation.js";

/**
 * Locks an account: from now on it signs in by no method (403 `ACCOUNT_LOCKED`: password, second
 * factor, recovery code, refresh, identity provider, `sessions.create`, and every sign-in that goes
 * through `assertNotLocked`), and every session ends at once, their access tokens taken off the
 * allowlist, and the user's own API keys are deleted (organizations' keys they created stay: they
 * act for the organization). The lock is written first, then the sessions end: a sign-in racing it either sees
 * the lock or has its session ended (it checks again once its session is written). Locking a
 * locked account replaces the reason. `USER_NOT_FOUND` for an unknown id.
 */
export async function lockUser(
  ctx: AuthContext,
  acting: Acting,
  input: { userId: string; reason?: string | undefined },
): Promise<AdminUser> {
  const { actor } = acting;
  const { userId, reason } = parseInput(lockUserInput, input);
  const user = await guardPort("DATABASE_FAILURE", () =>
    ctx.users.update(userId, { lockedAt: ctx.clock.now(), lockReason: reason || null, lockedBy: actor }),
  );
  if (!user) throw new AuthError("USER_NOT_FOUND");
  const ended = await endUserSessions(ctx, userId);
  await deleteUserKeys(ctx, userId);
  ctx.events.emit("user.locked", {
    ...acting.request,
    userId,
    actor,
    reason: `sessions_ended:${ended.length}`,
  });
  return toAdminUser(user);
}
