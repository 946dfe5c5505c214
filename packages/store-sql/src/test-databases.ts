import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { chown, mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Clock } from "@portcullis/core";
import { freePort } from "@portcullis/testing";
import { Kysely, MysqlDialect, PostgresDialect, sql } from "kysely";
import Database from "libsql";
import { createPool } from "mysql2";
import pg from "pg";
import type { AnyKysely } from "./context.js";
import { discardTimedOutConnections, postgresPoolOptions } from "./postgres-pool.js";
import { createSqlStores } from "./sql-stores.js";
import { createSqliteDialect } from "./sqlite-dialect.js";

/** Test support (not part of the package's exports): databases for the tests, each test's own. */

const run = promisify(execFile);

export function fakeClock(start = 1_700_000_000_000) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

/** SQLite through libsql and store-sql's dialect (a locked file is waited for asynchronously, up to 5 s); files in WAL mode. */
export function sqliteDb(file = ":memory:"): AnyKysely {
  const database = new Database(file);
  if (file !== ":memory:") database.pragma("journal_mode = WAL");
  return new Kysely({ dialect: createSqliteDialect({ database }) });
}

/**
 * Another process holding the write lock of the SQLite file (`BEGIN IMMEDIATE`) for `ms`, as a
 * second app process would: resolves once it holds the lock; `released` resolves when it let go.
 */
export async function lockSqliteFile(file: string, ms: number): Promise<{ released: Promise<void> }> {
  const libsql = createRequire(import.meta.url).resolve("libsql");
  const script = `const Database = require(${JSON.stringify(libsql)});
const db = new Database(${JSON.stringify(file)});
db.exec("begin immediate");
process.stdout.write("locked\\n");
setTimeout(() => { db.exec("commit"); db.close(); }, ${ms});`;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  const released = new Promise<void>((resolve, reject) =>
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`lock holder exited ${code}`)))),
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout.once("data", () => resolve());
    released.catch(reject);
  });
  return { released };
}

/** A pg-backed Kysely with the recommended timeouts (`postgresPoolOptions`): it fails fast when the server is gone. */
export function postgresDb(url: string, searchPath?: string, max = 10): AnyKysely {
  const pool = discardTimedOutConnections(
    new pg.Pool({
      connectionString: url,
      max,
      ...postgresPoolOptions(),
      ...(searchPath ? { options: `-c search_path=${searchPath}` } : {}),
    }),
  );
  // An idle client whose server went away emits "error"; unhandled, it would end the process.
  pool.on("error", () => {});
  return new Kysely({ dialect: new PostgresDialect({ pool }) });
}

