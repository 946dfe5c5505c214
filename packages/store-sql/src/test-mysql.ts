import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { freePort } from "@portcullis/testing";
import { Kysely, MysqlDialect, sql } from "kysely";
import { createPool } from "mysql2";
import { createConnection } from "mysql2/promise";
import { type AnyKysely, type SqlTables, tableNames } from "./context.js";
import { migrate } from "./migrations.js";
import { run, serverFolder } from "./test-databases.js";

/** Test support (not part of the package's exports): MariaDB for the tests, each test's own database and tables. */

/** Debian's MariaDB server binary and `mariadb-install-db` (package mariadb-server), or null. */
function mariadbBinaries(): { server: string; installDb: string } | null {
  const server = ["/usr/sbin/mariadbd", "/usr/sbin/mysqld"].find((path) => existsSync(path));
  const installDb = ["/usr/bin/mariadb-install-db", "/usr/bin/mysql_install_db"].find((path) =>
    existsSync(path),
  );
  return server && installDb ? { server, installDb } : null;
}

async function mysqlAnswers(url: string): Promise<boolean> {
  const connection = await createConnection({ uri: url, connectTimeout: 1_000 }).catch(() => null);
  if (!connection) return false;
  try {
    await connection.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await connection.end().catch(() => {});
  }
}

/**
 * A MariaDB server of the test's own: `mariadb-install-db` into a temporary folder (as `nobody`
 * when running as root, like the PostgreSQL server), root without a password, on a free port of
 * 127.0.0.1 and a socket in that folder. `destroy` stops it and removes the folder.
 */
export async function startMariadbServer(): Promise<{ url: string; destroy(): Promise<void> }> {
  const bin = mariadbBinaries();
  if (!bin) throw new Error("No MariaDB server binaries: install Debian's mariadb-server package");
  const { dir, data, asRoot } = await serverFolder("portcullis-mariadb-");
  const common = ["--no-defaults", `--datadir=${data}`, ...(asRoot ? ["--user=nobody"] : [])];
  await run(bin.installDb, [...common, "--auth-root-authentication-method=normal", "--skip-test-db"], {
    cwd: dir,
  });
  const port = await freePort();
  const server = spawn(
    bin.server,
    [
      ...common,
      `--port=${port}`,
      "--bind-address=127.0.0.1",
      `--socket=${join(dir, "mysqld.sock")}`,
      `--pid-file=${join(dir, "mysqld.pid")}`,
      `--log-error=${join(dir, "error.log")}`,
      "--skip-name-resolve",
      "--skip-log-bin",
      "--innodb-buffer-pool-size=32M",
      "--innodb-flush-log-at-trx-commit=0",
    ],
    { cwd: dir, stdio: "ignore" },
  );
  const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
  const destroy = async () => {
    if (server.exitCode === null && server.signalCode === null) server.kill("SIGTERM");
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  const url = `mysql://root@127.0.0.1:${port}/mysql`;
  const deadline = Date.now() + 30_000;
  while (!(await mysqlAnswers(url))) {
    if (server.exitCode !== null || Date.now() > deadline) {
      const log = await readFile(join(dir, "error.log"), "utf8").catch(() => "");
      await destroy();
      throw new Error(`MariaDB did not start on port ${port}:\n${log.slice(-2_000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, destroy };
}

/** Whether this is a CI run (`CI=true`), where a database suite must run, never skip. */
const inCi = () => ["true", "1"].includes(process.env.CI ?? "");

/**
 * The MariaDB/MySQL for the tests: `MYSQL_URL` when set; else root on 127.0.0.1:3306 when it
 * answers (not with `PORTCULLIS_OWN_MARIADB=1`, which tests the next path); else a server started
 * here from Debian's mariadb-server (`stop` removes it). Without any: null after a loud line on
 * stderr, or an error in CI (`CI=true`), where the MariaDB suites must run.
 */
export async function useMysql(): Promise<{ url: string; stop(): Promise<void> } | null> {
  if (process.env.MYSQL_URL) return { url: process.env.MYSQL_URL, stop: async () => {} };
  const local = "mysql://root@127.0.0.1:3306/mysql";
  const own = process.env.PORTCULLIS_OWN_MARIADB === "1";
  if (!own && (await mysqlAnswers(local))) return { url: local, stop: async () => {} };
  if (mariadbBinaries()) {
    const server = await startMariadbServer();
    return { url: server.url, stop: server.destroy };
  }
  const why = `MYSQL_URL is unset, ${own ? "PORTCULLIS_OWN_MARIADB=1 leaves out" : "no server answers on"} 127.0.0.1:3306 and Debian's mariadb-server is not installed (apt-get install mariadb-server)`;
  if (inCi()) throw new Error(`CI=true: the MariaDB/MySQL suites must run, but ${why}`);
  process.stderr.write(`\n!!! The MariaDB/MySQL suites did NOT run (skipped): ${why}. !!!\n\n`);
  return null;
}

/**
 * A database of the test's own (`portcullis_test_<random>`) on the MariaDB/MySQL server at `url`,
 * and a Kysely on it; `drop` drops only that database.
 */
export async function mysqlDatabase(url: string): Promise<{ db: AnyKysely; drop(): Promise<void> }> {
  const admin = new Kysely({
    dialect: new MysqlDialect({ pool: createPool({ uri: url, connectTimeout: 1_000 }) }),
  });
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

/**
 * Fresh tables on a MariaDB/MySQL `db` for `freshSqlStores`: one set migrated under a prefix of
 * its own at the first call, then each prefix's tables copied from it (`create table … like`:
 * columns, keys, indexes, engine and collation; the schema has no foreign keys, which `like`
 * would leave out) with the migrations' bookkeeping rows, so a copy is what `migrate` makes
 * (mysql.test.ts compares the two). A migration per prefix costs more with every prefix before
 * it in the database (Kysely's migrator reads the columns of every table in it from
 * information_schema, several times): on MariaDB 0.2 s in an empty database, 30 s after 150 sets;
 * a copy takes 40 ms whatever the count.
 */
export function mysqlTableCopies(db: AnyKysely): (tablePrefix: string) => Promise<void> {
  let template: Promise<SqlTables> | undefined;
  return async (tablePrefix) => {
    template ??= (async () => {
      const prefix = `m${randomBytes(5).toString("hex")}_`;
      await migrate(db, { tablePrefix: prefix, dialect: "mysql" });
      return tableNames(prefix);
    })();
    const from = await template;
    const to = tableNames(tablePrefix);
    for (const key of Object.keys(from) as (keyof SqlTables)[]) {
      await sql`create table ${sql.id(to[key])} like ${sql.id(from[key])}`.execute(db);
    }
    for (const key of ["migrations", "migrationLock"] as const) {
      await sql`insert into ${sql.id(to[key])} select * from ${sql.id(from[key])}`.execute(db);
    }
  };
}
