import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import { type AdminUser, toAdminUser } from "../model.js";
import type { Acting } from "../sessions/admin-actor.js";
import { adminUserInput, parseInput } from "../validation.js";

/**
 * Lifts an admin's lock: the account signs in again as before (its ended sessions stay ended).
 * Unlocking an account that is not locked changes nothing. `USER_NOT_FOUND` for an unknown id.
 */
export async function unlockUser(ctx: AuthContext, acting: Acting, userId: string): Promise<AdminUser> {
  const { actor } = acting;
  const { userId: id } = parseInput(adminUserInput, { userId });
  const user = await guardPort("DATABASE_FAILURE", () =>
    ctx.users.update(id, { lockedAt: null, lockReason: null, lockedBy: null }),
  );
  if (!user) throw new AuthError("USER_NOT_FOUND");
  ctx.events.emit("user.unlocked", { ...acting.request, userId: id, actor });
  return toAdminUser(user);
}
