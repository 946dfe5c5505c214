import {
  createFakeClock,
  runAccessTokenAllowlistSuite,
  runCooldownStoreSuite,
  runIdentityStoreSuite,
  runSessionStoreSuite,
  runSingleUseTokenStoreSuite,
  runUserStoreSuite,
} from "@portcullis/testing";
import { afterAll, beforeAll, describe, it } from "vitest";
import { checkAllowlistUpgrade } from "./allowlist-upgrade.js";
import { migrate } from "./migrations.js";
import { createSqlStores } from "./sql-stores.js";
import { mysqlDatabase, type StoreKinds, useMysql } from "./test-databases.js";

// The conformance suites on MariaDB/MySQL (`useMysql`: MYSQL_URL, root on 127.0.0.1:3306, or a
// server started for this file), in a database of this file's own that is dropped afterwards.
// Skipped, with a loud line, only outside CI on a machine without any MariaDB.
const server = await useMysql();
const database = server ? await mysqlDatabase(server.url) : null;
beforeAll(async () => {
  if (database) await migrate(database.db);
});
afterAll(async () => {
  await database?.drop();
  await server?.stop();
});

const fixture = <K extends keyof StoreKinds>(kind: K) => {
  return () => {
    const clock = createFakeClock();
    if (!database) throw new Error("unreachable: skipped without a server");
    return {
      store: createSqlStores({ db: database.db, clock })[kind],
      advance: clock.advance,
      now: clock.now,
    };
  };
};

describe.skipIf(!database)("mysql", () => {
  runUserStoreSuite({ name: "mysql", create: fixture("users") });
  runSessionStoreSuite({ name: "mysql", create: fixture("sessions") });
  runAccessTokenAllowlistSuite({ name: "mysql", create: fixture("allowlist") });
  runSingleUseTokenStoreSuite({ name: "mysql", create: fixture("singleUseTokens") });
  it("migrate - 0005 moves every session's access token to the allowlist: tokens issued before keep working", async () => {
    if (database) await checkAllowlistUpgrade(database.db);
  });
  runCooldownStoreSuite({ name: "mysql", create: fixture("cooldowns") });
  runIdentityStoreSuite({ name: "mysql", create: fixture("identities") });
});
