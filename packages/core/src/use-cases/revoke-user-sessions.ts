import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Acting } from "../sessions/admin-actor.js";
import { endUserSessions } from "../sessions/session-lifecycle.js";
import { adminUserInput, parseInput } from "../validation.js";

/**
 * Ends every session of a user for the back office: refresh tokens stop working and access
 * tokens are refused at once. `{ revoked }` counts them. `USER_NOT_FOUND` for an unknown id.
 */
export async function revokeUserSessions(
  ctx: AuthContext,
  acting: Acting,
  userId: string,
): Promise<{ success: true; revoked: number }> {
  const { actor } = acting;
  const { userId: id } = parseInput(adminUserInput, { userId });
  const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findById(id));
  if (!user) throw new AuthError("USER_NOT_FOUND");
  const revoked = (await endUserSessions(ctx, id)).length;
  ctx.events.emit("admin.sessions_revoked", {
    ...acting.request,
    userId: id,
    actor,
    reason: `revoked:${revoked}`,
  });
  return { success: true, revoked };
}
