import { runAdapterSuite } from "@portcullis/testing";
import { runExampleSuite } from "example-shared/suite";
import { afterAll, beforeAll } from "vitest";
import type { AnyKysely } from "../../../packages/store-sql/src/context.js";
import {
  freshSqlStores,
  postgresDatabase,
  postgresDb,
  usePostgres,
} from "../../../packages/store-sql/src/test-databases.js";
import { startExample, startWithHostRoutes } from "./test-servers.js";

// The Express example with DATABASE_URL=postgres://… (a database of this file's own, dropped
// afterwards): the example suite, and the adapter suite on SQL stores.
let server: Awaited<ReturnType<typeof usePostgres>>;
let database: Awaited<ReturnType<typeof postgresDatabase>>;
let db: AnyKysely;
beforeAll(async () => {
  server = await usePostgres();
  database = await postgresDatabase(server.url);
  db = postgresDb(database.url);
});
// Draining the pool and dropping the database can outlast the default 30 s on a loaded machine
// (once in a CI run with other work beside it: 278 s for this file, the tests all passed).
afterAll(async () => {
  await db?.destroy();
  await database?.drop();
  await server?.stop();
}, 120_000);

runExampleSuite({
  name: "express + postgres",
  serverEntry: new URL("../dist/server.js", import.meta.url).pathname,
  env: () => ({ DATABASE_URL: database.url, REDIS_URL: "" }),
  start: startExample,
});

runAdapterSuite({
  name: "express example + postgres",
  createStores: (clock) => freshSqlStores(db, clock),
  start: startWithHostRoutes,
});
