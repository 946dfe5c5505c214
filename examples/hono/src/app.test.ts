import { createMemoryStores } from "@portcullis/store-memory";
import { runAdapterSuite } from "@portcullis/testing";
import { runExampleSuite } from "example-shared/suite";
import { startExample, startWithHostRoutes } from "./test-servers.js";

runExampleSuite({
  name: "hono",
  serverEntry: new URL("../dist/server.js", import.meta.url).pathname,
  start: startExample,
});

runAdapterSuite({
  name: "hono example",
  createStores: (clock) => createMemoryStores({ clock }),
  transcripts: true,
  start: startWithHostRoutes,
});
