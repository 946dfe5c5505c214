import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAdapterSuite } from "@portcullis/testing";
import { runExampleSuite } from "example-shared/suite";
import { afterAll } from "vitest";
import { freshSqlStores, sqliteDb } from "../../../packages/store-sql/src/test-databases.js";
import { startExample, startWithHostRoutes } from "./test-servers.js";

// The Express example with DATABASE_URL=sqlite:<file>: the example suite, and the adapter suite
// (with its two-factor and limits parts) on SQL stores.
const dir = mkdtempSync(join(tmpdir(), "portcullis-example-sqlite-"));
const db = sqliteDb(join(dir, "adapter.db"));
afterAll(async () => {
  await db.destroy();
  await rm(dir, { recursive: true, force: true });
});

runExampleSuite({
  name: "express + sqlite",
  serverEntry: new URL("../dist/server.js", import.meta.url).pathname,
  env: () => ({ DATABASE_URL: `sqlite:${join(dir, "example.db")}`, REDIS_URL: "" }),
  start: startExample,
});

runAdapterSuite({
  name: "express example + sqlite",
  createStores: (clock) => freshSqlStores(db, clock),
  start: startWithHostRoutes,
});
