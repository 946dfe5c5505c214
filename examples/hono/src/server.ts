import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import { KEEP_ALIVE_TIMEOUT_MS, startExample } from "example-shared";
import { createApp } from "./app.js";

// One server for Node, Bun and Deno: @hono/node-server on each runtime's `node:http`.
const { bun, deno, node } = process.versions as Record<string, string | undefined>;
console.log(`Runtime: ${bun ? `Bun ${bun}` : deno ? `Deno ${deno}` : `Node ${node}`}`);
await startExample("Hono", async (auth, outbox, config) => {
  const app = createApp(auth, outbox);
  const server = await new Promise<Server>((resolve) => {
    const started = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () =>
      resolve(started as Server),
    );
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  return {
    address: () => server.address(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
});
