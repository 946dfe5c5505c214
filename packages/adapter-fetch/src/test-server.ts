import { once } from "node:events";
import type { Server } from "node:http";
import { type HttpBindings, serve } from "@hono/node-server";
import type { Auth } from "@portcullis/core";
import { REPORTS_CHECK, serverForTests } from "@portcullis/testing";
import { Hono } from "hono";
import { authenticateRequest, createFetchHandler, requireOAuth, requirePermission } from "./index.js";

/** The client of a request on `@hono/node-server`: its socket's address. */
export const clientOf = (bindings: HttpBindings) => ({
  remoteAddress: bindings.incoming.socket.remoteAddress,
});

/**
 * Test support (not built into the package): a Hono app with the auth routes under `basePath` and
 * the adapter suite's host routes: `GET /host/protected` (behind `authenticateRequest`),
 * `POST /host/echo` (Hono's own JSON parsing), `GET`/`POST /host/projects` (behind
 * `requirePermission`) and `GET /host/reports` (behind `requireOAuth`).
 */
export function createTestApp(auth: Auth): Hono<{ Bindings: HttpBindings }> {
  const app = new Hono<{ Bindings: HttpBindings }>();
  const handler = createFetchHandler(auth);
  const { basePath } = auth.options;
  app.all(basePath, (c) => handler(c.req.raw, clientOf(c.env)));
  app.all(`${basePath}/*`, (c) => handler(c.req.raw, clientOf(c.env)));
  app.get("/host/protected", async (c) => {
    const result = await authenticateRequest(auth, c.req.raw, clientOf(c.env));
    if (result.response) return result.response;
    return c.json({ userId: result.principal.userId, sessionId: result.principal.sessionId });
  });
  app.post("/host/echo", async (c) => c.json(await c.req.json()));
  for (const [method, permission] of [
    ["GET", "project:read"],
    ["POST", "project:write"],
  ] as const)
    app.on(method, "/host/projects", async (c) => {
      const result = await requirePermission(auth, permission, c.req.raw, clientOf(c.env));
      return result.response ?? c.json({ organizationId: result.organization.organizationId });
    });
  app.get("/host/reports", async (c) => {
    const result = await requireOAuth(auth, REPORTS_CHECK, c.req.raw);
    return result.response ?? c.json({ subject: result.token.subject, scopes: result.token.scopes });
  });
  return app;
}

/**
 * `app` on `@hono/node-server`, listening on 127.0.0.1 (on `port` or a free one); `close` also
 * ends kept-alive connections, so a test never waits for them.
 */
export async function listenForTests(
  app: Hono<{ Bindings: HttpBindings }>,
  port = 0,
): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server = serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }) as Server;
  if (!server.listening) await once(server, "listening");
  return serverForTests(server);
}
