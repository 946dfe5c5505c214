import { KEEP_ALIVE_TIMEOUT_MS, startExample } from "example-shared";
import { createApp } from "./app.js";

await startExample(
  "Express",
  (auth, outbox, config) =>
    new Promise((resolve) => {
      const server = createApp(auth, outbox).listen(config.port, config.host, () =>
        resolve({
          address: () => server.address(),
          close: () => new Promise((closed) => server.close(() => closed())),
        }),
      );
      server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    }),
);
