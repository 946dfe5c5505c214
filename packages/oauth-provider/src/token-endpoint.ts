import type { HttpResponse, OAuthClientRecord, RouteInput } from "@portcullis/core";
import { resourcesOf, scopesFor } from "./authorization-request.js";
import { CODE_PURPOSE } from "./authorize.js";
import { clientCredentialsOf } from "./clients.js";
import { STANDARD_SCOPES } from "./discovery.js";
import { liveUser, tokenResponse } from "./issue-tokens.js";
import { OAuthError } from "./oauth-error.js";
import { isCodeVerifier, verifyCodeVerifier } from "./pkce.js";
import { hashOf, oauthJson, type ProviderContext, randomToken, scopeList } from "./provider-context.js";

/** A code's grant id: derived from the code, so a replay of the code finds (and revokes) what it issued. */
const grantIdOf = (code: string) => hashOf(`grant:${code}`);

/** A refresh token: its grant's id, a dot, 43 random characters. */
export const newRefreshToken = (grantId: string) => `${grantId}.${randomToken()}`;

/** The grant id a refresh token names, or undefined for a malformed one. */
export const grantIdOfRefresh = (token: string): string | undefined => {
  const match = /^([A-Za-z0-9_-]{43})\.[A-Za-z0-9_-]{43}$/.exec(token);
  return match?.[1];
};

/**
 * A code that reads as unknown: when well formed, its grant is revoked, or a tombstone stops the
 * grant from being created (a concurrent redemption of the same code fails). The tombstone lasts
 * only as long as the code could still be redeemed.
 */
async function refuseCode(ctx: ProviderContext, client: OAuthClientRecord, code: string): Promise<never> {
  if (/^[A-Za-z0-9_-]{43}$/.test(code)) {
    const now = ctx.now();
    const expiresAt = now + (ctx.lifetimes.code + 60) * 1000;
    await ctx.oauth.revokeOAuthGrant(grantIdOf(code), { clientId: client.clientId, expiresAt }, now);
  }
  throw new OAuthError("invalid_grant", "the code is unknown, used or expired");
}

/** `grant_type=authorization_code` (RFC 6749 §4.1.3, RFC 7636 §4.6): single use, bound to client, redirect URI and verifier. */
async function exchangeCode(ctx: ProviderContext, client: OAuthClientRecord, form: URLSearchParams) {
  const code = form.get("code") ?? "";
  const verifier = form.get("code_verifier") ?? "";
  const record = await ctx.tokens.consumeToken(CODE_PURPOSE, hashOf(code));
  if (record === null) return refuseCode(ctx, client, code);
  const data = record.data ?? {};
  const now = ctx.now();
  if (record.expiresAt <= now) throw new OAuthError("invalid_grant", "the code has expired");
  if (data.clientId !== client.clientId)
    throw new OAuthError("invalid_grant", "the code was issued to another client");
  if (data.redirectUri !== form.get("redirect_uri"))
    throw new OAuthError("invalid_grant", "redirect_uri differs from the authorization request's");
  if (!isCodeVerifier(verifier) || !verifyCodeVerifier(verifier, String(data.codeChallenge)))
    throw new OAuthError("invalid_grant", "code_verifier does not match the code challenge");
  const user = await liveUser(ctx, record.userId);
  const scopes = scopeList(String(data.scope));
  const resources = scopeList(String(data.resource));
  const grantId = grantIdOf(code);
  const refreshToken = client.grantTypes.includes("refresh_token") ? newRefreshToken(grantId) : undefined;
  const created = await ctx.oauth.createOAuthGrant({
    grantId,
    clientId: client.clientId,
    userId: record.userId,
    scopes,
    resources,
    authTime: Number(data.authTime),
    refreshHash: refreshToken === undefined ? null : hashOf(refreshToken),
    createdAt: now,
    expiresAt: now + ctx.lifetimes.refreshToken * 1000,
    revokedAt: null,
  });
  if (!created) throw new OAuthError("invalid_grant", "the code was used already");
  const nonce = typeof data.nonce === "string" ? data.nonce : undefined;
  return tokenResponse(
    ctx,
    {
      clientId: client.clientId,
      userId: record.userId,
      scopes,
      resources,
      authTime: Number(data.authTime),
      grantId,
      refreshToken,
      nonce,
    },
    user,
  );
}

/** The scopes of a refresh or client-credentials request: `scope` may narrow `granted`, never widen it. */
function narrowed(granted: readonly string[], scope: string | null): string[] {
  if (scope === null) return [...granted];
  const asked = scopeList(scope);
  if (asked.length === 0 || asked.some((name) => !granted.includes(name)))
    throw new OAuthError("invalid_scope", "scope may only narrow what was granted");
  return asked;
}

