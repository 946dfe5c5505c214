import { createSso } from "@portcullis/sso";
import { createMemoryStores } from "@portcullis/store-memory";
import { runScimAdapterSuite } from "@portcullis/testing";
import { createTestApp, listenForTests } from "./test-server.js";

// SCIM 2.0 per SSO connection through the Fetch handler on Hono (its bodies are `application/scim+json`).
runScimAdapterSuite({
  name: "fetch",
  createStores: (clock) => createMemoryStores({ clock }),
  sso: (setup) => createSso(setup),
  start: (auth) => listenForTests(createTestApp(auth)),
});
