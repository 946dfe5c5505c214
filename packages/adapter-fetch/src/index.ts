import {
  type Auth,
  type HttpRequest,
  type HttpResponse,
  httpHandlerFor,
  type Principal,
  type ResponseWriter,
  writeResponse,
} from "@portcullis/core";

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

function remoteAddressOf(request: Request, client: ClientInfo | undefined): string | undefined {
  if (!client) return undefined;
  if (typeof client.remoteAddress === "string") return client.remoteAddress;
  if (typeof client.remoteAddr?.hostname === "string") return client.remoteAddr.hostname;
  if (typeof client.requestIP === "function") return client.requestIP(request)?.address ?? undefined;
  return undefined;
}

/** The whole body in one chunk, read when the core first asks for it. */
async function* wholeBody(request: Request): AsyncIterable<Uint8Array> {
  yield new Uint8Array(await request.arrayBuffer());
}

/**
 * The body as the core reads it, only when a route does. With a `Content-Length` (which the core
 * holds to `bodyLimitBytes` before reading, and the HTTP parser holds the body to) it is read
 * whole: on `@hono/node-server` that takes a fast path, where `request.body` would build a web
 * stream over the Node request. Without one, the stream, cut by the core at the limit.
 */
function bodyOf(request: Request): HttpRequest["body"] {
  if (request.headers.has("content-length")) return wholeBody(request);
  return request.body ?? undefined;
}

/** The core's request for a `Request`: the URL's path and query, lower-case headers, the body. */
function toHttpRequest(request: Request, client: ClientInfo | undefined): HttpRequest {
  const url = new URL(request.url);
  const headers: Record<string, string> = Object.fromEntries(request.headers);
  // A Request made in code may have no Host header; its URL says the host it was meant for.
  headers.host ??= url.host;
  return {
    method: request.method,
    url: url.pathname + url.search,
    headers,
    get body() {
      return bodyOf(request);
    },
    remoteAddress: remoteAddressOf(request, client),
    // The runtime built the URL from its own connection: https only when that one is TLS.
    encrypted: url.protocol === "https:",
  };
}

interface Draft {
  status: number;
  headers: Headers;
}

const writer: ResponseWriter<Draft, Response> = {
  status(draft, status) {
    draft.status = status;
  },
  header(draft, name, value) {
    if (typeof value === "string") draft.headers.set(name, value);
    else for (const item of value) draft.headers.append(name, item);
  },
  end: (draft, body) => new Response(body ?? null, { status: draft.status, headers: draft.headers }),
};

const toResponse = (response: HttpResponse): Response =>
  writeResponse({ status: 200, headers: new Headers() }, response, writer);

/**
 * A Fetch handler for every Portcullis route under `auth.options.basePath`: mount it where the
 * framework or runtime takes `(request) => Response` (Hono, a Next.js route handler, `Bun.serve`,
 * `Deno.serve`). Pass the connection's client as the second argument, or the client IP is unknown.
 */
export function createFetchHandler(auth: Auth): FetchHandler {
  const handler = httpHandlerFor(auth);
  return async (request, client) => {
    const response = await handler.handle(toHttpRequest(request, client));
    return response ? toResponse(response) : new Response("Not Found", { status: 404 });
  };
}

/** What `authenticateRequest` found: the principal, or the 401 (or 500) response to send instead. */
export type AuthenticateResult =
  | { principal: Principal; response?: undefined }
  | { principal?: undefined; response: Response };

/**
 * For the host's own routes: the principal of the request's access token (bearer header or
 * cookie, by the same rules as the auth routes), or the response with the same 401 codes.
 */
export async function authenticateRequest(
  auth: Auth,
  request: Request,
  client?: ClientInfo,
): Promise<AuthenticateResult> {
  const result = await httpHandlerFor(auth).authenticate(toHttpRequest(request, client));
  return result.response ? { response: toResponse(result.response) } : { principal: result.principal };
}

/**
 * Appends the cookies a login sets to `headers`, for a session the host started with
 * `auth.sessions.create` (after its own proof of who the user is: SSO, a magic link).
 */
export function setSessionCookies(
  auth: Auth,
  headers: Headers,
  tokens: { accessToken: string; refreshToken: string },
): void {
  for (const cookie of httpHandlerFor(auth).sessionCookies(tokens)) headers.append("set-cookie", cookie);
}
