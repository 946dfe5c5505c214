import * as core from "@portcullis/core";

/**
 * Where a request came from, which a Fetch `Request` does not say: the host passes it in. Any of
 * the three shapes is read, so a runtime's own second argument can be handed over as it is.
 */
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

/** The whole body in one chunk, read when the core first asks for it. */
async function* wholeBody(request: Request): AsyncIterable<Uint8Array> {
  yield new Uint8Array(await request.arrayBuffer());
}

/**
 * The core's request. Its body, when a route reads it: whole with a Content-Length (held to the
 * limit first; a fast path on `@hono/node-server`), else the stream, which the core cuts at it.
 */
function toHttpRequest(request: Request, client: ClientInfo = {}): core.HttpRequest {
  const url = new URL(request.url);
  const headers: Record<string, string> = Object.fromEntries(request.headers);
  headers.host ??= url.host; // a Request made in code may have none
  return {
    method: request.method,
    url: url.pathname + url.search,
    headers,
    get body() {
      return request.headers.has("content-length") ? wholeBody(request) : (request.body ?? undefined);
    },
    remoteAddress:
      client.remoteAddress ?? client.remoteAddr?.hostname ?? client.requestIP?.(request)?.address,
    encrypted: url.protocol === "https:", // the runtime builds the URL from its own connection
  };
}

/** The core's response as a `Response`. */
function toResponse({ status, headers, cookies, body }: core.HttpResponse): Response {
  const response = new Response(body, { status, headers });
  for (const cookie of cookies) response.headers.append("set-cookie", cookie);
  return response;
}

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
    return response ? toResponse(response) : new Response("Not Found", { status: 404 });
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

/**
 * For the host's own routes: the principal of the request's access token (bearer header or
 * cookie, by the rules of the auth routes), or the response with the same 401 codes.
 * @example
 * ```ts
 * app.get("/orders", async (c) => {
 *   const result = await authenticateRequest(auth, c.req.raw);
 *   if (result.response) return result.response; // 401, with the codes of the auth routes
 *   return c.json({ userId: result.principal.userId });
 * });
 * ```
 */
export async function authenticateRequest(
  auth: core.Auth,
  request: Request,
  client?: ClientInfo,
): Promise<AuthenticateResult> {
  const result = await core.httpHandlerFor(auth).authenticate(toHttpRequest(request, client));
  return result.response ? { response: toResponse(result.response) } : { principal: result.principal };
}

/**
 * For the host's routes that need a permission in the active organization: as
 * `authenticateRequest`, then a 403 (`NO_ACTIVE_ORGANIZATION`, `PERMISSION_DENIED`) response unless
 * the member's role (read now) grants it.
 * @example
 * ```ts
 * app.get("/projects", async (c) => {
 *   const result = await requirePermission(auth, "project:read", c.req.raw);
 *   return result.response ?? c.json({ organizationId: result.organization.organizationId });
 * });
 * ```
 */
export async function requirePermission(
  auth: core.Auth,
  permission: string,
  request: Request,
  client?: ClientInfo,
): Promise<AuthorizeResult> {
  const result = await core.httpHandlerFor(auth).authenticate(toHttpRequest(request, client), permission);
  if (result.response) return { response: toResponse(result.response) };
  return { principal: result.principal, organization: result.organization as core.OrganizationAccess };
}

/** Appends a login's cookies to `headers`, for a session the host started with `auth.sessions.create`. */
export function setSessionCookies(auth: core.Auth, headers: Headers, tokens: core.SessionCookieTokens): void {
  for (const cookie of core.httpHandlerFor(auth).sessionCookies(tokens)) headers.append("set-cookie", cookie);
}
