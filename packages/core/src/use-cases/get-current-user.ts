import type { AuthContext } from "../context.js";
import type { Principal, User } from "../model.js";
import { toUser } from "../model.js";
import { currentUser } from "../sessions/current-user.js";

/** The signed-in user; `USER_NOT_FOUND` when the account was deleted after the token was issued. */
export async function getCurrentUser(ctx: AuthContext, principal: Principal): Promise<User> {
  const user = await currentUser(ctx, principal);
  return toUser(user);
}
