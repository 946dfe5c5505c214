import type { OAuthClientRecord } from "@portcullis/core";
import { OAuthError } from "./oauth-error.js";
import { isCodeChallenge } from "./pkce.js";
import { type ProviderContext, scopeList } from "./provider-context.js";

/** An authorization request once checked: what a code or a consent request carries. */
export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  resources: string[];
  codeChallenge: string;
  state?: string | undefined;
  nonce?: string | undefined;
}

/** What the request asks of the user's sign-in: `prompt` and `max_age` (OpenID Connect Core §3.1.2.1). */
export interface SignInDemands {
  prompt: Set<string>;
  /** Seconds; undefined without `max_age`. */
  maxAge: number | undefined;
  /** Set by the provider itself on the way back from a forced sign-in: the sign-in must be no older (ms). */
  signedInAfter: number | undefined;
}

/**
 * The client and redirect URI of an authorization request: errors here are shown, never
 * redirected (a foreign `redirect_uri` gets a 400, RFC 6749 §4.1.2.1).
 */
export async function clientAndRedirect(
  ctx: ProviderContext,
  query: URLSearchParams,
): Promise<{ client: OAuthClientRecord; redirectUri: string }> {
  const clientId = query.get("client_id");
  const client = clientId ? await ctx.clients.get(clientId) : null;
  if (!client) throw new OAuthError("invalid_request", "client_id names no client");
  const asked = query.get("redirect_uri");
  const redirectUri = asked ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (
    redirectUri === undefined ||
    !client.redirectUris.some((registered) => redirectMatches(registered, redirectUri))
  )
    throw new OAuthError("invalid_request", "redirect_uri is not one of the client's");
  return { client, redirectUri };
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]"]);

/**
 * Whether `asked` is the registered redirect URI: the same string, except that a loopback IP
 * address's port may differ (RFC 8252 §7.3: a native app listens on whatever port is free).
 */
function redirectMatches(registered: string, asked: string): boolean {
  if (registered === asked) return true;
  if (!registered.startsWith("http://127.0.0.1") && !registered.startsWith("http://[::1]")) return false;
  try {
    const a = new URL(registered);
    const b = new URL(asked);
    return (
      LOOPBACK_HOSTS.has(a.hostname) &&
      b.protocol === "http:" &&
      a.hostname === b.hostname &&
      a.pathname === b.pathname &&
      a.search === b.search &&
      b.hash === "" &&
      b.username === "" &&
      b.password === ""
    );
  } catch {
    return false;
  }
}

/** A resource indicator (RFC 8707) the provider issues tokens for: on `appOrigin`, or listed in `resources`. */
function allowedResource(ctx: ProviderContext, resource: string): boolean {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return false;
  }
  if (url.hash !== "") return false;
  return url.origin === ctx.appOrigin || ctx.resources.includes(resource);
}

/** The requested resources (RFC 8707), each allowed (`invalid_target` otherwise). */
export function resourcesOf(ctx: ProviderContext, values: readonly string[]): string[] {
  for (const resource of values)
    if (!allowedResource(ctx, resource))
      throw new OAuthError("invalid_target", `resource ${resource} is not served`);
  return [...new Set(values)];
}

/** The requested scopes, each one the client may ask for (`invalid_scope` otherwise). */
export function scopesFor(client: OAuthClientRecord, scope: string | null): string[] {
  const scopes = scopeList(scope);
  if (scopes.length === 0) throw new OAuthError("invalid_scope", "scope is required");
  const refused = scopes.filter((name) => !client.scopes.includes(name));
  if (refused.length > 0)
    throw new OAuthError("invalid_scope", `the client may not ask for: ${refused.join(" ")}`);
  return scopes;
}

/** Checks the rest of an authorization request, once its redirect URI is known to be the client's. */
export function checkAuthorizationRequest(
  ctx: ProviderContext,
  client: OAuthClientRecord,
  redirectUri: string,
  query: URLSearchParams,
): { request: AuthorizationRequest; demands: SignInDemands } {
  if (query.get("response_type") !== "code")
    throw new OAuthError("unsupported_response_type", "only response_type=code is supported");
  if (!client.grantTypes.includes("authorization_code"))
    throw new OAuthError("unauthorized_client", "the client may not use the authorization code grant");
  const codeChallenge = query.get("code_challenge") ?? "";
  if (query.get("code_challenge_method") !== "S256" || !isCodeChallenge(codeChallenge))
    throw new OAuthError(
      "invalid_request",
      "PKCE is required: code_challenge with code_challenge_method=S256",
    );
  const prompt = new Set(scopeList(query.get("prompt")));
  if (prompt.has("none") && prompt.size > 1)
    throw new OAuthError("invalid_request", "prompt=none stands alone");
  for (const value of prompt)
    if (!["none", "login", "consent"].includes(value))
      throw new OAuthError("invalid_request", `prompt=${value} is not supported`);
  const maxAgeText = query.get("max_age");
  const maxAge = maxAgeText === null ? undefined : Number(maxAgeText);
  if (maxAge !== undefined && !(Number.isInteger(maxAge) && maxAge >= 0))
    throw new OAuthError("invalid_request", "max_age must be a whole number of seconds");
  const after = Number(query.get("signed_in_after") ?? Number.NaN);
  const request: AuthorizationRequest = {
    clientId: client.clientId,
    redirectUri,
    scopes: scopesFor(client, query.get("scope")),
    resources: resourcesOf(ctx, query.getAll("resource")),
    codeChallenge,
    state: query.get("state") ?? undefined,
    nonce: query.get("nonce") ?? undefined,
  };
  return { request, demands: { prompt, maxAge, signedInAfter: Number.isFinite(after) ? after : undefined } };
}
