import { createMemoryStores } from "@portcullis/store-memory";
import { runTrustedBrowsersAdapterSuite } from "@portcullis/testing";
import { createTestApp, listenForTests } from "./test-server.js";

runTrustedBrowsersAdapterSuite({
  name: "fetch",
  createStores: (clock) => createMemoryStores({ clock }),
  start: (auth) => listenForTests(createTestApp(auth)),
});
