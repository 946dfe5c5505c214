import { PER_FRAMEWORK_TESTS, runBrowserSuite } from "example-shared/browser-suite";
import { listenForTests } from "../../../packages/adapter-fetch/src/test-server.js";
import { createApp } from "./app.js";

runBrowserSuite({
  name: "hono",
  // The whole suite runs on Express; here what the framework can change (see PER_FRAMEWORK_TESTS).
  only: PER_FRAMEWORK_TESTS,
  async start({ auth, outbox }, port) {
    const server = await listenForTests(createApp(auth, outbox), port);
    return { close: server.close };
  },
});
