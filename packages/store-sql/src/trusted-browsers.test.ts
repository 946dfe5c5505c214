import type { Clock } from "@portcullis/core";
import { runTrustedBrowsersAdapterSuite } from "@portcullis/testing";
import { afterAll, beforeAll } from "vitest";
import { freshSqlStores, postgresSchema, usePostgres } from "./test-databases.js";
import { startExpress } from "./test-servers.js";

// Trusted browsers with every store on PostgreSQL (each test's own tables): the trusts are rows of
// the tokens table, listed by user and purpose and deleted with the sessions.
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

runTrustedBrowsersAdapterSuite({
  name: "express + postgres",
  start: startExpress,
  createStores: (clock: Clock) => freshSqlStores(schema.db, clock),
});
