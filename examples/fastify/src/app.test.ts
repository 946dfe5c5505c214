import { runExampleSuite } from "example-shared/suite";
import { listenForTests } from "../../../packages/adapter-fastify/src/test-server.js";
import { createApp } from "./app.js";

runExampleSuite({
  name: "fastify",
  serverEntry: new URL("../dist/server.js", import.meta.url).pathname,
  start: async ({ auth, outbox }) => listenForTests(await createApp(auth, outbox)),
});
