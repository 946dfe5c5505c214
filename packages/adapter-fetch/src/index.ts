import * as core from "@portcullis/core";

/** Where a request came from, which a `Request` does not say: a runtime's own second argument, as it is. */
export interface ClientInfo {
  /** The peer address of the connection (not a proxy-aware IP: `createAuth`'s `trustProxy` applies). */
  remoteAddress?: string | undefined;
  /** Deno's `ServeHandlerInfo`: `Deno.serve((request, info) => handler(request, info))`. */
  remoteAddr?: { hostname?: string } | undefined;
  /** Bun's `Server`: `Bun.serve({ fetch: (request, server) => handler(request, server) })`. */
  requestIP?: ((request: Request) => { address: string } | null) | undefined;
}

/** Answers a `Request` with the auth routes under `basePath`; a plain 404 for any other path. */
export type FetchHandler = (request: Request, client?: ClientInfo) => Promise<Response>;

/** The core's request, with the peer address from whichever shape `client` has. */
const toHttpRequest = (request: Request, client: ClientInfo = {}) => {
  const address = client.remoteAddress ?? client.remoteAddr?.hostname ?? client.requestIP?.(request)?.address;
  return core.fromFetchRequest(request, address);
};

/**
 * A Fetch handler for every route under `auth.options.basePath`, for Hono, Next.js route handlers,
 * `Bun.serve` or `Deno.serve`; pass the connection's client second, or the client IP is unknown.
 * @example
 * ```ts
 * const handler = createFetchHandler(auth);
 * Bun.serve({ fetch: handler }); // or Deno.serve(handler), or Hono's app.all("/api/auth/*", …)
 * ```
 */
export function createFetchHandler(auth: core.Auth): FetchHandler {
  const handler = core.httpHandlerFor(auth);
  return async (request, client) => {
    const response = await handler.handle(toHttpRequest(request, client));
    return response ? core.toFetchResponse(response) : new Response("Not Found", { status: 404 });
  };
}

/** What `authenticateRequest` found: the principal, or the 401 (or 500) response to send instead. */
export type AuthenticateResult =
  | { principal: core.Principal; response?: undefined }
  | { principal?: undefined; response: Response };

/** What `requirePermission` found: the principal and its organization, or the response to send. */
export type AuthorizeResult =
  | { principal: core.Principal; organization: core.OrganizationAccess; response?: undefined }
  | { principal?: undefined; organization?: undefined; response: Response };

/** Both guards: what the core's `authenticate` found, its refusal as a `Response`. */
async function guard(auth: core.Auth, request: Request, client?: ClientInfo, permission?: string) {
  const result = await core.httpHandlerFor(auth).authenticate(toHttpRequest(request, client), permission);
  return result.response ? { response: core.toFetchResponse(result.response) } : result;
}

/**
 * For the host's own routes: the principal of the request's access token (bearer header or
 * cookie, by the rules of the auth routes), or the response with the same 401 codes.
 * @example
 * ```ts
 * app.get("/orders", async (c) => {
 *   const result = await authenticateRequest(auth, c.req.raw);
 *   return result.response ?? c.json({ userId: result.principal.userId }); // or the 401 of the auth routes
 * });
 * ```
 */
export function authenticateRequest(
  auth: core.Auth,
  request: Request,
  client?: ClientInfo,
): Promise<AuthenticateResult> {
  return guard(auth, request, client);
}

/**
 * For the host's routes that need a permission in the active organization: as `authenticateRequest`,
 * then a 403 (`NO_ACTIVE_ORGANIZATION`, `PERMISSION_DENIED`) unless the member's role (read now) grants it.
 * @example
 * ```ts
 * app.get("/projects", async (c) => {
 *   const result = await requirePermission(auth, "project:read", c.req.raw);
 *   return result.response ?? c.json({ organizationId: result.organization.organizationId });
 * });
 * ```
 */
export function requirePermission(
  auth: core.Auth,
  permission: string,
  request: Request,
  client?: ClientInfo,
): Promise<AuthorizeResult> {
  return guard(auth, request, client, permission) as Promise<AuthorizeResult>;
}

/**
 * For resource routes that take the OAuth provider's access tokens (docs/oauth-provider.md): what
 * the bearer token says, or the RFC 6750 401 or 403 response with `WWW-Authenticate`.
 * @example
 * ```ts
 * app.get("/api/reports", async (c) => {
 *   const result = await requireOAuth(auth, { audience: "https://app.example.com/api", scopes: ["projects:read"] }, c.req.raw);
 *   return result.response ?? c.json({ userId: result.token.userId });
 * });
 * ```
 */
export async function requireOAuth(
  auth: core.Auth,
  check: core.OAuthTokenCheck,
  request: Request,
): Promise<
  { token: core.OAuthAccessToken; response?: undefined } | { token?: undefined; response: Response }
> {
  const result = await core.authenticateOAuth(
    auth,
    { headers: { authorization: request.headers.get("authorization") ?? undefined } },
    check,
  );
  return result.response ? { response: core.toFetchResponse(result.response) } : result;
}

/** Appends a login's cookies to `headers`, for a session the host started with `auth.sessions.create`. */
export function setSessionCookies(auth: core.Auth, headers: Headers, tokens: core.SessionCookieTokens): void {
  for (const cookie of core.httpHandlerFor(auth).sessionCookies(tokens)) headers.append("set-cookie", cookie);
}
