import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { createAuthRouter } from "@portcullis/adapter-express";
import { portcullis } from "@portcullis/adapter-fastify";
import type { Auth, Clock } from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import {
  runBackOfficeAdapterSuite,
  runCredentialsAdapterSuite,
  runDevicesAdapterSuite,
  runEmailSignInAdapterSuite,
  runLimitsAdapterSuite,
  runPasskeysAdapterSuite,
  runSelfServiceAdapterSuite,
} from "@portcullis/testing";
import express from "express";
import Fastify from "fastify";
import { createRedisStores } from "./redis-stores.js";
import { redisForFile, serverTime } from "./test-redis.js";

// The limits of docs/limits.md through both adapters with cooldowns and sessions on Redis.
const file = redisForFile();

const createStores = (clock: Clock) => {
  const keyPrefix = file.prefix();
  return {
    users: createMemoryStores({ clock }).users,
    ...createRedisStores({ client: file.client, keyPrefix }),
  };
};

const listening = (baseUrl: string, close: () => Promise<void>) => ({ baseUrl, close });

async function startExpress(auth: Auth) {
  const app = express();
  app.use(createAuthRouter(auth));
  const server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  return listening(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
}

async function startFastify(auth: Auth) {
  const app = Fastify({ forceCloseConnections: true });
  await app.register(portcullis, { auth });
  await app.listen({ port: 0, host: "127.0.0.1" });
  return listening(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, () => app.close());
}

// Cooldowns run on Redis's clock: a test that waits one out waits until that clock has moved.
const redisNow = () => serverTime(file.client);
runLimitsAdapterSuite({ name: "express + redis", createStores, start: startExpress, storeNow: redisNow });
runLimitsAdapterSuite({ name: "fastify + redis", createStores, start: startFastify, storeNow: redisNow });
// Known browsers: the login budget per account and browser lives in the cooldown store (Redis).
runDevicesAdapterSuite({ name: "express + redis", createStores, start: startExpress });
runDevicesAdapterSuite({ name: "fastify + redis", createStores, start: startFastify });
// Route credentials and the login's email-code cooldown, with the cooldowns on Redis.
runCredentialsAdapterSuite({ name: "express + redis", createStores, start: startExpress });
runCredentialsAdapterSuite({ name: "fastify + redis", createStores, start: startFastify });
// Sign-in by email: its tokens and code counters on Redis; cooldowns waited out on Redis's clock.
const storeNow = async () => {
  const [seconds, micros] = await file.client.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
};
runEmailSignInAdapterSuite({ name: "express + redis", createStores, start: startExpress, storeNow });
runEmailSignInAdapterSuite({ name: "fastify + redis", createStores, start: startFastify, storeNow });
// Account self-service (docs/concepts.md, "Account self-service") with sessions, tokens, cooldowns and activity on Redis.
runSelfServiceAdapterSuite({ name: "express + redis", createStores, start: startExpress });
runSelfServiceAdapterSuite({ name: "fastify + redis", createStores, start: startFastify });
// The back office (lock, sessions ended, impersonation) with sessions and the allowlist on Redis.
runBackOfficeAdapterSuite({ name: "express + redis", createStores, start: startExpress });
runBackOfficeAdapterSuite({ name: "fastify + redis", createStores, start: startFastify });
// Passkeys: their store, and the challenges in the single-use token store, on Redis.
runPasskeysAdapterSuite({ name: "express + redis", createStores, start: startExpress });
runPasskeysAdapterSuite({ name: "fastify + redis", createStores, start: startFastify });
