import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import { type Call, issuePrincipal, type Principal } from "../model.js";

/**
 * Access token → principal: one JWT verify and one allowlist lookup, nothing else, because it
 * runs on every request of the host app. The call's `token` is the access token; a missing one is
 * `AUTHENTICATION_REQUIRED`.
 */
export async function authenticate(ctx: AuthContext, { token: accessToken }: Call): Promise<Principal> {
  if (!accessToken) throw new AuthError("AUTHENTICATION_REQUIRED");
  const claims = await ctx.accessTokens.verify(accessToken);
  const entry = await guardPort("ACCESS_TOKEN_ALLOWLIST_READING_FAILURE", () =>
    ctx.allowlist.findAllowedAccessToken(claims.jti),
  );
  if (entry === null || entry.sessionId !== claims.sessionId || entry.userId !== claims.userId) {
    throw new AuthError("ACCESS_TOKEN_INVALID");
  }
  return issuePrincipal(claims.userId, claims.sessionId, claims.actor);
}
