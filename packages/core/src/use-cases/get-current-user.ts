import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Principal, User } from "../model.js";
import { toUser } from "../model.js";

/** The signed-in user; `USER_NOT_FOUND` when the account was deleted after the token was issued. */
export async function getCurrentUser(ctx: AuthContext, principal: Principal): Promise<User> {
  const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findById(principal.userId));
  if (!user) throw new AuthError("USER_NOT_FOUND");
  return toUser(user);
}
