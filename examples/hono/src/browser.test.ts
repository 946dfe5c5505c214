import { runBrowserSuite } from "example-shared/browser-suite";
import { listenForTests } from "../../../packages/adapter-fetch/src/test-server.js";
import { createApp } from "./app.js";

runBrowserSuite({
  name: "hono",
  async start({ auth, outbox }, port) {
    const server = await listenForTests(createApp(auth, outbox), port);
    return { close: server.close };
  },
});
