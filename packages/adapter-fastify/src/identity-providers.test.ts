import { createMemoryStores } from "@portcullis/store-memory";
import { runIdentityProviderAdapterSuite } from "@portcullis/testing";
import Fastify from "fastify";
import { portcullis } from "./index.js";

runIdentityProviderAdapterSuite({
  name: "fastify",
  createStores: () => createMemoryStores({ sweepIntervalMs: 0 }),
  async listen(auth, port) {
    const app = Fastify({ forceCloseConnections: true });
    await app.register(portcullis, { auth });
    await app.listen({ port, host: "127.0.0.1" });
    return { close: () => app.close() };
  },
});
