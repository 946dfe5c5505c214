import type { AuthContext } from "../context.js";
import type { Call, User } from "../model.js";
import { toUser } from "../model.js";
import { currentUser } from "../sessions/current-user.js";
import { signedIn } from "../sessions/signed-in.js";

/** The signed-in user; `USER_NOT_FOUND` when the account was deleted after the token was issued. */
export async function getCurrentUser(ctx: AuthContext, call: Call): Promise<User> {
  const user = await currentUser(ctx, signedIn(call));
  return toUser(user);
}
