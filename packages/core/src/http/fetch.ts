import { Readable } from "node:stream";
import type { HttpRequest, HttpResponse } from "./types.js";

/** Why a body cannot be read: a middleware of the host's (Hono's `c.req.parseBody()`, …) read it first. */
const BODY_USED =
  "the request's body was read before the auth routes (a body-parsing middleware ran first): mount the Fetch handler before it";

/** The whole body in one chunk, read when the core first asks for it. */
async function* wholeBody(request: Request): AsyncIterable<Uint8Array> {
  if (request.bodyUsed) throw new Error(BODY_USED);
  yield new Uint8Array(await request.arrayBuffer());
}

/**
 * The core's request for a Fetch `Request` (Hono, Next.js, Bun, Deno), given the connection's peer
 * address, which a `Request` does not carry. Its body, when a route reads it: whole with a
 * Content-Length (held to the limit first; a fast path on `@hono/node-server`), else the stream,
 * which the core cuts at the limit. TLS is read from the URL, which the runtime builds from its own
 * connection. The Fetch adapter's handler and guards map with it.
 */
export function fromFetchRequest(request: Request, remoteAddress?: string): HttpRequest {
  const url = new URL(request.url);
  const headers: Record<string, string> = Object.fromEntries(request.headers);
  headers.host ??= url.host; // a Request made in code may have none
  return {
    method: request.method,
    url: url.pathname + url.search,
    headers,
    get body() {
      if (request.bodyUsed) throw new Error(BODY_USED);
      return request.headers.has("content-length") ? wholeBody(request) : (request.body ?? undefined);
    },
    remoteAddress,
    encrypted: url.protocol === "https:",
  };
}

/** The core's response as a Fetch `Response`: one `Set-Cookie` header per cookie; a stream as a `ReadableStream`. */
export function toFetchResponse({ status, headers, cookies, body, stream }: HttpResponse): Response {
  const content = stream ? (Readable.toWeb(stream) as ReadableStream<Uint8Array>) : body;
  const response = new Response(content, { status, headers });
  for (const cookie of cookies) response.headers.append("set-cookie", cookie);
  return response;
}
