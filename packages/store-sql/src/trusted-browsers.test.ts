import type { Clock } from "@portcullis/core";
import { runTrustedBrowsersAdapterSuite } from "@portcullis/testing";
import { freshSqlStores, postgresSchemaForFile } from "./test-databases.js";
import { startExpress } from "./test-servers.js";

// Trusted browsers with every store on PostgreSQL (each test's own tables): the trusts are rows of
// the tokens table, listed by user and purpose and deleted with the sessions.
const postgres = postgresSchemaForFile();

runTrustedBrowsersAdapterSuite({
  name: "express + postgres",
  start: startExpress,
  createStores: (clock: Clock) => freshSqlStores(postgres.db, clock),
});
