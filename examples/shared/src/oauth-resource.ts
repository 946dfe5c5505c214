import type { Auth, OAuthAccessToken, OAuthTokenCheck } from "@portcullis/core";

/** The scope of the example's own API that lets an app read the user's projects (`GET /api/projects`). */
export const PROJECTS_READ_SCOPE = "projects:read";

/**
 * The example API's identifier as a resource server: `<appOrigin>/api`. A client asks the
 * provider for it as the RFC 8707 `resource` of its token request (the provider issues tokens for
 * any resource on the app's origin), and the token's `aud` then names it.
 */
export const apiAudience = (auth: Auth): string => `${auth.options.appOrigin ?? ""}/api`;

/** What `GET /api/projects` asks of an OAuth access token: issued for the example's API, with `projects:read`. */
export const projectsTokenCheck = (auth: Auth): OAuthTokenCheck => ({
  audience: apiAudience(auth),
  scopes: [PROJECTS_READ_SCOPE],
});

/** The protected header of a compact JWS, or null when `token` is not one. */
function headerOf(token: string): Record<string, unknown> | null {
  const parts = token.split(".");
  if (parts.length !== 3) return null;
  try {
    // atob, not Buffer: the Hono example runs on Bun and Deno too.
    const binary = atob((parts[0] ?? "").replace(/-/g, "+").replace(/_/g, "/"));
    const json = new TextDecoder().decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
    const header: unknown = JSON.parse(json);
    return typeof header === "object" && header !== null ? (header as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Whether an `Authorization` header carries an access token of the OAuth provider, judged by the
 * JWT's header alone (nothing is trusted from it: the guard it chooses verifies the token). RFC
 * 9068 tokens say `typ: at+jwt`; so do the library's own session tokens, which are signed HS256,
 * while the provider signs with an asymmetric key (ES256 or EdDSA). So: `at+jwt` and not HMAC.
 */
export function isOAuthAccessToken(authorization: string | undefined): boolean {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
  if (bearer === undefined) return false;
  const header = headerOf(bearer);
  const typ = typeof header?.typ === "string" ? header.typ.toLowerCase() : "";
  const alg = typeof header?.alg === "string" ? header.alg : "";
  return (typ === "at+jwt" || typ === "application/at+jwt") && alg !== "" && !alg.startsWith("HS");
}

/**
 * Whether `GET /api/projects` takes this request as an OAuth client's: the provider is on
 * (OAUTH_PROVIDER) and the bearer token is one of its access tokens. Otherwise the route stays
 * the organizations' demo route (`requirePermission("project:read")`).
 */
export const takesOAuthToken = (auth: Auth, authorization: string | undefined): boolean =>
  auth.oauthProvider !== undefined && isOAuthAccessToken(authorization);

/** What `GET /api/projects` answers an OAuth client: the user it acts for (null: the client itself), the client, the scopes. */
export const oauthProjectsAnswer = (token: OAuthAccessToken) => ({
  userId: token.userId,
  clientId: token.clientId,
  scopes: token.scopes,
});
