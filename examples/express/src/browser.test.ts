import { KEEP_ALIVE_TIMEOUT_MS } from "example-shared";
import { runBrowserSuite } from "example-shared/browser-suite";
import { createApp } from "./app.js";

runBrowserSuite({
  name: "express",
  async start({ auth, outbox }, port) {
    const server = createApp(auth, outbox).listen(port, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    return {
      close: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    };
  },
});
