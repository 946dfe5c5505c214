import type { EventEmitter } from "node:events";
import { pipeline, type Writable } from "node:stream";
import type { HttpHandler } from "./handler.js";
import { isEncryptedSocket, type ResponseWriter, writeResponse } from "./response-writer.js";
import type { HttpRequest, HttpResponse } from "./types.js";

/**
 * What the core reads of a Node request: an `IncomingMessage`, Express's `req`, Fastify's
 * `request.raw`.
 */
export interface NodeRequestLike {
  method?: string | undefined;
  url?: string | undefined;
  headers: HttpRequest["headers"];
  socket: { remoteAddress?: string | undefined };
}

/** What `writeNodeResponse` calls on a Node `ServerResponse` (Express's `res`). */
export interface NodeResponseLike {
  statusCode: number;
  setHeader(name: string, value: string | string[]): unknown;
  removeHeader(name: string): void;
  end(body?: string): unknown;
}

/**
 * The core's request for a Node request: its method, URL and headers, the socket's address and
 * whether it is TLS (the core applies `trustProxy` to both). `extra` adds fields or replaces them:
 * the body (`nodeRequestBody`), or the full URL where a router strips its mount path from `url`
 * (Express's `req.originalUrl`). The Node adapters' routers and guards map with it.
 */
export function fromNodeRequest(req: NodeRequestLike, extra?: Partial<HttpRequest>): HttpRequest {
  return {
    method: req.method ?? "GET",
    url: req.url ?? "/",
    headers: req.headers,
    remoteAddress: req.socket.remoteAddress,
    encrypted: isEncryptedSocket(req.socket),
    ...extra,
  };
}

/**
 * The body of a Node request for the core: the request stream itself, unless a body parser of the
 * connect kind (`express.json()`, `body-parser`) ran first and consumed it; then the text or bytes
 * it left in `req.body` as the body, or what it parsed as `parsedBody` (whose content type the
 * core still checks).
 */
export function nodeRequestBody(
  req: NodeRequestLike & AsyncIterable<Uint8Array> & { body?: unknown; readableEnded?: boolean },
): Pick<HttpRequest, "body" | "parsedBody"> {
  const parsed = req.body;
  if (typeof parsed === "string" || parsed instanceof Uint8Array) return { body: parsed };
  if (parsed !== undefined || req.readableEnded) return { parsedBody: parsed };
  return { body: req };
}

const nodeWriter: ResponseWriter<NodeResponseLike, void> = {
  status(res, status) {
    // Express sets it on every response before any route runs; no auth answer carries it.
    res.removeHeader("x-powered-by");
    res.statusCode = status;
  },
  header: (res, name, value) => void res.setHeader(name, value),
  end: (res, body) => {
    if (typeof body !== "object") return void res.end(body);
    // A stream (an export): piped with back-pressure; a failure midway ends the response early.
    pipeline(body, res as unknown as Writable, () => {});
  },
};

/** Writes the core's response to a Node `ServerResponse` (as `writeResponse` does with any writer). */
export const writeNodeResponse = (res: NodeResponseLike, response: HttpResponse): void =>
  writeResponse(res, response, nodeWriter);

/** A Node server's `request` listener. */
type NodeListener = (
  req: NodeRequestLike & AsyncIterable<Uint8Array>,
  res: NodeResponseLike & { destroy(error?: Error): unknown },
) => void;

/**
 * For a framework whose router answers a path that does not percent-decode itself, before any
 * plugin runs (Fastify: 400 `FST_ERR_BAD_URL`): each `request` listener of `server` then hands such
 * a request to the core first, which answers it under the prefix as any unknown path (404
 * `NOT_FOUND`, as on every adapter). Every other request goes to the listener as before.
 */
export function answerMalformedPaths(
  server: Pick<EventEmitter, "listeners" | "on" | "off">,
  handler: HttpHandler,
): void {
  for (const listener of server.listeners("request") as NodeListener[]) {
    server.off("request", listener).on("request", ((req, res) => {
      if (!hasMalformedPath(req.url ?? "")) return listener(req, res);
      handler.handle(fromNodeRequest(req, { body: req })).then(
        (response) => (response ? writeNodeResponse(res, response) : listener(req, res)),
        (error: Error) => res.destroy(error),
      );
    }) satisfies NodeListener);
  }
}

/** Whether the path of `url` has percent-encoding that does not decode (`/api/auth/%E0%A4%A`). */
export function hasMalformedPath(url: string): boolean {
  if (!url.includes("%")) return false;
  const end = url.search(/[?#]/);
  const path = end === -1 ? url : url.slice(0, end);
  try {
    decodeURI(path);
    return false;
  } catch {
    return true;
  }
}
