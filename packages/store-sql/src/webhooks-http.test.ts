import { runWebhooksAdapterSuite } from "@portcullis/testing";
import { freshSqlStoresWithAuditLog, postgresSchemaForFile } from "./test-databases.js";
import { startExpress } from "./test-servers.js";

// Webhooks through Express with every store in SQL on PostgreSQL (each test's own tables, the
// audit log among them): endpoints, a delivery to a receiver on 127.0.0.1 and its redelivery.
const postgres = postgresSchemaForFile();

runWebhooksAdapterSuite({
  name: "express + postgres",
  start: startExpress,
  createStores: (clock) => freshSqlStoresWithAuditLog(postgres.db, clock),
});
