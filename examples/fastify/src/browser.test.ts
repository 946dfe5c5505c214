import { runBrowserSuite } from "example-shared/browser-suite";
import { createApp } from "./app.js";

runBrowserSuite({
  name: "fastify",
  async start({ auth, outbox }, port) {
    const app = await createApp(auth, outbox);
    await app.listen({ port, host: "127.0.0.1" });
    return { close: () => app.close() };
  },
});
