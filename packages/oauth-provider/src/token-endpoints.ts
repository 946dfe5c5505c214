import type { HttpResponse, RouteInput } from "@portcullis/core";
import { jwtVerify } from "jose";
import { ACCESS_TOKEN_ALGORITHMS, keySetOf } from "./access-tokens.js";
import { clientCredentialsOf } from "./clients.js";
import { userClaims } from "./id-tokens.js";
import { liveUser } from "./issue-tokens.js";
import { OAuthError } from "./oauth-error.js";
import { hashOf, oauthJson, type ProviderContext, scopeList } from "./provider-context.js";
import { grantIdOfRefresh, oauthRefusal } from "./token-endpoint.js";

/** What an access token of this provider says, once its signature, `typ`, `iss` and `exp` check out; any audience. */
export async function readAccessToken(ctx: ProviderContext, token: string) {
  const { payload } = await jwtVerify(token, keySetOf(await ctx.ring.jwks()), {
    issuer: ctx.issuer,
    typ: "at+jwt",
    algorithms: ACCESS_TOKEN_ALGORITHMS,
    currentDate: new Date(ctx.now()),
    clockTolerance: 5,
    requiredClaims: ["sub", "client_id", "exp", "iat"],
  });
  return payload;
}

/** Whether the grant a token names (`gid`) is still live; a token without one (client credentials) has none to lose. */
async function grantLive(ctx: ProviderContext, grantId: unknown): Promise<boolean> {
  if (typeof grantId !== "string") return true;
  const grant = await ctx.oauth.getOAuthGrant(grantId, ctx.now());
  return grant !== null && grant.revokedAt === null;
}

const bearerOf = (input: RouteInput<"none">): string | undefined => {
  const header = input.request.headers.authorization;
  const value = Array.isArray(header) ? header[0] : header;
  return value?.match(/^Bearer\s+(\S+)$/i)?.[1];
};

/** A 401 of RFC 6750 §3 for a bearer token that does not verify. */
const invalidToken = (description: string) =>
  oauthJson(
    401,
    { error: "invalid_token", error_description: description },
    {
      "www-authenticate": `Bearer error="invalid_token", error_description="${description}"`,
    },
  );

/** `GET|POST <prefix>/oauth2/userinfo` (OpenID Connect Core §5.3): the claims its scopes allow, for a live grant. */
export async function userinfo(ctx: ProviderContext, input: RouteInput<"none">): Promise<HttpResponse> {
  const token = bearerOf(input);
  if (token === undefined) return invalidToken("a bearer access token is required");
  let payload: Awaited<ReturnType<typeof readAccessToken>>;
  try {
    payload = await readAccessToken(ctx, token);
  } catch {
    return invalidToken("the access token is invalid or expired");
  }
  const scopes = scopeList(String(payload.scope ?? ""));
  if (!scopes.includes("openid"))
    return oauthJson(403, { error: "insufficient_scope", error_description: "openid was not granted" });
  if (!(await grantLive(ctx, payload.gid))) return invalidToken("the grant was revoked");
  try {
    const user = await liveUser(ctx, String(payload.sub));
    return oauthJson(200, userClaims(user, scopes));
  } catch (error) {
    if (error instanceof OAuthError) return invalidToken(error.description);
    throw error;
  }
}

/** The grant a token names: a refresh token's by its form, an access token's by its `gid`. */
async function grantOfToken(ctx: ProviderContext, token: string, hint: string | null) {
  const fromRefresh = grantIdOfRefresh(token);
  if (fromRefresh !== undefined && hint !== "access_token")
    return { grantId: fromRefresh, kind: "refresh" as const };
  try {
    const payload = await readAccessToken(ctx, token);
    return {
      grantId: typeof payload.gid === "string" ? payload.gid : undefined,
      kind: "access" as const,
      payload,
    };
  } catch {
    return undefined;
  }
}

/**
 * `POST <prefix>/oauth2/revoke` (RFC 7009): the client's own refresh or access token; revoking
 * either revokes its grant. 200 whether or not the token was live (§2.2).
 */
export async function revoke(ctx: ProviderContext, input: RouteInput<"none">): Promise<HttpResponse> {
  try {
    const form = await input.form();
    const client = await ctx.clients.authenticate(clientCredentialsOf(input.request.headers, form));
    const token = form.get("token");
    if (!token) throw new OAuthError("invalid_request", "token is required");
    const found = await grantOfToken(ctx, token, form.get("token_type_hint"));
    const now = ctx.now();
    const grant = found?.grantId === undefined ? null : await ctx.oauth.getOAuthGrant(found.grantId, now);
    // Only the client's own grant; a refresh token must be the live one (an old one proves nothing).
    const owned = grant !== null && grant.clientId === client.clientId;
    const proven = found?.kind === "access" || grant?.refreshHash === hashOf(token);
    if (grant !== null && owned && proven)
      await ctx.oauth.revokeOAuthGrant(
        grant.grantId,
        { clientId: grant.clientId, expiresAt: grant.expiresAt },
        now,
      );
    return oauthJson(200, {});
  } catch (error) {
    return oauthRefusal(error);
  }
}

/**
 * `POST <prefix>/oauth2/introspect` (RFC 7662), for confidential clients: whether a token is
 * live (signature, expiry, its grant not revoked) and what it says; `{ active: false }` otherwise.
 */
export async function introspect(ctx: ProviderContext, input: RouteInput<"none">): Promise<HttpResponse> {
  try {
    const form = await input.form();
    const client = await ctx.clients.authenticate(clientCredentialsOf(input.request.headers, form));
    if (client.secretHash === null)
      throw new OAuthError("invalid_client", "introspection needs a confidential client", 401);
    const token = form.get("token");
    if (!token) throw new OAuthError("invalid_request", "token is required");
    const found = await grantOfToken(ctx, token, form.get("token_type_hint"));
    if (found === undefined) return oauthJson(200, { active: false });
    if (found.kind === "access") {
      if (!(await grantLive(ctx, found.grantId))) return oauthJson(200, { active: false });
      const { payload } = found;
      return oauthJson(200, {
        active: true,
        token_type: "Bearer",
        scope: payload.scope,
        client_id: payload.client_id,
        sub: payload.sub,
        aud: payload.aud,
        iss: payload.iss,
        exp: payload.exp,
        iat: payload.iat,
        jti: payload.jti,
      });
    }
    const grant =
      found.grantId === undefined ? null : await ctx.oauth.getOAuthGrant(found.grantId, ctx.now());
    if (grant === null || grant.revokedAt !== null || grant.refreshHash !== hashOf(token))
      return oauthJson(200, { active: false });
    return oauthJson(200, {
      active: true,
      token_type: "refresh_token",
      scope: grant.scopes.join(" "),
      client_id: grant.clientId,
      ...(grant.userId === null ? {} : { sub: grant.userId }),
      iss: ctx.issuer,
      exp: Math.floor(grant.expiresAt / 1000),
      iat: Math.floor(grant.createdAt / 1000),
    });
  } catch (error) {
    return oauthRefusal(error);
  }
}