/** `grant_type=refresh_token` (RFC 6749 §6): rotation; a reused token revokes its grant. */
async function refresh(ctx: ProviderContext, client: OAuthClientRecord, form: URLSearchParams) {
  const token = form.get("refresh_token") ?? "";
  const grantId = grantIdOfRefresh(token);
  const now = ctx.now();
  const grant = grantId === undefined ? null : await ctx.oauth.getOAuthGrant(grantId, now);
  if (
    grantId === undefined ||
    grant === null ||
    grant.revokedAt !== null ||
    grant.clientId !== client.clientId
  )
    throw new OAuthError("invalid_grant", "the refresh token is unknown, revoked or expired");
  const next = newRefreshToken(grantId);
  const rotation = await ctx.oauth.rotateOAuthRefresh(grantId, hashOf(token), hashOf(next), now);
  if (rotation.outcome === "reused")
    throw new OAuthError("invalid_grant", "the refresh token was used already: the grant is revoked");
  if (rotation.outcome === "absent")
    throw new OAuthError("invalid_grant", "the refresh token is unknown, revoked or expired");
  const { grant: live } = rotation;
  let user = null;
  if (live.userId !== null) {
    try {
      user = await liveUser(ctx, live.userId);
    } catch (error) {
      await ctx.oauth.revokeOAuthGrant(
        grantId,
        { clientId: client.clientId, expiresAt: live.expiresAt },
        now,
      );
      throw error;
    }
  }
  // A client the back office narrowed since keeps only the scopes it may still ask for.
  const scopes = narrowed(
    live.scopes.filter((scope) => client.scopes.includes(scope)),
    form.get("scope"),
  );
  return tokenResponse(
    ctx,
    {
      clientId: client.clientId,
      userId: live.userId,
      scopes,
      resources: live.resources,
      authTime: live.authTime,
      grantId,
      refreshToken: next,
    },
    user,
  );
}

/** `grant_type=client_credentials` (RFC 6749 §4.4): a confidential client for itself; no user, no refresh token. */
async function clientCredentials(ctx: ProviderContext, client: OAuthClientRecord, form: URLSearchParams) {
  if (client.secretHash === null)
    throw new OAuthError("unauthorized_client", "client credentials need a confidential client");
  const own = client.scopes.filter((scope) => !(STANDARD_SCOPES as readonly string[]).includes(scope));
  const scopes = form.get("scope") === null ? own : scopesFor(client, form.get("scope"));
  if (scopes.some((scope) => !own.includes(scope)))
    throw new OAuthError("invalid_scope", "OpenID scopes need a user: not with client credentials");
  const resources = resourcesOf(ctx, form.getAll("resource"));
  return tokenResponse(
    ctx,
    { clientId: client.clientId, userId: null, scopes, resources, authTime: null },
    null,
  );
}

/** What each grant type does; the device grant joins in device.ts. */
export type GrantHandler = (
  ctx: ProviderContext,
  client: OAuthClientRecord,
  form: URLSearchParams,
) => Promise<HttpResponse>;

const GRANTS: Record<string, GrantHandler> = {
  authorization_code: exchangeCode,
  refresh_token: refresh,
  client_credentials: clientCredentials,
};

/** An OAuth error as RFC 6749 §5.2 answers it (401 with `WWW-Authenticate` for `invalid_client`). */
export function oauthRefusal(error: unknown): HttpResponse {
  if (!(error instanceof OAuthError)) throw error;
  const headers: Record<string, string> =
    error.status === 401 ? { "www-authenticate": 'Basic realm="oauth2"' } : {};
  return oauthJson(error.status, error.toJSON(), headers);
}

/**
 * `POST <prefix>/oauth2/token`: the client authenticated (`client_secret_basic`,
 * `client_secret_post` or `none`), then its grant; errors in RFC 6749's JSON.
 */
export function tokenEndpoint(extraGrants: Record<string, GrantHandler> = {}) {
  const grants = { ...GRANTS, ...extraGrants };
  return async (ctx: ProviderContext, input: RouteInput<"none">): Promise<HttpResponse> => {
    try {
      const form = await input.form();
      const client = await ctx.clients.authenticate(clientCredentialsOf(input.request.headers, form));
      const grantType = form.get("grant_type") ?? "";
      const grant = Object.hasOwn(grants, grantType) ? grants[grantType] : undefined;
      if (grant === undefined)
        throw new OAuthError("unsupported_grant_type", `grant_type ${grantType} is not supported`);
      if (!client.grantTypes.includes(grantType))
        throw new OAuthError("unauthorized_client", `the client may not use ${grantType}`);
      return await grant(ctx, client, form);
    } catch (error) {
      return oauthRefusal(error);
    }
  };
}
