import type { AddressInfo } from "node:net";
import { requireAuth } from "@portcullis/adapter-express";
import type { Auth } from "@portcullis/core";
import type { ExampleAuth } from "example-shared";
import express, { type Express } from "express";
import { createApp } from "./app.js";

/** Test support: the example app listening on a free port of 127.0.0.1. */
export async function listen(app: Express): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export const startExample = ({ auth, outbox }: ExampleAuth) => listen(createApp(auth, outbox));

/** The example app plus the two host routes the adapter suite calls. */
export function startWithHostRoutes(auth: Auth) {
  const app = createApp(auth, undefined);
  app.get("/host/protected", requireAuth(auth), (req, res) => {
    res.json({ userId: req.auth?.userId, sessionId: req.auth?.sessionId });
  });
  app.post("/host/echo", express.json(), (req, res) => {
    res.json(req.body);
  });
  return listen(app);
}
