import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { chown, mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Clock, HttpHandler } from "@portcullis/core";
import {
  createFakeClock,
  freePort,
  runOAuthStoreSuite,
  runScimStoreSuite,
  runSigningKeyStoreSuite,
  runSsoStoreSuite,
  runStoreSuites,
  runWebhookStoreSuite,
  type StoreSuiteKind,
} from "@portcullis/testing";
import { Kysely, type LogEvent, PostgresDialect, sql } from "kysely";
import Database from "libsql";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { type AnyKysely, detectDialect, type SqlDialect, type SqlTables, tableNames } from "./context.js";
import type { Migration } from "./kysely-migration.js";
import { oauthSchema } from "./oauth-migration.js";
import { discardTimedOutConnections, type PostgresTimeouts, postgresPoolOptions } from "./postgres-pool.js";
import { signingKeysSchema } from "./signing-key-migration.js";
import { createSqlStores } from "./sql-stores.js";
import { createSqliteDialect } from "./sqlite-dialect.js";
import { dropSchemaInBatches } from "./test-schema-drop.js";
import { dropOldSqliteSets } from "./test-sqlite-sets.js";
import { webhooksSchema } from "./webhook-migration.js";

/** Test support (not part of the package's exports): databases for the tests, each test's own. */

export const run = promisify(execFile);

