import type { OAuthAccessToken } from "@portcullis/core";
import { verifyAccessToken } from "./access-tokens.js";
import type { ProviderContext } from "./provider-context.js";

/**
 * `auth.oauthProvider.verifyAccessToken`: the token checked against the provider's own keys (read
 * through the ring's cache, so no store round trip on most calls), for `audience` and `scopes`.
 * A token without a grant (`gid`) is a client's own (client credentials): `userId` null.
 */
export async function verifyWithRing(
  ctx: ProviderContext,
  token: string,
  check: { audience: string; scopes?: readonly string[] },
): Promise<OAuthAccessToken> {
  const verified = await verifyAccessToken(token, {
    issuer: ctx.issuer,
    audience: check.audience,
    ...(check.scopes === undefined ? {} : { scopes: check.scopes }),
    keys: await ctx.ring.jwks(),
    now: ctx.now(),
  });
  return {
    subject: verified.subject,
    userId: typeof verified.claims.gid === "string" ? verified.subject : null,
    clientId: verified.clientId,
    scopes: verified.scopes,
    audience: verified.audience,
    expiresAt: verified.expiresAt,
  };
}
