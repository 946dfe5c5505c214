import {
  runCooldownStoreSuite,
  runIdentityStoreSuite,
  runSessionStoreSuite,
  runUserStoreSuite,
} from "@portcullis/testing";
import { afterAll, beforeAll } from "vitest";
import { migrate } from "./migrations.js";
import { createSqlStores } from "./sql-stores.js";
import { fakeClock, postgresSchema, usePostgres } from "./test-databases.js";

// The conformance suites on a real PostgreSQL (PG_URL, the machine's, or one started here), in a
// schema of this file's own that is dropped afterwards.
let server: Awaited<ReturnType<typeof usePostgres>>;
let schema: Awaited<ReturnType<typeof postgresSchema>>;
beforeAll(async () => {
  server = await usePostgres();
  schema = await postgresSchema(server.url);
  await migrate(schema.db);
});
afterAll(async () => {
  await schema?.drop();
  await server?.stop();
});

const fixture =
  <K extends "users" | "sessions" | "cooldowns" | "identities">(kind: K) =>
  () => {
    const clock = fakeClock();
    return { store: createSqlStores({ db: schema.db, clock })[kind], advance: clock.advance };
  };

runUserStoreSuite({ name: "postgres", create: fixture("users") });
runSessionStoreSuite({ name: "postgres", create: fixture("sessions") });
runCooldownStoreSuite({ name: "postgres", create: fixture("cooldowns") });
runIdentityStoreSuite({ name: "postgres", create: fixture("identities") });