/** One plain connection (no timeouts) for a test's own statements: locks, counts, pg_stat_activity. */
export async function postgresClient(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  await client.connect();
  return client;
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** The newest PostgreSQL server binaries on this machine (Debian's layout), or null. */
function postgresBinDir(): string | null {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((version) => existsSync(join(root, version, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], "bin") : null;
}

export const canStartPostgres = postgresBinDir() !== null;

/**
 * A PostgreSQL server of the test's own: `initdb` into a temporary folder (as `nobody` when
 * running as root, since PostgreSQL refuses root), trust auth, on a free port of 127.0.0.1.
 * `stop` and `start` stop and restart it on the same port (the outage tests); `destroy` stops it
 * and removes the folder.
 */
export async function startPostgresServer() {
  const bin = postgresBinDir();
  if (!bin) throw new Error("No PostgreSQL server binaries: install Debian's postgresql package");
  const dir = await mkdtemp(join(tmpdir(), "portcullis-pg-"));
  const data = join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await chown(dir, 65534, 65534);
  const pgRun = (command: string, args: string[]) =>
    asRoot
      ? run("runuser", ["-u", "nobody", "--", join(bin, command), ...args], { cwd: dir })
      : run(join(bin, command), args, { cwd: dir });
  await pgRun("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  const start = async () => {
    await pgRun("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "30", "start"]);
  };
  const stop = async () => {
    await pgRun("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => {});
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    async destroy() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The PostgreSQL for the tests: `PG_URL` when set, else one on 127.0.0.1:5432 that answers
 * (user postgres, database test), else a server started here (removed by `stop`).
 */
export async function usePostgres(): Promise<{ url: string; stop(): Promise<void> }> {
  if (process.env.PG_URL) return { url: process.env.PG_URL, stop: async () => {} };
  const local = "postgres://postgres@127.0.0.1:5432/test";
  if (await answers(local)) return { url: local, stop: async () => {} };
  const server = await startPostgresServer();
  return { url: server.url, stop: server.destroy };
}

/** A schema of the test's own on the shared server, and a Kysely whose tables live there; `drop` removes only it. */
export async function postgresSchema(url: string): Promise<{ db: AnyKysely; drop(): Promise<void> }> {
  const schema = `portcullis_test_${randomBytes(6).toString("hex")}`;
  const admin = postgresDb(url);
  await sql`create schema ${sql.id(schema)}`.execute(admin);
  const db = postgresDb(url, schema);
  return {
    db,
    async drop() {
      await db.destroy();
      await sql`drop schema ${sql.id(schema)} cascade`.execute(admin);
      await admin.destroy();
    },
  };
}

/** MariaDB/MySQL: `MYSQL_URL`, else root on 127.0.0.1:3306 when it answers; null when there is none. */
export async function mysqlDatabase(): Promise<{ db: AnyKysely; drop(): Promise<void> } | null> {
  const url = process.env.MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test";
  const admin = new Kysely({
    dialect: new MysqlDialect({ pool: createPool({ uri: url, connectTimeout: 1_000 }) }),
  });
  try {
    await sql`select 1`.execute(admin);
  } catch {
    await admin.destroy();
    return null;
  }
  const name = `portcullis_test_${randomBytes(6).toString("hex")}`;
  await sql`create database ${sql.id(name)}`.execute(admin);
  const target = new URL(url);
  target.pathname = `/${name}`;
  const db = new Kysely({
    dialect: new MysqlDialect({ pool: createPool({ uri: target.toString(), connectionLimit: 10 }) }),
  });
  return {
    db,
    async drop() {
      await db.destroy();
      await sql`drop database ${sql.id(name)}`.execute(admin);
      await admin.destroy();
    },
  };
}

/** A fresh database on the PostgreSQL of `usePostgres` (for URLs that other processes open); `drop` removes only it. */
export async function postgresDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `portcullis_test_${randomBytes(6).toString("hex")}`;
  const admin = postgresDb(serverUrl);
  await sql`create database ${sql.id(name)}`.execute(admin);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin);
      await admin.destroy();
    },
  };
}

/** The stores of `createSqlStores` that the conformance suites take, by name. */
export type StoreKinds = Pick<
  ReturnType<typeof createSqlStores>,
  "users" | "sessions" | "allowlist" | "singleUseTokens" | "cooldowns" | "identities"
>;

/**
 * Stores under a table prefix of their own on `db`, migrated before their first call: for suites
 * that want fresh stores synchronously (the adapter suite's `createStores`).
 */
export function freshSqlStores(db: AnyKysely, clock: Clock) {
  const stores = createSqlStores({ db, clock, tablePrefix: `t${randomBytes(5).toString("hex")}_` });
  const ready = stores.migrate();
  const migrated = <S extends object>(store: S): S =>
    Object.fromEntries(
      Object.entries(store).map(([name, method]) => [
        name,
        async (...args: unknown[]) => {
          await ready;
          return (method as (...args: unknown[]) => unknown).apply(store, args);
        },
      ]),
    ) as S;
  return {
    users: migrated(stores.users),
    sessions: migrated(stores.sessions),
    allowlist: migrated(stores.allowlist),
    singleUseTokens: migrated(stores.singleUseTokens),
    cooldowns: migrated(stores.cooldowns),
  };
}
