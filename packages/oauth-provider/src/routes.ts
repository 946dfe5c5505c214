import type { HttpResponse, Route, RouteAuth, RouteInput } from "@portcullis/core";
import { ADMIN_CLIENT_ROUTES } from "./admin-clients.js";
import { authorize } from "./authorize.js";
import { DEVICE_CODE_GRANT } from "./clients.js";
import { decideConsent, listGrants, revokeGrants, showConsent } from "./consent.js";
import { deviceAuthorization, deviceCodeGrant, showDevice, verifyDevice } from "./device.js";
import { providerMetadata } from "./discovery.js";
import { oauthJson, type ProviderContext } from "./provider-context.js";
import { REGISTRATION_OPERATION, register } from "./register.js";
import { tokenEndpoint } from "./token-endpoint.js";
import { introspect, revoke, userinfo } from "./token-endpoints.js";

/** What a provider route declares besides its handler. */
interface ProviderRouteSpec<A extends RouteAuth> {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  summary: string;
  auth: A;
  crossOrigin?: boolean;
  /** The OpenAPI operation's own parts (its answers follow RFC 6749, not docs/errors.md). */
  operation: Record<string, unknown>;
}

/**
 * A route of the core's HTTP layer running `handle` with the provider's context. The table pairs
 * each handler with the `auth` whose input it takes (`RouteInput<"access">` for `auth: "access"`).
 */
function route(
  ctx: ProviderContext,
  spec: ProviderRouteSpec<RouteAuth>,
  handle: (ctx: ProviderContext, input: never) => Promise<HttpResponse>,
): Route {
  return { ...spec, errors: [], handle: (input: RouteInput) => handle(ctx, input as never) } as Route;
}

const JSON_OK = (description: string) => ({
  description,
  content: { "application/json": { schema: { type: "object" } } },
});
const OAUTH_ERROR = {
  description: "An RFC 6749 error: `{ error, error_description }`.",
  content: {
    "application/json": {
      schema: {
        type: "object",
        required: ["error"],
        properties: { error: { type: "string" }, error_description: { type: "string" } },
      },
    },
  },
};
const FORM = (fields: string[]) => ({
  required: true,
  content: {
    "application/x-www-form-urlencoded": {
      schema: {
        type: "object",
        properties: Object.fromEntries(fields.map((field) => [field, { type: "string" }])),
      },
    },
  },
});
const REDIRECT = {
  description: "To the client's redirect URI, the sign-in page or the consent page.",
  headers: { Location: { $ref: "#/components/headers/Location" } },
};

/** The metadata document, for discovery and RFC 8414 alike. */
export async function metadataOf(ctx: ProviderContext): Promise<Record<string, unknown>> {
  const { keys } = await ctx.ring.jwks();
  const algorithms = [...new Set(keys.map((key) => String(key.alg)))];
  return providerMetadata({
    issuer: ctx.issuer,
    dynamicRegistration: ctx.allowDynamicRegistration,
    scopes: ctx.scopes,
    algorithms: algorithms.length > 0 ? algorithms : ["ES256"],
  });
}

const metadata = async (ctx: ProviderContext) =>
  oauthJson(200, await metadataOf(ctx), { "cache-control": "public, max-age=300" });

/** A route's data and what it runs. */
type Entry = [ProviderRouteSpec<RouteAuth>, (ctx: ProviderContext, input: never) => Promise<HttpResponse>];

const jwks = async (ctx: ProviderContext) =>
  oauthJson(200, await ctx.ring.jwks(), { "cache-control": "public, max-age=300" });

