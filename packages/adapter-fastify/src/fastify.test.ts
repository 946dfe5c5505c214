import type { AddressInfo } from "node:net";
import { createMemoryStores } from "@portcullis/store-memory";
import { runAdapterSuite } from "@portcullis/testing";
import Fastify from "fastify";
import { portcullis } from "./index.js";

runAdapterSuite({
  name: "fastify",
  createStores: (clock) => createMemoryStores({ clock }),
  transcripts: true,
  async start(auth) {
    const app = Fastify({ forceCloseConnections: true });
    await app.register(portcullis, { auth });
    app.get("/host/protected", { preHandler: app.portcullisAuthenticate }, async (request) => ({
      userId: request.auth?.userId,
      sessionId: request.auth?.sessionId,
    }));
    app.post("/host/echo", async (request) => request.body);
    await app.listen({ port: 0, host: "127.0.0.1" });
    return {
      baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
      close: () => app.close(),
    };
  },
});
