import type { AddressInfo } from "node:net";
import { runExampleSuite } from "example-shared/suite";
import { createApp } from "./app.js";

runExampleSuite({
  name: "express",
  serverEntry: new URL("../dist/server.js", import.meta.url).pathname,
  async start({ auth, outbox }) {
    const server = createApp(auth, outbox).listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    return {
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  },
});
