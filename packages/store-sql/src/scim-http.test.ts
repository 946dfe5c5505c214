import type { Clock } from "@portcullis/core";
import { createSso } from "@portcullis/sso";
import { runScimAdapterSuite, type ScimSuiteOptions } from "@portcullis/testing";
import { afterAll, describe } from "vitest";
import type { AnyKysely } from "./context.js";
import { migrate } from "./migrations.js";
import { createSqlStores } from "./sql-stores.js";
import { freshSqlStores, postgresSchemaForFile, sqliteDb } from "./test-databases.js";
import { mysqlDatabase, mysqlTableCopies, useMysql } from "./test-mysql.js";
import { startExpress, startFastify } from "./test-servers.js";

// SCIM 2.0 per SSO connection with every store in SQL (each test's own tables): Express on
// PostgreSQL, Fastify on SQLite, and both on MariaDB/MySQL (`useMysql`; skipped, with a loud
// line, only outside CI on a machine without any). 20 concurrent group PATCHes and 10 concurrent
// POSTs of one user meet each database's locking.

/**
 * `freshSqlStores` and the identity store on the same tables (`createAuth` requires one while
 * `sso` is set): the tables made by `makeTables` (a migration by default), the identity store's
 * calls waiting for them as the other stores' do.
 */
function storesWithIdentities(
  db: AnyKysely,
  clock: Clock,
  makeTables = (tablePrefix: string): Promise<unknown> => migrate(db, { tablePrefix }),
) {
  let tables: Promise<unknown> = Promise.resolve();
  let tablePrefix = "";
  const stores = freshSqlStores(db, clock, (prefix) => {
    tablePrefix = prefix;
    tables = makeTables(prefix);
    return tables;
  });
  const afterTables = <S extends object>(store: S): S =>
    Object.fromEntries(
      Object.entries(store).map(([name, method]) => [
        name,
        async (...args: unknown[]) => {
          await tables;
          return (method as (...args: unknown[]) => unknown).apply(store, args);
        },
      ]),
    ) as S;
  return { ...stores, identities: afterTables(createSqlStores({ db, clock, tablePrefix }).identities) };
}

const sso: ScimSuiteOptions["sso"] = (setup) => createSso(setup);

const postgres = postgresSchemaForFile();
runScimAdapterSuite({
  name: "express + postgres",
  start: startExpress,
  sso,
  createStores: (clock) => storesWithIdentities(postgres.db, clock),
});

const sqlite = sqliteDb();
afterAll(() => sqlite.destroy());
runScimAdapterSuite({
  name: "fastify + sqlite",
  start: startFastify,
  sso,
  createStores: (clock) => storesWithIdentities(sqlite, clock),
});

// On MariaDB/MySQL, in a database of this file's own dropped afterwards: each app's tables copied
// from one migrated set (`mysqlTableCopies`), as mysql.test.ts's adapter suites do.
const server = await useMysql();
const database = server ? await mysqlDatabase(server.url) : null;
const copies = database ? mysqlTableCopies(database.db) : null;
afterAll(async () => {
  await database?.drop();
  await server?.stop();
});

describe.skipIf(!database)("mysql", () => {
  for (const [name, start] of [
    ["express + mysql", startExpress],
    ["fastify + mysql", startFastify],
  ] as const) {
    runScimAdapterSuite({
      name,
      start,
      sso,
      createStores: (clock) => {
        if (!database || !copies) throw new Error("unreachable: skipped without a server");
        return storesWithIdentities(database.db, clock, copies);
      },
    });
  }
});
