import { CLIENT_GRANT_TYPES } from "./clients.js";

/** The scopes the provider itself understands: OpenID Connect's and `offline_access` (a refresh token). */
export const STANDARD_SCOPES = ["openid", "profile", "email", "offline_access"] as const;

/** The ways a client authenticates at the token and revocation endpoints. */
const CLIENT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"];

/** The claims an ID token or a userinfo response may carry (`userClaims`, `issueIdToken`). */
const CLAIMS = [
  "sub",
  "iss",
  "aud",
  "exp",
  "iat",
  "auth_time",
  "nonce",
  "at_hash",
  "email",
  "email_verified",
  "name",
];

/** What the provider's metadata depends on. */
export interface ProviderMetadataOptions {
  /** The issuer identifier, `<appOrigin><prefix>`: every endpoint is under `<issuer>/oauth2/`. */
  issuer: string;
  /** Whether `<issuer>/oauth2/register` (RFC 7591) is served. */
  dynamicRegistration: boolean;
  /** The host's own scopes, listed after the standard ones. */
  scopes: readonly string[];
  /** The JWS algorithms of the ID tokens: the signing key ring's (`ES256` or `EdDSA`). */
  algorithms: readonly string[];
}

/** Unique values, first occurrence first. */
const unique = (values: Iterable<string>) => [...new Set(values)];

/**
 * The provider's metadata: the OpenID Connect Discovery 1.0 document served at
 * `<issuer>/.well-known/openid-configuration`, which is also the RFC 8414 authorization server
 * metadata (`/.well-known/oauth-authorization-server`). It states the profile the provider
 * serves and nothing more: the code flow with PKCE S256 only, answers in the query with `iss`
 * (RFC 9207), no request objects, public subjects, the four grants, and client authentication by
 * secret (Basic or in the form) or none; introspection (RFC 7662) takes a confidential client
 * only.
 */
export function providerMetadata(options: ProviderMetadataOptions): Record<string, unknown> {
  const base = `${options.issuer.replace(/\/+$/, "")}/oauth2`;
  return {
    issuer: options.issuer,
    authorization_endpoint: `${base}/authorize`,
    token_endpoint: `${base}/token`,
    userinfo_endpoint: `${base}/userinfo`,
    jwks_uri: `${base}/jwks`,
    ...(options.dynamicRegistration ? { registration_endpoint: `${base}/register` } : {}),
    revocation_endpoint: `${base}/revoke`,
    introspection_endpoint: `${base}/introspect`,
    device_authorization_endpoint: `${base}/device_authorization`,
    scopes_supported: unique([...STANDARD_SCOPES, ...options.scopes]),
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: [...CLIENT_GRANT_TYPES],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
    revocation_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
    introspection_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: unique(options.algorithms),
    claims_supported: [...CLAIMS],
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    authorization_response_iss_parameter_supported: true,
    prompt_values_supported: ["none", "login", "consent"],
  };
}

/** What a protected resource's metadata says. */
export interface ProtectedResourceMetadataOptions {
  /** The resource server's identifier: the `resource` (RFC 8707) a client asks tokens for. */
  resource: string;
  /** The issuer identifiers of the authorization servers whose tokens it takes. */
  authorizationServers: readonly string[];
  /** The scopes it understands, when it wants to tell clients. */
  scopes?: readonly string[];
}

/**
 * RFC 9728 protected resource metadata, what a resource server (an MCP server, an API) serves at
 * `/.well-known/oauth-protected-resource` so a client finds the provider that issues its tokens:
 * the resource, its authorization servers, bearer tokens in the `Authorization` header only, and
 * its scopes when given.
 */
export function protectedResourceMetadata(
  options: ProtectedResourceMetadataOptions,
): Record<string, unknown> {
  return {
    resource: options.resource,
    authorization_servers: [...options.authorizationServers],
    bearer_methods_supported: ["header"],
    ...(options.scopes === undefined ? {} : { scopes_supported: unique(options.scopes) }),
  };
}
