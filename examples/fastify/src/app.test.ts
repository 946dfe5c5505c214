import type { AddressInfo } from "node:net";
import { runExampleSuite } from "example-shared/suite";
import { createApp } from "./app.js";

runExampleSuite({
  name: "fastify",
  serverEntry: new URL("../dist/server.js", import.meta.url).pathname,
  async start({ auth, outbox }) {
    const app = await createApp(auth, outbox);
    await app.listen({ port: 0, host: "127.0.0.1" });
    return {
      baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
      close: () => app.close(),
    };
  },
});
