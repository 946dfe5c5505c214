import type { Readable } from "node:stream";

/** The body of a request as an adapter hands it over. */
export type RequestBody = AsyncIterable<Uint8Array | string> | Uint8Array | string | undefined;

/** A framework-neutral request: what an adapter converts its framework's request into. */
export interface HttpRequest {
  /** Upper-case method, e.g. `POST`. */
  method: string;
  /** Path and query as the client sent them, including the mount prefix: `/api/auth/login?locale=de`. */
  url: string;
  /** Header names in lower case (Node's `IncomingHttpHeaders`). */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The raw body (a Node request stream works as is); read only by routes that take one. */
  body?: RequestBody;
  /**
   * A body a framework middleware already parsed (e.g. `express.json()` ran first); used when
   * the raw stream was consumed. Its content type is still checked.
   */
  parsedBody?: unknown;
  /**
   * The socket's remote address (`req.socket.remoteAddress`), not a framework's proxy-aware IP:
   * the core resolves the client IP from it and `X-Forwarded-For` under its `trustProxy` option.
   */
  remoteAddress?: string | undefined;
  /** True when the connection itself is TLS (`req.socket.encrypted`): the request's own scheme is https. */
  encrypted?: boolean | undefined;
}

/** A framework-neutral response: what an adapter writes back. */
export interface HttpResponse {
  status: number;
  /** Header names in lower case; never `set-cookie` (see `cookies`). */
  headers: Record<string, string>;
  /** Serialized `Set-Cookie` values, in order. */
  cookies: string[];
  /** The serialized body, or null for none (a 304, a 302 redirect whose `location` header says where). */
  body: string | null;
  /**
   * Instead of `body` (then null): text streamed as it is made, an export reading the store page
   * by page. A Node `Readable`: `writeNodeResponse` pipes it, `toFetchResponse` makes it a
   * `ReadableStream`, Fastify's `reply.send` takes it as is.
   */
  stream?: Readable | undefined;
}

/**
 * A session's tokens, for the cookies a login sets (`setSessionCookies` of each adapter). With
 * `rememberMe: false`, as `auth.sessions.create` returns it, browser-session cookies (no Max-Age).
 */
export interface SessionCookieTokens {
  accessToken: string;
  refreshToken: string;
  rememberMe?: boolean | undefined;
}
