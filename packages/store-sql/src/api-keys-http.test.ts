import type { Clock } from "@portcullis/core";
import { runApiKeysAdapterSuite, runApiKeysInstancesSuite } from "@portcullis/testing";
import { afterAll, beforeAll } from "vitest";
import { freshSqlStores, postgresSchema, sqliteDb, usePostgres } from "./test-databases.js";
import { startExpress, startFastify } from "./test-servers.js";

// API keys through both Node adapters with every store in SQL (each test's own tables): Express
// on PostgreSQL, Fastify on SQLite. Concurrent deletes and a key's request counter meet the
// databases' own locking here; the organizations' keys go with them by the store's own delete.
let server: Awaited<ReturnType<typeof usePostgres>>;
let schema: Awaited<ReturnType<typeof postgresSchema>>;
const sqlite = sqliteDb();
beforeAll(async () => {
  server = await usePostgres();
  schema = await postgresSchema(server.url);
});
afterAll(async () => {
  await schema?.drop();
  await server?.stop();
  await sqlite.destroy();
});

runApiKeysAdapterSuite({
  name: "express + postgres",
  start: startExpress,
  createStores: (clock: Clock) => freshSqlStores(schema.db, clock),
});
runApiKeysAdapterSuite({
  name: "fastify + sqlite",
  start: startFastify,
  createStores: (clock: Clock) => freshSqlStores(sqlite, clock),
});
// Two instances over one PostgreSQL schema: a delete through one is refused by the other at once.
runApiKeysInstancesSuite({
  name: "express + postgres",
  start: startExpress,
  createStores: (clock: Clock) => freshSqlStores(schema.db, clock),
});
