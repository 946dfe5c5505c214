import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock } from "@portcullis/core";
import { runOrganizationsAdapterSuite } from "@portcullis/testing";
import { afterAll } from "vitest";
import { freshSqlStores, sqliteDb } from "../../../packages/store-sql/src/test-databases.js";
import { startWithHostRoutes } from "./test-servers.js";

// Organizations through the Fetch adapter (the Hono example's app) with every store in SQLite:
// the transcript is the one Express and Fastify record on memory.
const dir = mkdtempSync(join(tmpdir(), "portcullis-hono-organizations-"));
const db = sqliteDb(join(dir, "organizations.db"));
afterAll(async () => {
  await db.destroy();
  await rm(dir, { recursive: true, force: true });
});

runOrganizationsAdapterSuite({
  name: "hono example + sqlite",
  createStores: (clock: Clock) => freshSqlStores(db, clock),
  start: startWithHostRoutes,
});
