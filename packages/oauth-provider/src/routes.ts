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

/** The JSON body of a signed-in user's answer to a request named by `field`: `{ <field>, approve }`. */
const decisionBody = (field: string) => ({
  required: true,
  content: {
    "application/json": {
      schema: {
        type: "object",
        required: [field, "approve"],
        properties: { [field]: { type: "string" }, approve: { type: "boolean" } },
      },
    },
  },
});

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

/** A route any origin calls, with no cookie of ours (`crossOrigin`, `auth: "none"`). */
const open = (
  method: "GET" | "POST",
  path: string,
  summary: string,
  operation: Record<string, unknown>,
  handle: Entry[1],
): Entry => [{ method, path, summary, auth: "none", crossOrigin: true, operation }, handle];

/** The answers of the routes a client authenticates at: the result, or RFC 6749's error. */
const clientAnswers = (success: string) => ({ 200: JSON_OK(success), 400: OAUTH_ERROR, 401: OAUTH_ERROR });
const CLIENT_FIELDS = ["client_id", "client_secret"];
const METADATA = { responses: { 200: JSON_OK("The provider's metadata.") } };
const USERINFO = { responses: { 200: JSON_OK("The claims."), 401: OAUTH_ERROR, 403: OAUTH_ERROR } };
const TOKEN_FIELDS = ["grant_type", "code", "redirect_uri", "code_verifier", "refresh_token", "device_code"];

/** The discovery, key and token routes: called from anywhere, no cookie. */
const PUBLIC_ROUTES: Entry[] = [
  open("GET", "/.well-known/openid-configuration", "OpenID Connect discovery", METADATA, metadata),
  open(
    "GET",
    "/.well-known/oauth-authorization-server",
    "OAuth 2.0 authorization server metadata (RFC 8414)",
    METADATA,
    metadata,
  ),
  open(
    "GET",
    "/oauth2/jwks",
    "The provider's public signing keys (JWKS)",
    { responses: { 200: JSON_OK("`{ keys }`.") } },
    jwks,
  ),
  open(
    "POST",
    "/oauth2/token",
    "Token endpoint: authorization code, refresh token, client credentials, device code",
    {
      requestBody: FORM([...TOKEN_FIELDS, "scope", "resource", ...CLIENT_FIELDS]),
      responses: clientAnswers("The tokens."),
    },
    tokenEndpoint({ [DEVICE_CODE_GRANT]: deviceCodeGrant }),
  ),
  open(
    "GET",
    "/oauth2/userinfo",
    "The user's claims for a bearer access token (OpenID Connect)",
    USERINFO,
    userinfo,
  ),
  open(
    "POST",
    "/oauth2/userinfo",
    "The user's claims for a bearer access token (OpenID Connect)",
    USERINFO,
    userinfo,
  ),
  open(
    "POST",
    "/oauth2/revoke",
    "Token revocation (RFC 7009)",
    {
      requestBody: FORM(["token", "token_type_hint", ...CLIENT_FIELDS]),
      responses: clientAnswers("Revoked, or nothing to revoke."),
    },
    revoke,
  ),
  open(
    "POST",
    "/oauth2/introspect",
    "Token introspection (RFC 7662), for confidential clients",
    {
      requestBody: FORM(["token", "token_type_hint", ...CLIENT_FIELDS]),
      responses: clientAnswers("`{ active, … }`."),
    },
    introspect,
  ),
  open(
    "POST",
    "/oauth2/device_authorization",
    "Device authorization (RFC 8628): a device code to poll with, a user code to enter",
    {
      requestBody: FORM(["scope", "resource", ...CLIENT_FIELDS]),
      responses: clientAnswers(
        "`{ device_code, user_code, verification_uri, verification_uri_complete, expires_in, interval }`.",
      ),
    },
    deviceAuthorization,
  ),
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
        requestBody: decisionBody("consentId"),
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
        requestBody: decisionBody("userCode"),
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
