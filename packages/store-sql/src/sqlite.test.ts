import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { AnyKysely } from "./context.js";
import { migrate } from "./migrations.js";
import { runSqlStoreSuites, sqliteDb } from "./test-databases.js";

// The conformance suites on SQLite, in memory and in a file; one database each, migrated once.
let memory: AnyKysely;
let file: AnyKysely;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "portcullis-sqlite-"));
  memory = sqliteDb();
  file = sqliteDb(join(dir, "test.db"));
  await migrate(memory);
  await migrate(file);
});
afterAll(async () => {
  await memory.destroy();
  await file.destroy();
  await rm(dir, { recursive: true, force: true });
});

runSqlStoreSuites("sqlite memory", () => memory);
runSqlStoreSuites("sqlite file", () => file);
