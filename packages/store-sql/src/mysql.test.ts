import { randomBytes } from "node:crypto";
import {
  runCredentialsAdapterSuite,
  runDevicesAdapterSuite,
  runEmailSignInAdapterSuite,
  runPasskeysAdapterSuite,
  runSelfServiceAdapterSuite,
} from "@portcullis/testing";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkAllowlistUpgrade } from "./allowlist-upgrade.js";
import { checkApiKeysUpgrade } from "./api-keys-upgrade.js";
import { type AnyKysely, type SqlTables, tableNames } from "./context.js";
import { migrate, sqlMigrations } from "./migrations.js";
import { checkOrganizationsUpgrade } from "./organizations-upgrade.js";
import { freshSqlStores, runSqlStoreSuites } from "./test-databases.js";
import { mysqlDatabase, mysqlTableCopies, useMysql } from "./test-mysql.js";
import { startExpress, startFastify } from "./test-servers.js";

// The conformance suites on MariaDB/MySQL (`useMysql`: MYSQL_URL, root on 127.0.0.1:3306, or a
// server started for this file), in a database of this file's own that is dropped afterwards.
// Skipped, with a loud line, only outside CI on a machine without any MariaDB.
const server = await useMysql();
const database = server ? await mysqlDatabase(server.url) : null;
// The adapter suites' fresh tables, copied from one migrated set (`mysqlTableCopies`).
const copies = database ? mysqlTableCopies(database.db) : null;
beforeAll(async () => {
  if (database) await migrate(database.db);
});
// Dropping the database removes a file per table the suites made (thousands): once beside other
// test files on a busy disk it took longer than the 30 s hook timeout.
afterAll(async () => {
  await database?.drop();
  await server?.stop();
}, 120_000);

describe.skipIf(!database)("mysql", () => {
  runSqlStoreSuites("mysql", () => {
    if (!database) throw new Error("unreachable: skipped without a server");
    return database.db;
  });
  it("migrate - 0005 moves every session's access token to the allowlist: tokens issued before keep working", async () => {
    if (database) await checkAllowlistUpgrade(database.db);
  });
  it("migrate - 0013 adds organizations and the session's active organization: existing sessions have none", async () => {
    if (database) await checkOrganizationsUpgrade(database.db);
  });
  it("migrate - 0014 adds API keys beside an existing organization: its keys go with it", async () => {
    if (database) await checkApiKeysUpgrade(database.db);
  });
  it("fresh tables - a copy of the migrated set is what a migration makes: the same tables, keys and indexes, migrations applied", async () => {
    if (!database || !copies) throw new Error("unreachable: skipped without a server");
    const suffix = randomBytes(5).toString("hex");
    await copies(`c${suffix}_`);
    await migrate(database.db, { tablePrefix: `d${suffix}_` });
    const copied = await tablesOf(database.db, tableNames(`c${suffix}_`));
    expect(copied).toEqual(await tablesOf(database.db, tableNames(`d${suffix}_`)));
    const names = Object.keys(sqlMigrations(tableNames(), "mysql")).sort();
    expect(copied.migrations).toEqual(names.map((name) => ({ name })));
  });
});

/**
 * The tables of `tables` as MariaDB/MySQL describes them (`show create table`), with every table
 * prefix in the description (the table's, its keys' and its indexes' names) written `<prefix>_`;
 * and the rows of the migrations' bookkeeping tables.
 */
async function tablesOf(db: AnyKysely, tables: SqlTables) {
  const described: Record<string, string> = {};
  for (const [key, table] of Object.entries(tables)) {
    const { rows } = await sql<{ "Create Table": string }>`show create table ${sql.id(table)}`.execute(db);
    described[key] = String(rows[0]?.["Create Table"]).replace(/`[a-z][0-9a-f]{10}_/g, "`<prefix>_");
  }
  return {
    described,
    migrations: await db.selectFrom(tables.migrations).select("name").orderBy("name").execute(),
    lock: await db.selectFrom(tables.migrationLock).selectAll().execute(),
  };
}

// Known browsers (the login budget per account and browser) through both adapters, with every
// store on MariaDB: each app a test boots gets tables of its own, copied from one migrated set
// (`mysqlTableCopies`, tens of ms; a migration per app took 0.3 to 15 s, more with every set
// before it in the database, and the file 700 s).
describe.skipIf(!database)("mysql: known browsers", () => {
  for (const [name, start] of [
    ["express + mysql", startExpress],
    ["fastify + mysql", startFastify],
  ] as const) {
    const createStores = (clock: Parameters<typeof freshSqlStores>[1]) => {
      if (!database || !copies) throw new Error("unreachable: skipped without a server");
      return freshSqlStores(database.db, clock, copies);
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
