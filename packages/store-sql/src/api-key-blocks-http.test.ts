import { randomBytes } from "node:crypto";
import type { Clock } from "@portcullis/core";
import { runApiKeyBlocksSuite } from "@portcullis/testing";
import { sql } from "kysely";
import { afterAll, afterEach, beforeAll } from "vitest";
import type { AnyKysely } from "./context.js";
import { createSqlStores } from "./sql-stores.js";
import { plainPostgresDb, postgresDb, usePostgres } from "./test-databases.js";
import { startExpress } from "./test-servers.js";

// A key's requests counted in blocks on two instances over one PostgreSQL schema of this file's
// own, each instance with a pool of its own, every store in SQL (each test's own table prefix).
let server: Awaited<ReturnType<typeof usePostgres>> | undefined;
const schema = `portcullis_test_${randomBytes(6).toString("hex")}`;
const pools: AnyKysely[] = [];

beforeAll(async () => {
  server = await usePostgres();
  const admin = plainPostgresDb(server.url, 1);
  await sql`create schema ${sql.id(schema)}`.execute(admin);
  await admin.destroy();
});
// Each test's two pools are closed when it ends: left open, their idle connections (up to 10 a
// pool, kept 10 s) added up over the file's tests to near the shared server's max_connections of
// 100, and beside other files a connection was refused ("too many clients already": a 500 in CI).
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.destroy();
});
afterAll(async () => {
  if (server) {
    const admin = plainPostgresDb(server.url, 1);
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin);
    await admin.destroy();
  }
  await server?.stop();
});

/** One instance's stores on a pool of its own (the shared test server's longer timeouts). */
function instanceStores(clock: Clock, tablePrefix: string) {
  if (!server) throw new Error("the PostgreSQL is found in beforeAll");
  const db = postgresDb(server.url, schema, 10, {
    statementTimeoutMs: 5_000,
    lockTimeoutMs: 2_500,
    connectionTimeoutMs: 5_000,
  });
  pools.push(db);
  return createSqlStores({ db, clock, tablePrefix });
}

runApiKeyBlocksSuite({
  name: "express + postgres",
  start: startExpress,
  async createInstanceStores(clock: Clock) {
    const tablePrefix = `t${randomBytes(5).toString("hex")}_`;
    const [a, b] = [instanceStores(clock, tablePrefix), instanceStores(clock, tablePrefix)];
    await a.migrate();
    const pick = ({ migrate: _, ...stores }: typeof a) => stores;
    return [pick(a), pick(b)];
  },
});
