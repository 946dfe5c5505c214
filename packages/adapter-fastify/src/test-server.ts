import type { AddressInfo } from "node:net";
import type { Auth } from "@portcullis/core";
import { REPORTS_CHECK } from "@portcullis/testing";
import Fastify, { type FastifyInstance } from "fastify";
import { portcullis, requireOAuth, requirePermission } from "./index.js";

/** Test support (not built into the package): `app` listening on 127.0.0.1, on `port` or a free one. */
export async function listenForTests(
  app: FastifyInstance,
  port = 0,
): Promise<{ baseUrl: string; close(): Promise<void> }> {
  await app.listen({ port, host: "127.0.0.1" });
  return {
    baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    close: () => app.close(),
  };
}

/**
 * The host routes the adapter suite calls: one behind `portcullisAuthenticate`, one echoing its
 * body, `GET`/`POST /host/projects` behind `requirePermission`, and `GET /host/reports` behind `requireOAuth`.
 */
export function addHostRoutes(app: FastifyInstance, auth: Auth): FastifyInstance {
  app.get("/host/protected", { preHandler: app.portcullisAuthenticate }, async (request) => ({
    userId: request.auth?.userId,
    sessionId: request.auth?.sessionId,
  }));
  app.post("/host/echo", async (request) => request.body);
  const organizationId = async (request: { organization: { organizationId: string } | null }) => ({
    organizationId: request.organization?.organizationId,
  });
  app.get("/host/projects", { preHandler: requirePermission(auth, "project:read") }, organizationId);
  app.post("/host/projects", { preHandler: requirePermission(auth, "project:write") }, organizationId);
  app.get("/host/reports", { preHandler: requireOAuth(auth, REPORTS_CHECK) }, async (request) => ({
    subject: request.oauth?.subject,
    scopes: request.oauth?.scopes,
  }));
  return app;
}

/** The adapter suites' `start`: `auth`'s plugin on a new Fastify app with the host routes, listening. */
export async function startForTests(auth: Auth): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const app = Fastify({ forceCloseConnections: true });
  await app.register(portcullis, { auth });
  return listenForTests(addHostRoutes(app, auth));
}
