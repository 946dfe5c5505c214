import { createMemoryStores } from "@portcullis/store-memory";
import { runAdapterSuite } from "@portcullis/testing";
import Fastify from "fastify";
import { portcullis } from "./index.js";
import { addHostRoutes, listenForTests } from "./test-server.js";

runAdapterSuite({
  name: "fastify",
  createStores: (clock) => createMemoryStores({ clock }),
  transcripts: true,
  async start(auth) {
    const app = Fastify({ forceCloseConnections: true });
    await app.register(portcullis, { auth });
    return listenForTests(addHostRoutes(app));
  },
});
