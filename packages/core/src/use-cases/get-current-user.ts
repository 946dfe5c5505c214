import type { AuthContext } from "../context.js";
import type { Call, User } from "../model.js";
import { toUser } from "../model.js";
import { currentUserForAnswer } from "../sessions/current-user.js";
import { signedIn } from "../sessions/signed-in.js";

/**
 * The signed-in user; `USER_NOT_FOUND` when the account was deleted after the token was issued.
 * In an admin's impersonation session it says who: `impersonatedBy`.
 */
export async function getCurrentUser(ctx: AuthContext, call: Call): Promise<User> {
  const principal = signedIn(call);
  const user = toUser(await currentUserForAnswer(ctx, principal));
  return principal.impersonatedBy === undefined
    ? user
    : { ...user, impersonatedBy: principal.impersonatedBy };
}
