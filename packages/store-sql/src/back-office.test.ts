import type { Clock } from "@portcullis/core";
import { runBackOfficeAdapterSuite } from "@portcullis/testing";
import { afterAll, beforeAll } from "vitest";
import { freshSqlStores, postgresSchema, usePostgres } from "./test-databases.js";
import { startExpress, startFastify } from "./test-servers.js";

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

runBackOfficeAdapterSuite({ name: "express + postgres", start: startExpress, createStores });
runBackOfficeAdapterSuite({ name: "fastify + postgres", start: startFastify, createStores });
