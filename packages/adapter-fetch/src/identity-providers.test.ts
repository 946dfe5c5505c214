import { createMemoryStores } from "@portcullis/store-memory";
import { runIdentityProviderAdapterSuite } from "@portcullis/testing";
import { createTestApp, listenForTests } from "./test-server.js";

runIdentityProviderAdapterSuite({
  name: "fetch",
  createStores: () => createMemoryStores({ sweepIntervalMs: 0 }),
  listen: (auth, port) => listenForTests(createTestApp(auth), port),
});
