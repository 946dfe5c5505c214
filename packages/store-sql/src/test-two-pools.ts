import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Kysely, MysqlDialect } from "kysely";
import { createPool } from "mysql2";
import { afterAll, beforeAll, it } from "vitest";
import type { AnyKysely, SqlDialect } from "./context.js";
import {
  type FreshStore,
  postgresDatabase,
  postgresDb,
  postgresSchemaForFile,
  SHARED_SERVER_TIMEOUTS,
  sqliteDb,
  usePostgres,
} from "./test-databases.js";
import { mysqlDatabase, useMysql } from "./test-mysql.js";

/**
 * Test support (not part of the package's exports): a test file's database on each dialect, made
 * before its tests and removed after them: a SQLite file (`<name>.db` in a temporary folder), a
 * PostgreSQL schema (`postgresSchemaForFile`) and a MariaDB database (`mysql`: null, its tests
 * skipped loudly, only outside CI on a machine without a server), each the file's own.
 */
export async function databasesForFile(name: string) {
  const postgres = postgresSchemaForFile();
  const mysqlServer = await useMysql();
  const mysql = mysqlServer ? await mysqlDatabase(mysqlServer.url) : null;
  let dir: string | undefined;
  let file: AnyKysely | undefined;
  const path = () => {
    if (!dir) throw new Error("databasesForFile: the SQLite file is made in beforeAll");
    return join(dir, `${name}.db`);
  };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), `portcullis-${name}-`));
    file = sqliteDb(path());
  });
  afterAll(async () => {
    await file?.destroy();
    if (dir) await rm(dir, { recursive: true, force: true });
    await mysql?.drop();
    await mysqlServer?.stop();
  });
  return {
    postgres,
    mysql,
    /** A connection to the SQLite file, open for all the file's tests. */
    get file(): AnyKysely {
      if (!file) throw new Error("databasesForFile: the SQLite file is made in beforeAll");
      return file;
    },
    /** Another connection to the SQLite file (the caller closes it). */
    otherFileConnection: () => sqliteDb(path()),
    /** A second pool of 10 connections on the MariaDB database (the caller destroys it). */
    async otherMysqlPool(): Promise<AnyKysely> {
      if (!mysql || !mysqlServer) throw new Error("unreachable: skipped without a server");
      const url = new URL(mysqlServer.url);
      url.pathname = `/${(await mysql.db.selectNoFrom((eb) => eb.fn<string>("database").as("name")).executeTakeFirstOrThrow()).name}`;
      return new Kysely({
        dialect: new MysqlDialect({ pool: createPool({ uri: url.toString(), connectionLimit: 10 }) }),
      }) as AnyKysely;
    },
  };
}

export type DatabasesForFile = Awaited<ReturnType<typeof databasesForFile>>;

/**
 * Three tests, named `name(through)`, each running `check` through two pools of one database at
 * once: two PostgreSQL pools (with the shared server's timeouts) on a database of the test's own,
 * two connections to the file's SQLite file, and two pools on the file's MariaDB database.
 */
export function twoPoolTests(
  databases: DatabasesForFile,
  name: (through: string) => string,
  check: (a: AnyKysely, b: AnyKysely, dialect: SqlDialect) => Promise<void>,
): void {
  it(name("two PostgreSQL pools"), async () => {
    const server = await usePostgres();
    const database = await postgresDatabase(server.url);
    const [a, b] = [
      postgresDb(database.url, undefined, 10, SHARED_SERVER_TIMEOUTS),
      postgresDb(database.url, undefined, 10, SHARED_SERVER_TIMEOUTS),
    ];
    try {
      await check(a, b, "postgres");
    } finally {
      await Promise.all([a.destroy(), b.destroy()]);
      await database.drop();
      await server.stop();
    }
  });

  it(name("two connections to one SQLite file"), async () => {
    const other = databases.otherFileConnection();
    try {
      await check(databases.file, other, "sqlite");
    } finally {
      await other.destroy();
    }
  });

  it.skipIf(!databases.mysql)(name("two MariaDB pools"), async () => {
    if (!databases.mysql) throw new Error("unreachable: skipped without a server");
    const other = await databases.otherMysqlPool();
    try {
      await check(databases.mysql.db, other, "mysql");
    } finally {
      await other.destroy();
    }
  });
}

/**
 * Three tests, `<name> (sqlite)`, `(postgres)` and `(mysql)`: `check` on a new SQLite database in
 * memory, on the file's PostgreSQL schema and on its MariaDB database.
 */
export function onEachDialect(
  databases: DatabasesForFile,
  name: string,
  check: (db: AnyKysely) => Promise<void>,
): void {
  it(`${name} (sqlite)`, async () => {
    const db = sqliteDb();
    try {
      await check(db);
    } finally {
      await db.destroy();
    }
  });

  it(`${name} (postgres)`, async () => {
    await check(databases.postgres.db);
  });

  it.skipIf(!databases.mysql)(`${name} (mysql)`, async () => {
    if (databases.mysql) await check(databases.mysql.db);
  });
}

/**
 * `run` with the store of `made` (on one pool) and the store of the same tables through another
 * pool (`other(tablePrefix)`); the tables are dropped after.
 */
export async function onBothPools<S>(
  made: Promise<FreshStore<S>>,
  other: (tablePrefix: string) => S,
  run: (stores: [S, S]) => Promise<void>,
): Promise<void> {
  const { store, tablePrefix, cleanup } = await made;
  try {
    await run([store, other(tablePrefix)]);
  } finally {
    await cleanup();
  }
}
