import { createSso } from "@portcullis/sso";
import { createMemoryStores } from "@portcullis/store-memory";
import { runScimAdapterSuite } from "@portcullis/testing";
import { startForTests } from "./test-server.js";

// SCIM 2.0 per SSO connection through Fastify's plugin (its bodies are `application/scim+json`).
runScimAdapterSuite({
  name: "fastify",
  createStores: (clock) => createMemoryStores({ clock }),
  sso: (setup) => createSso(setup),
  start: startForTests,
});
