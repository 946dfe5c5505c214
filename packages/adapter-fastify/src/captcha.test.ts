import { createMemoryStores } from "@portcullis/store-memory";
import { runCaptchaAdapterSuite } from "@portcullis/testing";
import { startForTests } from "./test-server.js";

runCaptchaAdapterSuite({
  name: "fastify",
  createStores: (clock) => createMemoryStores({ clock }),
  start: startForTests,
});
