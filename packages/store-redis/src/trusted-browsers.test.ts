import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { createAuthRouter } from "@portcullis/adapter-express";
import type { Auth, Clock } from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import { runTrustedBrowsersAdapterSuite } from "@portcullis/testing";
import express from "express";
import { createRedisStores } from "./redis-stores.js";
import { redisForFile } from "./test-redis.js";

// Trusted browsers with sessions, tokens and cooldowns on Redis: the trusts are tokens in the
// user's index set, listed without being taken and deleted with the sessions.
const file = redisForFile();

const createStores = (clock: Clock) => ({
  users: createMemoryStores({ clock }).users,
  ...createRedisStores({ client: file.client, keyPrefix: file.prefix() }),
});

async function startExpress(auth: Auth) {
  const app = express();
  app.use(createAuthRouter(auth));
  const server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

runTrustedBrowsersAdapterSuite({ name: "express + redis", createStores, start: startExpress });
