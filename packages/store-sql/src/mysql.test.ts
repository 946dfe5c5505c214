import {
  createFakeClock,
  runCooldownStoreSuite,
  runIdentityStoreSuite,
  runSessionStoreSuite,
  runUserStoreSuite,
} from "@portcullis/testing";
import { afterAll, beforeAll, describe } from "vitest";
import { migrate } from "./migrations.js";
import { createSqlStores } from "./sql-stores.js";
import { mysqlDatabase } from "./test-databases.js";

// The conformance suites on MariaDB/MySQL (MYSQL_URL, or root on 127.0.0.1:3306), in a database of
// this file's own that is dropped afterwards. Skipped on a machine without a server.
const database = await mysqlDatabase();
beforeAll(async () => {
  if (database) await migrate(database.db);
});
afterAll(async () => {
  await database?.drop();
});

const fixture = <K extends "users" | "sessions" | "cooldowns" | "identities">(kind: K) => {
  return () => {
    const clock = createFakeClock();
    if (!database) throw new Error("unreachable: skipped without a server");
    return { store: createSqlStores({ db: database.db, clock })[kind], advance: clock.advance };
  };
};

describe.skipIf(!database)("mysql", () => {
  runUserStoreSuite({ name: "mysql", create: fixture("users") });
  runSessionStoreSuite({ name: "mysql", create: fixture("sessions") });
  runCooldownStoreSuite({ name: "mysql", create: fixture("cooldowns") });
  runIdentityStoreSuite({ name: "mysql", create: fixture("identities") });
});
