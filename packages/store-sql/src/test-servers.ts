import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { createAuthRouter, requireAuth, requirePermission } from "@portcullis/adapter-express";
import { requirePermission as fastifyRequirePermission, portcullis } from "@portcullis/adapter-fastify";
import {
  type Auth,
  type Clock,
  createArgon2Hasher,
  createAuth,
  type HttpHandler,
  httpHandlerFor,
  silentLogger,
} from "@portcullis/core";
import { createFakeClock } from "@portcullis/testing";
import express from "express";
import Fastify from "fastify";
import { afterAll, beforeAll, expect } from "vitest";
import type { AnyKysely } from "./context.js";
import { createSqlStores } from "./sql-stores.js";
import {
  type Counting,
  countedPostgres,
  countStatements,
  freshSqlStores,
  postgresSchemaForFile,
  type SendOptions,
  sendTo,
  sqliteDb,
} from "./test-databases.js";

/**
 * Test support (not part of the package's exports): the auth routes of `auth` through Express on
 * 127.0.0.1, with the adapter suite's `GET /host/protected` behind `requireAuth` and
 * `GET`/`POST /host/projects` behind `requirePermission`.
 */
export async function startExpress(auth: Auth) {
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

/** The same through Fastify's plugin. */
export async function startFastify(auth: Auth) {
  const app = Fastify({ forceCloseConnections: true });
  await app.register(portcullis, { auth });
  app.get("/host/protected", { preHandler: app.portcullisAuthenticate }, async (request) => ({
    userId: request.auth?.userId,
    sessionId: request.auth?.sessionId,
  }));
  const organizationId = async (request: { organization: { organizationId: string } | null }) => ({
    organizationId: request.organization?.organizationId,
  });
  app.get("/host/projects", { preHandler: fastifyRequirePermission(auth, "project:read") }, organizationId);
  app.post("/host/projects", { preHandler: fastifyRequirePermission(auth, "project:write") }, organizationId);
  await app.listen({ port: 0, host: "127.0.0.1" });
  return {
    baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    close: () => app.close(),
  };
}

/**
 * The two SQL targets of the adapter suites in a test file: Express on a PostgreSQL schema of the
 * file's own, Fastify on an in-memory SQLite closed after the file's tests; each test gets fresh tables.
 */
export function expressPostgresAndFastifySqlite() {
  const postgres = postgresSchemaForFile();
  const sqlite = sqliteDb();
  afterAll(() => sqlite.destroy());
  return {
    onPostgres: {
      name: "express + postgres",
      start: startExpress,
      createStores: (clock: Clock) => freshSqlStores(postgres.db, clock),
    },
    onSqlite: {
      name: "fastify + sqlite",
      start: startFastify,
      createStores: (clock: Clock) => freshSqlStores(sqlite, clock),
    },
  };
}

/**
 * The core's HTTP handler on SQL stores over `db` (migrated, on a fake clock) for a loopback app
 * at localhost:3000 that takes tokens in headers: cheap argon2, no emails, then `options`.
 */
export async function sqlStoresHandler(
  db: AnyKysely,
  secret: string,
  options: Pick<Parameters<typeof createAuth>[0], "organizations" | "loginThrottle"> = {},
): Promise<HttpHandler> {
  const stores = createSqlStores({ db, clock: createFakeClock() });
  await stores.migrate();
  const auth = createAuth({
    secret,
    stores,
    logger: silentLogger,
    appOrigin: "http://localhost:3000",
    allowHeaderAuthentication: true,
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    email: { enabled: false },
    ...options,
  });
  return httpHandlerFor(auth);
}

/**
 * For a describe block: `sqlStoresHandler` with `secret` and `options` over the counting Kysely
 * that `open` gives (`counted`), made before the block's tests. `send` makes a request through
 * it (`sendTo`); `count` answers `run`'s answer and the statements it sent (`countStatements`).
 */
export function countedHandler(
  open: () => Promise<{ db: AnyKysely; counting: Counting }>,
  secret: string,
  options: Parameters<typeof sqlStoresHandler>[2] = {},
) {
  let made: { db: AnyKysely; counting: Counting; handler: HttpHandler } | undefined;
  beforeAll(async () => {
    const { db, counting } = await open();
    made = { db, counting, handler: await sqlStoresHandler(db, secret, options) };
  }, 60_000);
  const ready = () => {
    if (!made) throw new Error("countedHandler: the handler is made in beforeAll");
    return made;
  };
  return {
    get db() {
      return ready().db;
    },
    get handler() {
      return ready().handler;
    },
    send: (method: string, path: string, sent: SendOptions = {}) =>
      sendTo(ready().handler, method, path, sent),
    count: <T>(run: () => Promise<T>) => countStatements(ready().counting, run),
  };
}

/** `countedPostgres` for a test file: what opens it (once), closed after the file's tests. */
export function countedPostgresForFile(): () => ReturnType<typeof countedPostgres> {
  let postgres: Awaited<ReturnType<typeof countedPostgres>> | undefined;
  afterAll(() => postgres?.close(), 60_000);
  return async () => {
    postgres = await countedPostgres();
    return postgres;
  };
}

let registrations = 0;

/** A new account registered through `handler` (not signed in yet), its address starting with `label`: its credentials. */
export async function registerThrough(handler: HttpHandler, label: string) {
  registrations += 1;
  const credentials = {
    email: `${label}${registrations}-${Date.now()}@example.test`,
    password: "correct horse battery staple",
  };
  expect((await sendTo(handler, "POST", "/register", { body: credentials })).status).toBeLessThan(300);
  return credentials;
}
