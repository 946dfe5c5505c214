import { startExample } from "example-shared";
import { createApp } from "./app.js";

await startExample("Fastify", async (auth, outbox, config) => {
  const app = await createApp(auth, outbox);
  await app.listen({ port: config.port, host: config.host });
  return { address: () => app.server.address(), close: () => app.close() };
});
