import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import { toUser, type User } from "../model.js";
import type { Acting } from "../sessions/admin-actor.js";
import { parseInput, userIdField } from "../validation.js";

/** Marks a user's address verified from a script or back office. `USER_NOT_FOUND` for an unknown id. */
export async function markEmailVerified(ctx: AuthContext, _acting: Acting, userId: string): Promise<User> {
  const id = parseInput(userIdField, userId);
  const updated = await guardPort("DATABASE_FAILURE", () => ctx.users.update(id, { emailVerified: true }));
  if (!updated) throw new AuthError("USER_NOT_FOUND");
  ctx.events.emit("email.verified", { userId: id, reason: "admin" });
  return toUser(updated);
}
