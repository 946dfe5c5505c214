import { createMemoryStores } from "@portcullis/store-memory";
import { runIdentityProviderAdapterSuite } from "@portcullis/testing";
import Fastify from "fastify";
import { portcullis } from "./index.js";
import { listenForTests } from "./test-server.js";

runIdentityProviderAdapterSuite({
  name: "fastify",
  createStores: () => createMemoryStores({ sweepIntervalMs: 0 }),
  async listen(auth, port) {
    const app = Fastify({ forceCloseConnections: true });
    await app.register(portcullis, { auth });
    return listenForTests(app, port);
  },
});
