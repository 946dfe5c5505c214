import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { createAuthRouter } from "@portcullis/adapter-express";
import { portcullis } from "@portcullis/adapter-fastify";
import type { Auth, Clock } from "@portcullis/core";
import { runBackOfficeAdapterSuite } from "@portcullis/testing";
import express from "express";
import Fastify from "fastify";
import { afterAll, beforeAll } from "vitest";
import { freshSqlStores, postgresSchema, usePostgres } from "./test-databases.js";

// The back office through both adapters with every store on PostgreSQL (each test's own tables):
// listing by address prefix on the `collate "C"` index, lock, sessions ended, impersonation.
let server: Awaited<ReturnType<typeof usePostgres>>;
let schema: Awaited<ReturnType<typeof postgresSchema>>;
beforeAll(async () => {
  server = await usePostgres();
  schema = await postgresSchema(server.url);
});
afterAll(async () => {
  await schema?.drop();
  await server?.stop();
});

const createStores = (clock: Clock) => freshSqlStores(schema.db, clock);

async function startExpress(auth: Auth) {
  const app = express();
  app.use(createAuthRouter(auth));
  const listening = app.listen(0, "127.0.0.1");
  await once(listening, "listening");
  return {
    baseUrl: `http://127.0.0.1:${(listening.address() as AddressInfo).port}`,
    async close() {
      listening.closeAllConnections();
      await new Promise<void>((resolve) => listening.close(() => resolve()));
    },
  };
}

async function startFastify(auth: Auth) {
  const app = Fastify({ forceCloseConnections: true });
  await app.register(portcullis, { auth });
  await app.listen({ port: 0, host: "127.0.0.1" });
  return {
    baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    close: () => app.close(),
  };
}

runBackOfficeAdapterSuite({ name: "express + postgres", start: startExpress, createStores });
runBackOfficeAdapterSuite({ name: "fastify + postgres", start: startFastify, createStores });
