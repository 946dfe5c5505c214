import { PER_FRAMEWORK_TESTS, runBrowserSuite } from "example-shared/browser-suite";
import { createApp } from "./app.js";

runBrowserSuite({
  name: "fastify",
  // The whole suite runs on Express; here what the framework can change (see PER_FRAMEWORK_TESTS).
  only: PER_FRAMEWORK_TESTS,
  async start({ auth, outbox }, port) {
    const app = await createApp(auth, outbox);
    await app.listen({ port, host: "127.0.0.1" });
    return { close: () => app.close() };
  },
});
