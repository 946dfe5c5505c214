import type { Clock } from "@portcullis/core";
import { runOrganizationsAdapterSuite } from "@portcullis/testing";
import { afterAll, beforeAll } from "vitest";
import { freshSqlStores, postgresSchema, sqliteDb, usePostgres } from "./test-databases.js";
import { startExpress, startFastify } from "./test-servers.js";

// Organizations through both Node adapters with every store in SQL (each test's own tables):
// Express on PostgreSQL, Fastify on SQLite. Concurrent accepts, slugs and demotions meet the
// databases' own locking here.
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

runOrganizationsAdapterSuite({
  name: "express + postgres",
  start: startExpress,
  createStores: (clock: Clock) => freshSqlStores(schema.db, clock),
});
runOrganizationsAdapterSuite({
  name: "fastify + sqlite",
  start: startFastify,
  createStores: (clock: Clock) => freshSqlStores(sqlite, clock),
});
