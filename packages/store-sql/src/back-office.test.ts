import type { Clock } from "@portcullis/core";
import { runBackOfficeAdapterSuite } from "@portcullis/testing";
import { freshSqlStores, postgresSchemaForFile } from "./test-databases.js";
import { startExpress, startFastify } from "./test-servers.js";

// The back office through both adapters with every store on PostgreSQL (each test's own tables):
// listing by address prefix on the `collate "C"` index, lock, sessions ended, impersonation.
const postgres = postgresSchemaForFile();

const createStores = (clock: Clock) => freshSqlStores(postgres.db, clock);

runBackOfficeAdapterSuite({ name: "express + postgres", start: startExpress, createStores });
runBackOfficeAdapterSuite({ name: "fastify + postgres", start: startFastify, createStores });
