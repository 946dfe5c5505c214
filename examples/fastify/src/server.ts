import { ConfigError, createExampleAuth, readConfig } from "example-shared";
import { createApp } from "./app.js";

try {
  const config = readConfig();
  const { auth, outbox } = await createExampleAuth(config);
  const app = await createApp(auth, outbox);
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  console.log(
    `Portcullis Fastify example on http://${config.host}:${port} (emails link to ${config.appOrigin})`,
  );
  if (outbox) console.log(`Dev outbox: http://${config.host}:${port}/dev/outbox`);
  const stop = () => app.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`Cannot start: ${error.message}`);
  process.exit(1);
}
