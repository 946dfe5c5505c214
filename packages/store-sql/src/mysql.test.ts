import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { createAuthRouter } from "@portcullis/adapter-express";
import { portcullis } from "@portcullis/adapter-fastify";
import type { Auth } from "@portcullis/core";
import {
  runAccessTokenAllowlistSuite,
  runActivityStoreSuite,
  runApiKeyStoreSuite,
  runCooldownStoreSuite,
  runCredentialsAdapterSuite,
  runDevicesAdapterSuite,
  runEmailSignInAdapterSuite,
  runIdentityStoreSuite,
  runOrganizationStoreSuite,
  runPasskeyStoreSuite,
  runPasskeysAdapterSuite,
  runSelfServiceAdapterSuite,
  runSessionStoreSuite,
  runSingleUseTokenStoreSuite,
  runUserStoreSuite,
} from "@portcullis/testing";
import express from "express";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, it } from "vitest";
import { checkAllowlistUpgrade } from "./allowlist-upgrade.js";
import { checkApiKeysUpgrade } from "./api-keys-upgrade.js";
import { migrate } from "./migrations.js";
import { checkOrganizationsUpgrade } from "./organizations-upgrade.js";
import {
  conformanceFixture,
  freshSqlStores,
  mysqlDatabase,
  type StoreKinds,
  useMysql,
} from "./test-databases.js";

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
    if (!database) throw new Error("unreachable: skipped without a server");
    return conformanceFixture(database.db, kind);
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
  it("migrate - 0013 adds organizations and the session's active organization: existing sessions have none", async () => {
    if (database) await checkOrganizationsUpgrade(database.db);
  });
  it("migrate - 0014 adds API keys beside an existing organization: its keys go with it", async () => {
    if (database) await checkApiKeysUpgrade(database.db);
  });
  runCooldownStoreSuite({ name: "mysql", create: fixture("cooldowns") });
  runIdentityStoreSuite({ name: "mysql", create: fixture("identities") });
  runActivityStoreSuite({ name: "mysql", create: fixture("activity") });
  runPasskeyStoreSuite({ name: "mysql", create: fixture("passkeys") });
  runOrganizationStoreSuite({ name: "mysql", create: fixture("organizations") });
  runApiKeyStoreSuite({ name: "mysql", create: fixture("apiKeys") });
});

// Known browsers (the login budget per account and browser) through both adapters, with every
// store on MariaDB: each test's own tables. Each app a test boots migrates its own tables (14
// migrations of DDL on MariaDB, a few seconds each under a full parallel run), and a test may boot
// three: 60 s, not the default 20 (one such test took 20 s on CI's machine).
async function startExpress(auth: Auth) {
  const app = express();
  app.use(createAuthRouter(auth));
  const server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function startFastify(auth: Auth) {
  const app = Fastify({ forceCloseConnections: true });
  await app.register(portcullis, { auth });
  await app.listen({ port: 0, host: "127.0.0.1" });
  return {
    baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    close: () => app.close(),
  };
}

describe.skipIf(!database)("mysql: known browsers", { timeout: 60_000 }, () => {
  for (const [name, start] of [
    ["express + mysql", startExpress],
    ["fastify + mysql", startFastify],
  ] as const) {
    const createStores = (clock: Parameters<typeof freshSqlStores>[1]) => {
      if (!database) throw new Error("unreachable: skipped without a server");
      return freshSqlStores(database.db, clock);
    };
    runDevicesAdapterSuite({ name, start, createStores });
    // Route credentials and the login's email-code cooldown on MySQL.
    runCredentialsAdapterSuite({ name, start, createStores });
    // Sign-in by email with its tokens and code counters in MySQL.
    runEmailSignInAdapterSuite({ name, start, createStores });
    // Account self-service (docs/concepts.md, "Account self-service"), every store on MySQL: the address's uniqueness too.
    runSelfServiceAdapterSuite({ name, start, createStores });
    // Passkeys and their challenges on MySQL.
    runPasskeysAdapterSuite({ name, start, createStores });
  }
});
