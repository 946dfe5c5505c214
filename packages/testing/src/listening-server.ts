import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fromNodeRequest, type HttpHandler, writeNodeResponse } from "@portcullis/core";

/** Closes `server`, ending its kept-alive connections at once, so a test never waits for them. */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * A server a test started listening on 127.0.0.1: its base URL, and `close` (`closeServer`). For
 * an adapter's `listenForTests`. Idle connections stay open 72 s (Fastify's default), not Node's
 * 5 s: a client reusing one at the moment the server drops it would meet ECONNRESET.
 */
export function serverForTests(server: Server): { baseUrl: string; close(): Promise<void> } {
  server.keepAliveTimeout = 72_000;
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => closeServer(server),
  };
}

/**
 * A node:http server on 127.0.0.1 (a free port) that answers each request with the core's
 * handler `handler()` gives at that moment (a test makes it once it knows the server's origin,
 * its `appOrigin`); 404 when it answers nothing. Its base URL and `close`, as `serverForTests`.
 */
export async function serveHandlerForTests(
  handler: () => HttpHandler | undefined,
): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const current = handler();
    if (current === undefined) return void res.writeHead(503).end();
    current.handle(fromNodeRequest(req, { body: req })).then(
      (response) => (response ? writeNodeResponse(res, response) : res.writeHead(404).end()),
      (error: Error) => res.destroy(error),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return serverForTests(server);
}
