import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import { type Call, issuePrincipal, type Principal } from "../model.js";
import { finishLogin, type SignedIn } from "../sessions/finish-login.js";
import { createSessionInput, parseInput } from "../validation.js";

/**
 * Starts a session for a user who proved who they are some other way (an identity provider, a
 * magic link, a test): the same tokens a login gives, the login alert and the `login.succeeded`
 * and `session.created` events (reason `api`), and the principal of the new session. No password is checked and no second factor asked:
 * the caller vouches for the user. `USER_NOT_FOUND` for an unknown id.
 */
export async function createSession(
  ctx: AuthContext,
  { request = {} }: Call,
  input: unknown,
): Promise<SignedIn & { principal: Principal }> {
  const { userId, session, rememberMe } = parseInput(createSessionInput, input);
  const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findById(userId));
  if (!user) throw new AuthError("USER_NOT_FOUND");
  const signedIn = await finishLogin(ctx, user, session, request, { reason: "api", rememberMe });
  return { ...signedIn, principal: issuePrincipal(user.id, signedIn.sessionId) };
}
