import { createMemoryStores } from "@portcullis/store-memory";
import { runTrustedBrowsersAdapterSuite } from "@portcullis/testing";
import { startForTests } from "./test-server.js";

runTrustedBrowsersAdapterSuite({
  name: "fastify",
  createStores: (clock) => createMemoryStores({ clock }),
  start: startForTests,
});
