import { entriesNaming, fillAndEraseAccount } from "@portcullis/testing";
import { afterAll, describe, expect, it } from "vitest";
import type { AnyKysely } from "./context.js";
import { createSqlStores } from "./sql-stores.js";
import { postgresSchema, sqliteDb, usePostgres } from "./test-databases.js";
import { mysqlDatabase, useMysql } from "./test-mysql.js";
import { wholeDatabaseTables } from "./whole-database-tables.js";

// After DELETE /me (auth.account.delete) no row of any of the stores' tables names the user:
// every table of the prefix read whole, on SQLite, PostgreSQL and (when one runs) MariaDB.

/** Every row of every table whose name starts with `prefix`, one JSON string each. */
async function dump(db: AnyKysely, prefix: string): Promise<string[]> {
  const tables = (await wholeDatabaseTables(db)).filter((table) => table.name.startsWith(prefix));
  expect(tables.length).toBeGreaterThanOrEqual(7);
  const rows: string[] = [];
  for (const table of tables) {
    for (const row of await db.selectFrom(table.name).selectAll().execute())
      rows.push(`${table.name}: ${JSON.stringify(row)}`);
  }
  return rows;
}

async function eraseAndScan(db: AnyKysely): Promise<void> {
  const tablePrefix = `e${Math.random().toString(36).slice(2, 8)}_`;
  const stores = createSqlStores({ db, tablePrefix });
  await stores.migrate();
  const { erased, kept } = await fillAndEraseAccount({
    users: stores.users,
    sessions: stores.sessions,
    allowlist: stores.allowlist,
    singleUseTokens: stores.singleUseTokens,
    cooldowns: stores.cooldowns,
    activity: stores.activity,
    identities: stores.identities,
    apiKeys: stores.apiKeys,
    auditLog: stores.auditLog,
  });
  const everything = await dump(db, tablePrefix);
  // The audit log keeps what happened to the account, under its id, until its retention ends
  // (docs/audit-log.md, "Deleted accounts"): never its address or name.
  const audit = everything.filter((row) => row.startsWith(`${tablePrefix}audit_`));
  const rows = everything.filter((row) => !row.startsWith(`${tablePrefix}audit_`));
  expect(entriesNaming(rows, erased.names)).toEqual([]);
  expect(entriesNaming(rows, kept.names).length).toBeGreaterThan(0);
  expect(entriesNaming(audit, [erased.email, erased.requestedEmail])).toEqual([]);
  expect(entriesNaming(audit, [erased.userId]).some((row) => row.includes("user.deleted"))).toBe(true);
}

const mysql = await useMysql();
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

describe("account erasure: sql", () => {
  it("account.delete - sqlite: no row of any table names the user", async () => {
    const db = sqliteDb();
    closers.push(() => db.destroy());
    await eraseAndScan(db);
  });

  it("account.delete - postgres: no row of any table names the user", async () => {
    const server = await usePostgres();
    closers.push(server.stop);
    const schema = await postgresSchema(server.url);
    closers.push(schema.drop);
    await eraseAndScan(schema.db);
  });

  it.skipIf(!mysql)("account.delete - mysql: no row of any table names the user", async () => {
    if (!mysql) return;
    closers.push(mysql.stop);
    const database = await mysqlDatabase(mysql.url);
    closers.push(database.drop);
    await eraseAndScan(database.db);
  });
});
