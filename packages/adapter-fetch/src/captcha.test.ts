import { createMemoryStores } from "@portcullis/store-memory";
import { runCaptchaAdapterSuite } from "@portcullis/testing";
import { createTestApp, listenForTests } from "./test-server.js";

runCaptchaAdapterSuite({
  name: "fetch",
  createStores: (clock) => createMemoryStores({ clock }),
  start: (auth) => listenForTests(createTestApp(auth)),
});
