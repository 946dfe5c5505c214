import { ConfigError, createExampleAuth, readConfig } from "example-shared";
import { createApp } from "./app.js";

try {
  const config = readConfig();
  const { auth, outbox } = await createExampleAuth(config);
  const server = createApp(auth, outbox).listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : config.port;
    console.log(
      `Portcullis Express example on http://${config.host}:${port} (emails link to ${config.appOrigin})`,
    );
    if (outbox) console.log(`Dev outbox: http://${config.host}:${port}/dev/outbox`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`Cannot start: ${error.message}`);
  process.exit(1);
}
