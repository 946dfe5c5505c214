import type { AuthContext, Principal } from "../context.js";
import { guardPort } from "../errors.js";

/** Ends every session of the user, the caller's included ("sign out everywhere"). */
export async function revokeAllSessions(
  ctx: AuthContext,
  principal: Principal,
): Promise<{ success: true; revoked: number }> {
  const revoked = await guardPort("DATABASE_FAILURE", () =>
    ctx.sessions.deleteUserSessions(principal.userId),
  );
  ctx.logger.info(
    { event: "session.revoked_all", userId: principal.userId, revoked },
    "all sessions revoked",
  );
  return { success: true, revoked };
}
