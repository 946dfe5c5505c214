import type { Auth } from "../create-auth/create-auth.js";
import type { OAuthAccessToken } from "../options/oauth-provider-options.js";
import { header } from "./request-checks.js";
import type { HttpRequest, HttpResponse } from "./types.js";

/** What a host route asks of an OAuth access token: issued for it, with these scopes. */
export interface OAuthTokenCheck {
  /** This resource server's identifier: the token's `aud` must name it. */
  audience: string;
  /** Scopes the route needs, every one. */
  scopes?: readonly string[];
  /** The URL of this server's RFC 9728 metadata, named in the 401's `WWW-Authenticate` (MCP clients read it). */
  resourceMetadata?: string;
}

/** An RFC 6750 §3 refusal: the status, the challenge, and `{ error, error_description }`. */
function refusal(
  status: 401 | 403,
  error: string | undefined,
  description: string,
  check: OAuthTokenCheck,
): HttpResponse {
  const params = [
    ...(error ? [`error="${error}"`, `error_description="${description.replace(/["\\]/g, "'")}"`] : []),
    ...(error === "insufficient_scope" && check.scopes ? [`scope="${check.scopes.join(" ")}"`] : []),
    ...(check.resourceMetadata ? [`resource_metadata="${check.resourceMetadata}"`] : []),
  ];
  return {
    status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      "www-authenticate": params.length > 0 ? `Bearer ${params.join(", ")}` : "Bearer",
    },
    cookies: [],
    body: JSON.stringify({ error: error ?? "invalid_request", error_description: description }),
  };
}

/**
 * For the host's resource routes: the OAuth access token of the request's `Authorization: Bearer`
 * header (never a cookie), verified by `auth.oauthProvider` for `check`; or the RFC 6750 refusal to
 * send instead (401 without a token or with a bad one, 403 `insufficient_scope`). Anything but a
 * refusal of the token itself (a store down while reading the keys) is thrown.
 */
export async function authenticateOAuth(
  auth: Auth,
  request: Pick<HttpRequest, "headers">,
  check: OAuthTokenCheck,
): Promise<
  { token: OAuthAccessToken; response?: undefined } | { token?: undefined; response: HttpResponse }
> {
  const provider = auth.oauthProvider;
  if (provider === undefined) throw new Error("an OAuth guard needs the oauthProvider option");
  const bearer = /^Bearer\s+([A-Za-z0-9._~+/-]+=*)\s*$/i.exec(header(request, "authorization") ?? "")?.[1];
  if (bearer === undefined)
    return { response: refusal(401, undefined, "a bearer access token is required", check) };
  try {
    return { token: await provider.verifyAccessToken(bearer, check) };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "insufficient_scope")
      return { response: refusal(403, code, "the token lacks a scope", check) };
    if (code === "invalid_token")
      return { response: refusal(401, code, "the access token is invalid or expired", check) };
    throw error;
  }
}