/** The discovery, key and token routes: called from anywhere, no cookie. */
const PUBLIC_ROUTES: Entry[] = [
  [
    {
      method: "GET",
      path: "/.well-known/openid-configuration",
      summary: "OpenID Connect discovery",
      auth: "none",
      crossOrigin: true,
      operation: { responses: { 200: JSON_OK("The provider's metadata.") } },
    },
    metadata,
  ],
  [
    {
      method: "GET",
      path: "/.well-known/oauth-authorization-server",
      summary: "OAuth 2.0 authorization server metadata (RFC 8414)",
      auth: "none",
      crossOrigin: true,
      operation: { responses: { 200: JSON_OK("The provider's metadata.") } },
    },
    metadata,
  ],
  [
    {
      method: "GET",
      path: "/oauth2/jwks",
      summary: "The provider's public signing keys (JWKS)",
      auth: "none",
      crossOrigin: true,
      operation: { responses: { 200: JSON_OK("`{ keys }`.") } },
    },
    jwks,
  ],
  [
    {
      method: "POST",
      path: "/oauth2/token",
      summary: "Token endpoint: authorization code, refresh token, client credentials, device code",
      auth: "none",
      crossOrigin: true,
      operation: {
        requestBody: FORM([
          "grant_type",
          "code",
          "redirect_uri",
          "code_verifier",
          "refresh_token",
          "device_code",
          "scope",
          "resource",
          "client_id",
          "client_secret",
        ]),
        responses: { 200: JSON_OK("The tokens."), 400: OAUTH_ERROR, 401: OAUTH_ERROR },
      },
    },
    tokenEndpoint({ [DEVICE_CODE_GRANT]: deviceCodeGrant }),
  ],
  [
    {
      method: "GET",
      path: "/oauth2/userinfo",
      summary: "The user's claims for a bearer access token (OpenID Connect)",
      auth: "none",
      crossOrigin: true,
      operation: { responses: { 200: JSON_OK("The claims."), 401: OAUTH_ERROR, 403: OAUTH_ERROR } },
    },
    userinfo,
  ],
  [
    {
      method: "POST",
      path: "/oauth2/userinfo",
      summary: "The user's claims for a bearer access token (OpenID Connect)",
      auth: "none",
      crossOrigin: true,
      operation: { responses: { 200: JSON_OK("The claims."), 401: OAUTH_ERROR, 403: OAUTH_ERROR } },
    },
    userinfo,
  ],
  [
    {
      method: "POST",
      path: "/oauth2/revoke",
      summary: "Token revocation (RFC 7009)",
      auth: "none",
      crossOrigin: true,
      operation: {
        requestBody: FORM(["token", "token_type_hint", "client_id", "client_secret"]),
        responses: { 200: JSON_OK("Revoked, or nothing to revoke."), 400: OAUTH_ERROR, 401: OAUTH_ERROR },
      },
    },
    revoke,
  ],
  [
    {
      method: "POST",
      path: "/oauth2/introspect",
      summary: "Token introspection (RFC 7662), for confidential clients",
      auth: "none",
      crossOrigin: true,
      operation: {
        requestBody: FORM(["token", "token_type_hint", "client_id", "client_secret"]),
        responses: { 200: JSON_OK("`{ active, … }`."), 400: OAUTH_ERROR, 401: OAUTH_ERROR },
      },
    },
    introspect,
  ],
  [
    {
      method: "POST",
      path: "/oauth2/device_authorization",
      summary: "Device authorization (RFC 8628): a device code to poll with, a user code to enter",
      auth: "none",
      crossOrigin: true,
      operation: {
        requestBody: FORM(["scope", "resource", "client_id", "client_secret"]),
        responses: {
          200: JSON_OK(
            "`{ device_code, user_code, verification_uri, verification_uri_complete, expires_in, interval }`.",
          ),
          400: OAUTH_ERROR,
          401: OAUTH_ERROR,
        },
      },
    },
    deviceAuthorization,
  ],
];

