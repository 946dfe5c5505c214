import { runRequestTimingSuite } from "@portcullis/testing";
import { afterAll, beforeAll } from "vitest";
import type { AnyKysely } from "./context.js";
import { createSqlStores } from "./sql-stores.js";
import { postgresSchema, sqliteDb, usePostgres } from "./test-databases.js";

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function migrated(db: AnyKysely, clock: { now(): number }) {
  const stores = createSqlStores({ db, clock });
  await stores.migrate();
  return stores;
}

runRequestTimingSuite({
  name: "sqlite",
  async createStores(clock) {
    const db = sqliteDb();
    cleanups.push(() => db.destroy());
    return migrated(db, clock);
  },
});

let postgres: Awaited<ReturnType<typeof usePostgres>> | undefined;
beforeAll(async () => {
  postgres = await usePostgres();
  cleanups.push(() => postgres?.stop() ?? Promise.resolve());
});

// Fewer rounds: each call is a few round trips to the server.
runRequestTimingSuite({
  name: "postgresql",
  rounds: 40,
  async createStores(clock) {
    if (!postgres) throw new Error("unreachable: PostgreSQL is set up before the tests");
    const schema = await postgresSchema(postgres.url);
    cleanups.push(() => schema.drop());
    return migrated(schema.db, clock);
  },
});
