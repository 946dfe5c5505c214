import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

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
