import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import { type Call, issuePrincipal, type Principal, type UserRead } from "../model.js";
import type { AllowlistEntry } from "../ports/access-token-allowlist.js";

/**
 * Access token → principal: one JWT verify and one allowlist lookup, nothing else, because it
 * runs on every request of the host app. When the allowlist can read the entry's user in that
 * same lookup (`stores.joint.findAllowedAccessTokenWithUser`, stores kept side by side), the principal
 * carries the record, so the route's own read of the signed-in user costs no second round trip.
 * The call's `token` is the access token; a missing one is `AUTHENTICATION_REQUIRED`.
 */
export async function authenticate(ctx: AuthContext, { token: accessToken }: Call): Promise<Principal> {
  if (!accessToken) throw new AuthError("AUTHENTICATION_REQUIRED");
  const claims = await ctx.accessTokens.verify(accessToken);
  const { allowlist, joint } = ctx;
  let entry: AllowlistEntry | null;
  let read: UserRead | undefined;
  const jointRead = joint?.findAllowedAccessTokenWithUser;
  if (jointRead) {
    const together = await guardPort("ACCESS_TOKEN_ALLOWLIST_READING_FAILURE", () =>
      jointRead.call(joint, claims.jti),
    );
    entry = together?.entry ?? null;
    if (together) read = { user: together.user, at: ctx.clock.now() };
  } else {
    entry = await guardPort("ACCESS_TOKEN_ALLOWLIST_READING_FAILURE", () =>
      allowlist.findAllowedAccessToken(claims.jti),
    );
  }
  if (entry === null || entry.sessionId !== claims.sessionId || entry.userId !== claims.userId) {
    throw new AuthError("ACCESS_TOKEN_INVALID");
  }
  return issuePrincipal(claims.userId, claims.sessionId, claims.actor, read);
}
