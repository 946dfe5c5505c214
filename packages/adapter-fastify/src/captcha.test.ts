import { createMemoryStores } from "@portcullis/store-memory";
import { runCaptchaAdapterSuite } from "@portcullis/testing";
import Fastify from "fastify";
import { portcullis } from "./index.js";
import { addHostRoutes, listenForTests } from "./test-server.js";

runCaptchaAdapterSuite({
  name: "fastify",
  createStores: (clock) => createMemoryStores({ clock }),
  start: async (auth) => {
    const app = Fastify({ forceCloseConnections: true });
    await app.register(portcullis, { auth });
    return listenForTests(addHostRoutes(app, auth));
  },
});
