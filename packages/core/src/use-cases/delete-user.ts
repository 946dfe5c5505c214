import { eraseUser } from "../account/erase-user.js";
import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Acting } from "../sessions/admin-actor.js";
import { parseInput, userIdField } from "../validation.js";

/**
 * Deletes a user from a script or back office, with everything kept about them (`eraseUser`):
 * sessions (their tokens stop working at once), single-use tokens of every purpose, email
 * cooldowns and throttle counters, identity-provider links, activity. `USER_NOT_FOUND` for an
 * unknown id.
 */
export async function deleteUser(
  ctx: AuthContext,
  _acting: Acting,
  userId: string,
): Promise<{ success: true }> {
  const id = parseInput(userIdField, userId);
  const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findById(id));
  if (!user) throw new AuthError("USER_NOT_FOUND");
  if (!(await eraseUser(ctx, user))) throw new AuthError("USER_NOT_FOUND");
  ctx.events.emit("user.deleted", { userId: id, reason: "admin" });
  return { success: true };
}