/** SQLite through libsql and store-sql's dialect (a locked file is waited for asynchronously, up to 5 s); files in WAL mode. */
export function sqliteDb(file = ":memory:"): AnyKysely {
  const database = new Database(file);
  if (file !== ":memory:") {
    database.pragma("journal_mode = WAL");
    // No fsync per commit in tests: a killed process loses nothing the OS holds (only a power
    // cut would). The adapter suites migrate a file's tables anew for each test: 3 s a test in
    // CI beside the other files, 0.2 s on a quiet machine; without fsyncs no commit waits on a
    // disk that PostgreSQL and the other files write to.
    database.pragma("synchronous = OFF");
  }
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
export function postgresDb(
  url: string,
  searchPath?: string,
  max = 10,
  timeouts?: PostgresTimeouts,
): AnyKysely {
  const pool = discardTimedOutConnections(
    new pg.Pool({
      connectionString: url,
      max,
      ...postgresPoolOptions(timeouts),
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
 * A temporary folder for a database server of the test's own, and its data folder inside: owned
 * by `nobody` when running as root (`asRoot`), since the servers run as an unprivileged user.
 */
export async function serverFolder(prefix: string): Promise<{ dir: string; data: string; asRoot: boolean }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await chown(dir, 65534, 65534);
  return { dir, data: join(dir, "data"), asRoot };
}

/**
 * A PostgreSQL server of the test's own: `initdb` into a temporary folder (as `nobody` when
 * running as root, since PostgreSQL refuses root), trust auth, on a free port of 127.0.0.1.
 * `stop` and `start` stop and restart it on the same port (the outage tests); `destroy` stops it
 * and removes the folder.
 */
export async function startPostgresServer() {
  const bin = postgresBinDir();
  if (!bin) throw new Error("No PostgreSQL server binaries: install Debian's postgresql package");
  const { dir, data, asRoot } = await serverFolder("portcullis-pg-");
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
  /**
   * Sends `signal` to the server and each of its processes: SIGSTOP freezes it (a hang: its
   * connections stay open, nothing runs), SIGCONT resumes it. The postmaster first, so it starts
   * no new process meanwhile.
   */
  const signal = async (signal: "SIGSTOP" | "SIGCONT") => {
    const main = Number((await readFile(join(data, "postmaster.pid"), "utf8")).split("\n")[0]);
    process.kill(main, signal);
    const { stdout } = await run("pgrep", ["-P", String(main)]).catch(() => ({ stdout: "" }));
    for (const pid of stdout.split("\n").filter(Boolean)) {
      try {
        process.kill(Number(pid), signal);
      } catch (error) {
        // A backend that ended between pgrep and here (a closed connection's) needs no signal.
        if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
      }
    }
  };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    signal,
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

/**
 * Timeouts of the pools on the shared test server: the recommended ones times five (it is busy
 * with every test file at once in CI: a slow commit is load, not a fault under test).
 */
export const SHARED_SERVER_TIMEOUTS: PostgresTimeouts = {
  statementTimeoutMs: 5_000,
  lockTimeoutMs: 2_500,
  connectionTimeoutMs: 5_000,
};

/** A schema of the test's own on the shared server, and a Kysely whose tables live there; `drop` removes only it. */
export async function postgresSchema(url: string): Promise<{ db: AnyKysely; drop(): Promise<void> }> {
  const schema = `portcullis_test_${randomBytes(6).toString("hex")}`;
  // Without the stores' short timeouts: dropping a schema of many tables (the adapter suites'
  // fresh prefixes) takes longer than a request may.
  const admin = plainPostgresDb(url, 1);
  await sql`create schema ${sql.id(schema)}`.execute(admin);
  // The shared server is busy with every test file at once in CI (and fsyncs when it is the
  // machine's own): a commit waiting over a second for the disk is load, not a fault under test.
  // The fault tests use servers of their own with the recommended timeouts (`postgresDb`).
  const db = postgresDb(url, schema, 10, SHARED_SERVER_TIMEOUTS);
  return {
    db,
    async drop() {
      await db.destroy();
      await dropSchemaInBatches(admin, schema);
      await admin.destroy();
    },
  };
}

/**
 * A test file's PostgreSQL (`usePostgres`) and a schema of the file's own on it (`postgresSchema`),
 * made before the file's tests and dropped after them, the server stopped when one was started here.
 */
export function postgresSchemaForFile(): { readonly db: AnyKysely } {
  let server: Awaited<ReturnType<typeof usePostgres>> | undefined;
  let schema: Awaited<ReturnType<typeof postgresSchema>> | undefined;
  beforeAll(async () => {
    server = await usePostgres();
    schema = await postgresSchema(server.url);
  });
  afterAll(async () => {
    await schema?.drop();
    await server?.stop();
  });
  return {
    get db() {
      if (!schema) throw new Error("postgresSchemaForFile: the schema is made in beforeAll");
      return schema.db;
    },
  };
}

/** A fresh database on the PostgreSQL of `usePostgres` (for URLs that other processes open); `drop` removes only it. */
export async function postgresDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `portcullis_test_${randomBytes(6).toString("hex")}`;
  // Without the stores' short timeouts: creating and dropping a database waits for a checkpoint,
  // which takes seconds on a machine busy with other tests.
  const admin = plainPostgresDb(serverUrl, 1);
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

/** The stores `runSqlStoreSuites` runs a conformance suite of: all but the webhooks and the audit log. */
const SQL_SUITE_KINDS: StoreSuiteKind[] = [
  "users",
  "sessions",
  "allowlist",
  "singleUseTokens",
  "cooldowns",
  "identities",
  "activity",
  "passkeys",
  "organizations",
  "apiKeys",
];

/**
 * Every store's conformance suite, named `name`, on new stores over `db()` (a migrated database)
 * with a fake clock; the webhook, signing key and OAuth stores on tables of each test's own
 * (`freshWebhookStore`, `freshSigningKeyStore`, `freshOAuthStore`); the SSO and SCIM stores on the shared ones.
 */
export function runSqlStoreSuites(name: string, db: () => AnyKysely): void {
  runStoreSuites(name, SQL_SUITE_KINDS, () => {
    const clock = createFakeClock();
    return { stores: createSqlStores({ db: db(), clock }), advance: clock.advance, now: clock.now };
  });
  runWebhookStoreSuite({ name, create: () => freshWebhookStore(db()) });
  runSigningKeyStoreSuite({ name, create: () => freshSigningKeyStore(db()) });
  runOAuthStoreSuite({ name, create: () => freshOAuthStore(db()) });
  // Its tests make their own organizations, ids and domains: they share the migrated tables.
  runSsoStoreSuite({
    name,
    create: () => {
      const clock = createFakeClock();
      return { store: createSqlStores({ db: db(), clock }).sso, advance: clock.advance, now: clock.now };
    },
  });
  // Likewise: its tests make their own connections and ids.
  runScimStoreSuite({
    name,
    create: () => {
      const clock = createFakeClock();
      return { store: createSqlStores({ db: db(), clock }).scim, advance: clock.advance, now: clock.now };
    },
  });
}

/** Tables under a prefix of their own, a store on them, and what drops them. */
export interface FreshStore<S> {
  store: S;
  tablePrefix: string;
  cleanup(): Promise<void>;
}

/**
 * The store `pick` takes of `createSqlStores` on empty tables of its own on `db` (for suites that
 * list everything, so each test needs its own): only the tables of `schema` made, under a new
 * prefix starting with `letter`, dropped after the test.
 */
export async function storeOnOwnTables<S>(
  db: AnyKysely,
  letter: string,
  schema: (tables: SqlTables, dialect: SqlDialect) => Migration,
  pick: (stores: ReturnType<typeof createSqlStores>) => S,
  sweepBatchRows?: number,
): Promise<FreshStore<S>> {
  const tablePrefix = `${letter}${randomBytes(5).toString("hex")}_`;
  const tables = schema(tableNames(tablePrefix), detectDialect(db));
  await tables.up(db);
  return {
    store: pick(createSqlStores({ db, tablePrefix, ...(sweepBatchRows ? { sweepBatchRows } : {}) })),
    tablePrefix,
    cleanup: async () => {
      await tables.down?.(db);
    },
  };
}

/** A signing key store on the table of `0017_signing_keys` of its own (`storeOnOwnTables`). */
export const freshSigningKeyStore = (db: AnyKysely) =>
  storeOnOwnTables(db, "k", signingKeysSchema, (stores) => stores.signingKeys);

/** An OAuth store on the four tables of `0018_oauth` of its own (`storeOnOwnTables`). */
export const freshOAuthStore = (db: AnyKysely) =>
  storeOnOwnTables(db, "o", oauthSchema, (stores) => stores.oauth);

/** A webhook store on the two tables of `0016_webhooks` of its own (`storeOnOwnTables`). */
export const freshWebhookStore = (db: AnyKysely, sweepBatchRows?: number) =>
  storeOnOwnTables(db, "w", webhooksSchema, (stores) => stores.webhooks, sweepBatchRows);

/** Makes the tables of a prefix instead of a migration. */
type MakeTables = (tablePrefix: string) => Promise<unknown>;

/**
 * Stores under a table prefix of their own on `db`, migrated before their first call: for suites
 * that want fresh stores synchronously (the adapter suite's `createStores`); on SQLite, older sets
 * go (`dropOldSqliteSets`). `makeTables` makes the prefix's tables instead (`mysqlTableCopies`).
 * No audit log (every event would be written) unless asked for (`freshSqlStoresWithAuditLog`).
 */
export function freshSqlStores(db: AnyKysely, clock: Clock, makeTables?: MakeTables) {
  const { auditLog: _, ...stores } = freshSqlStoresWithAuditLog(db, clock, makeTables);
  return stores;
}

/** `freshSqlStores` with the audit log too (webhooks deliver from it). */
export function freshSqlStoresWithAuditLog(db: AnyKysely, clock: Clock, makeTables?: MakeTables) {
  const tablePrefix = `t${randomBytes(5).toString("hex")}_`;
  const stores = createSqlStores({ db, clock, tablePrefix });
  const ready = makeTables?.(tablePrefix) ?? dropOldSqliteSets(db, tablePrefix).then(() => stores.migrate());
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
    joint: migrated(stores.joint),
    singleUseTokens: migrated(stores.singleUseTokens),
    cooldowns: migrated(stores.cooldowns),
    activity: migrated(stores.activity),
    passkeys: migrated(stores.passkeys),
    organizations: migrated(stores.organizations),
    apiKeys: migrated(stores.apiKeys),
    auditLog: migrated(stores.auditLog),
    webhooks: migrated(stores.webhooks),
    signingKeys: migrated(stores.signingKeys),
    oauth: migrated(stores.oauth),
    sso: migrated(stores.sso),
    scim: migrated(stores.scim),
  };
}

export interface SendOptions {
  token?: string;
  body?: unknown;
}

/** One request through the core's HTTP handler (as a loopback client of localhost:3000): status and parsed body. */
export async function sendTo(handler: HttpHandler, method: string, path: string, options: SendOptions = {}) {
  const headers: Record<string, string> = { host: "localhost:3000" };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] = "application/json";
    headers["content-length"] = String(Buffer.byteLength(body));
  }
  const response = await handler.handle({
    method,
    url: `/api/auth${path}`,
    headers,
    body,
    remoteAddress: "127.0.0.1",
  });
  if (!response) throw new Error(`no route for ${method} ${path}`);
  return { status: response.status, body: response.body ? JSON.parse(String(response.body)) : null };
}

/** The statements a Kysely made by `counted` sent while `on`. */
export type Counting = { on: boolean; statements: string[] };

/** A Kysely whose statements are counted while `counting.on`. */
export function counted(make: (log: (event: LogEvent) => void) => AnyKysely) {
  const counting: Counting = { on: false, statements: [] };
  const db = make((event) => {
    if (counting.on && event.level === "query") counting.statements.push(event.query.sql);
  });
  return { db, counting };
}

/** A counting Kysely (see `counted`) on a new SQLite database in memory. */
export const countedSqlite = () =>
  counted(
    (log) =>
      new Kysely({ dialect: createSqliteDialect({ database: new Database(":memory:") }), log }) as AnyKysely,
  );

/** `run`'s answer and the statements it sent through `counting`'s Kysely. */
export async function countStatements<T>(counting: Counting, run: () => Promise<T>) {
  counting.statements = [];
  counting.on = true;
  try {
    const answer = await run();
    return { answer, statements: [...counting.statements] };
  } finally {
    counting.on = false;
  }
}

/**
 * A Kysely on a plain pool (no timeouts, no prepared statements) at `url`, with `log`. The pool
 * ignores its idle connections' errors: a database dropped `with (force)` right after `destroy`
 * (whose promise resolves before every socket has closed) terminates them, and an unhandled
 * "error" event of the pool is an uncaught exception that fails the whole run.
 */
export function plainPostgresDb(url: string, max: number, log?: (event: LogEvent) => void): AnyKysely {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on("error", () => {});
  return new Kysely({ dialect: new PostgresDialect({ pool }), ...(log ? { log } : {}) }) as AnyKysely;
}

/** A PostgreSQL database of the test's own, with a counting Kysely on it; `close` drops it. */
export async function countedPostgres() {
  const server = await usePostgres();
  const database = await postgresDatabase(server.url);
  const made = counted((log) => plainPostgresDb(database.url, 4, log));
  return {
    ...made,
    async close() {
      await made.db.destroy();
      await database.drop();
      await server.stop();
    },
  };
}
