import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createMemoryStores } from "@portcullis/store-memory";
import { runAdapterSuite } from "@portcullis/testing";
import express from "express";
import { createAuthRouter, requireAuth } from "./index.js";

runAdapterSuite({
  name: "express",
  createStores: (clock) => createMemoryStores({ clock }),
  transcripts: true,
  async start(auth) {
    const app = express();
    app.use(createAuthRouter(auth));
    app.get("/host/protected", requireAuth(auth), (req, res) => {
      res.json({ userId: req.auth?.userId, sessionId: req.auth?.sessionId });
    });
    app.post("/host/echo", express.json(), (req, res) => {
      res.json(req.body);
    });
    const server: Server = await new Promise((resolve) => {
      const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
    });
    return {
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    };
  },
});
