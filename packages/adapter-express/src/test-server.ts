import { once } from "node:events";
import type { Auth } from "@portcullis/core";
import { REPORTS_CHECK, serverForTests } from "@portcullis/testing";
import express, { type Express } from "express";
import { requireAuth, requireOAuth, requirePermission } from "./index.js";

/**
 * Test support (not built into the package): `app` listening on 127.0.0.1, on `port` or a free
 * one; `close` also ends kept-alive connections, so a test never waits for them.
 */
export async function listenForTests(
  app: Express,
  port = 0,
): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server = app.listen(port, "127.0.0.1");
  await once(server, "listening");
  return serverForTests(server);
}

/**
 * The host routes the adapter suite calls: one behind `requireAuth`, one echoing its JSON body,
 * `GET`/`POST /host/projects` behind `requirePermission`, and `GET /host/reports` behind `requireOAuth`.
 */
export function addHostRoutes(app: Express, auth: Auth): Express {
  app.get("/host/protected", requireAuth(auth), (req, res) => {
    res.json({ userId: req.auth?.userId, sessionId: req.auth?.sessionId });
  });
  app.post("/host/echo", express.json(), (req, res) => {
    res.json(req.body);
  });
  app.get("/host/projects", requirePermission(auth, "project:read"), (req, res) => {
    res.json({ organizationId: req.organization?.organizationId });
  });
  app.post("/host/projects", requirePermission(auth, "project:write"), (req, res) => {
    res.json({ organizationId: req.organization?.organizationId });
  });
  app.get("/host/reports", requireOAuth(auth, REPORTS_CHECK), (req, res) => {
    res.json({ subject: req.oauth?.subject, scopes: req.oauth?.scopes });
  });
  return app;
}
