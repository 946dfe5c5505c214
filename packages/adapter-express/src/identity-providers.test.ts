import type { Server } from "node:http";
import { createMemoryStores } from "@portcullis/store-memory";
import { runIdentityProviderAdapterSuite } from "@portcullis/testing";
import express from "express";
import { createAuthRouter } from "./index.js";

runIdentityProviderAdapterSuite({
  name: "express",
  createStores: () => createMemoryStores({ sweepIntervalMs: 0 }),
  async listen(auth, port) {
    const app = express();
    app.use(createAuthRouter(auth));
    const server: Server = await new Promise((resolve) => {
      const listening = app.listen(port, "127.0.0.1", () => resolve(listening));
    });
    return {
      close: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    };
  },
});
