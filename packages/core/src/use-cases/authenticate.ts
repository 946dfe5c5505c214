import { apiKeysEnabled, authenticateApiKey } from "../api-keys/api-keys.js";
import { looksLikeApiKey } from "../api-keys/key-format.js";
import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import { type Call, issuePrincipal, type Principal, type UserRead } from "../model.js";
import { isPlausibleId } from "../organizations/membership.js";
import type { AllowlistEntry } from "../ports/access-token-allowlist.js";

/**
 * Access token → principal: one JWT verify and one allowlist lookup, nothing else, because it
 * runs on every request of the host app. When the allowlist can read the entry's user in that
 * same lookup (`stores.joint.findAllowedAccessTokenWithUser`, stores kept side by side), the principal
 * carries the record, so the route's own read of the signed-in user costs no second round trip.
 * When the token names an active organization and organizations are on, the lookup also reads
 * the user's membership in it (`findAllowedAccessTokenWithMembership`), so a permission check
 * (`organizations.require`, `can`) of the same request reads no store again: the role is the one
 * stored now, never the token's. The call's `token` is the access token; a missing one is
 * `AUTHENTICATION_REQUIRED`. While `apiKeys` is configured, a token that starts with `pc_` is an
 * API key instead (`authenticateApiKey`: one indexed read and the key's request counter, no JWT).
 */
export async function authenticate(ctx: AuthContext, { token: accessToken }: Call): Promise<Principal> {
  if (!accessToken) throw new AuthError("AUTHENTICATION_REQUIRED");
  if (looksLikeApiKey(accessToken) && apiKeysEnabled(ctx)) return authenticateApiKey(ctx, accessToken);
  const claims = await ctx.accessTokens.verify(accessToken);
  const { allowlist, joint } = ctx;
  let entry: AllowlistEntry | null;
  let read: UserRead | undefined;
  const organizationId = claims.organizationId;
  const withMembership = joint?.findAllowedAccessTokenWithMembership;
  const jointRead = joint?.findAllowedAccessTokenWithUser;
  if (
    withMembership &&
    organizationId !== undefined &&
    ctx.organizations !== undefined &&
    ctx.options.organizations !== undefined &&
    isPlausibleId(organizationId)
  ) {
    const together = await guardPort("ACCESS_TOKEN_ALLOWLIST_READING_FAILURE", () =>
      withMembership.call(joint, claims.jti, organizationId),
    );
    entry = together?.entry ?? null;
    if (together) read = { user: together.user, at: ctx.clock.now(), membership: together.membership };
  } else if (jointRead) {
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
  return issuePrincipal(claims.userId, claims.sessionId, claims.actor, read, claims.organizationId);
}
