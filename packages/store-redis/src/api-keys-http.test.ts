import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { createAuthRouter, requireAuth, requirePermission } from "@portcullis/adapter-express";
import type { Auth, Clock } from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import { runApiKeysAdapterSuite, runApiKeysInstancesSuite } from "@portcullis/testing";
import express from "express";
import { createRedisStores } from "./redis-stores.js";
import { redisForFile, serverTime } from "./test-redis.js";

// API keys with the keys, their request counters (cooldowns) and sessions on Redis; users and
// organizations in memory. The request window runs on Redis's clock, so the test that waits it out
// is left out (storeNow); the rest, 20 concurrent requests of one key included, run here.
const file = redisForFile();

const createStores = (clock: Clock) => {
  const memory = createMemoryStores({ clock });
  return {
    users: memory.users,
    organizations: memory.organizations,
    ...createRedisStores({ client: file.client, keyPrefix: file.prefix() }),
  };
};

async function startExpress(auth: Auth) {
  const app = express().use(createAuthRouter(auth));
  app.get("/host/protected", requireAuth(auth), (req, res) => {
    res.json({ userId: req.auth?.userId, sessionId: req.auth?.sessionId });
  });
  app.get("/host/projects", requirePermission(auth, "project:read"), (req, res) => {
    res.json({ organizationId: req.organization?.organizationId });
  });
  app.post("/host/projects", requirePermission(auth, "project:write"), (req, res) => {
    res.json({ organizationId: req.organization?.organizationId });
  });
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

runApiKeysAdapterSuite({
  name: "express + redis",
  createStores,
  start: startExpress,
  storeNow: () => serverTime(file.client),
});
// Two instances over one Redis: a delete through one is refused by the other at once.
runApiKeysInstancesSuite({ name: "express + redis", createStores, start: startExpress });