/** The browser's routes: authorization, consent and the user's authorized apps, on the session. */
const BROWSER_ROUTES: Entry[] = [
  [
    {
      method: "GET",
      path: "/oauth2/authorize",
      summary: "Authorization endpoint: code flow with PKCE S256",
      auth: "optional",
      operation: { responses: { 302: REDIRECT, 400: OAUTH_ERROR } },
    },
    authorize,
  ],
  [
    {
      method: "GET",
      path: "/oauth2/consent",
      summary: "The consent request the consent page shows",
      auth: "access",
      operation: {
        parameters: [{ name: "consentId", in: "query", required: true, schema: { type: "string" } }],
        responses: {
          200: JSON_OK("`{ client: { clientId, name }, scopes, redirectOrigin }`."),
          400: OAUTH_ERROR,
        },
      },
    },
    showConsent,
  ],
  [
    {
      method: "POST",
      path: "/oauth2/consent",
      summary: "The signed-in user's answer to a consent request",
      auth: "access",
      operation: {
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["consentId", "approve"],
                properties: { consentId: { type: "string" }, approve: { type: "boolean" } },
              },
            },
          },
        },
        responses: { 200: JSON_OK("`{ redirectTo }`."), 400: OAUTH_ERROR },
      },
    },
    decideConsent,
  ],
  [
    {
      method: "GET",
      path: "/oauth2/grants",
      summary: "The apps the signed-in user has authorized",
      auth: "access",
      operation: {
        responses: { 200: JSON_OK("`{ grants: [{ clientId, name, scopes, createdAt, updatedAt }] }`.") },
      },
    },
    listGrants,
  ],
  [
    {
      method: "DELETE",
      path: "/oauth2/grants/:clientId",
      summary: "Withdraws consent to an app and revokes its grants",
      auth: "access",
      operation: { responses: { 200: JSON_OK("`{ success, revoked }`."), 404: OAUTH_ERROR } },
    },
    revokeGrants,
  ],
  [
    {
      method: "GET",
      path: "/oauth2/device",
      summary: "The device authorization a user code names, for the device page",
      auth: "access",
      operation: {
        parameters: [{ name: "userCode", in: "query", required: true, schema: { type: "string" } }],
        responses: {
          200: JSON_OK("`{ client: { clientId, name }, scopes }`."),
          400: OAUTH_ERROR,
          429: OAUTH_ERROR,
        },
      },
    },
    showDevice,
  ],
  [
    {
      method: "POST",
      path: "/oauth2/device/verify",
      summary: "The signed-in user approves or denies a device's user code",
      auth: "access",
      operation: {
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["userCode", "approve"],
                properties: { userCode: { type: "string" }, approve: { type: "boolean" } },
              },
            },
          },
        },
        responses: {
          200: JSON_OK("`{ success, approved }`."),
          400: OAUTH_ERROR,
          403: OAUTH_ERROR,
          429: OAUTH_ERROR,
        },
      },
    },
    verifyDevice,
  ],
];

/** Every route of the provider, mounted by the core under the adapter's prefix. */
export function providerRoutes(ctx: ProviderContext): Route[] {
  return [...PUBLIC_ROUTES, ...registrationRoutes(ctx), ...BROWSER_ROUTES, ...adminRoutes(ctx)].map(
    ([spec, handle]) => route(ctx, spec, handle),
  );
}

/** RFC 7591 registration, mounted only while `allowDynamicRegistration` (404 otherwise). */
const registrationRoutes = (ctx: ProviderContext): Entry[] =>
  ctx.allowDynamicRegistration
    ? [
        [
          {
            method: "POST",
            path: "/oauth2/register",
            summary: "Dynamic client registration of public clients (RFC 7591)",
            auth: "none",
            crossOrigin: true,
            operation: REGISTRATION_OPERATION,
          },
          register,
        ],
      ]
    : [];

/** The back office's client management, mounted like the core's admin routes: only with `admin.authorize`. */
const adminRoutes = (ctx: ProviderContext): Entry[] =>
  ctx.auth.options.admin.authorize === undefined
    ? []
    : ADMIN_CLIENT_ROUTES.map(({ handle, ...spec }) => [{ ...spec, auth: "admin" }, handle]);
