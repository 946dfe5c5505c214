import { authenticateRequest, requirePermission } from "@portcullis/adapter-fetch";
import type { Auth } from "@portcullis/core";
import type { ExampleAuth } from "example-shared";
import { listenForTests } from "../../../packages/adapter-fetch/src/test-server.js";
import { clientOf, createApp } from "./app.js";

/** Test support: the example app listening on a free port of 127.0.0.1. */
export const startExample = ({ auth, outbox }: ExampleAuth) => listenForTests(createApp(auth, outbox));

/** The example app plus the host routes the adapter suite calls (`/host/projects` behind `requirePermission`). */
export function startWithHostRoutes(auth: Auth) {
  const app = createApp(auth, undefined);
  app.get("/host/protected", async (c) => {
    const result = await authenticateRequest(auth, c.req.raw, clientOf(c));
    if (result.response) return result.response;
    return c.json({ userId: result.principal.userId, sessionId: result.principal.sessionId });
  });
  app.post("/host/echo", async (c) => c.json(await c.req.json()));
  for (const [method, permission] of [
    ["GET", "project:read"],
    ["POST", "project:write"],
  ] as const)
    app.on(method, "/host/projects", async (c) => {
      const result = await requirePermission(auth, permission, c.req.raw, clientOf(c));
      return result.response ?? c.json({ organizationId: result.organization.organizationId });
    });
  return listenForTests(app);
}
