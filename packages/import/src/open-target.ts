import { createSqliteDialect, postgresPoolOptions } from "@portcullis/store-sql";
import { Kysely, MysqlDialect, PostgresDialect, sql } from "kysely";
import type { AnyKysely } from "./ledger.js";

/** A target database opened from its URL; `close` ends its connections. */
export interface OpenedTarget {
  db: AnyKysely;
  close(): Promise<void>;
}

/** The target could not be opened or does not answer: the run cannot start. */
export class TargetError extends Error {}

/** Loads an optional peer dependency, or explains which package to add. */
async function driver<T>(name: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    throw new TargetError(`this target needs the ${name} package: add it next to @portcullis/import`, {
      cause: error,
    });
  }
}

/** A Kysely instance for the URL's scheme, its driver loaded on demand. */
async function kyselyFor(url: string, flag: string): Promise<AnyKysely> {
  if (url.startsWith("sqlite:")) {
    const { default: Database } = await driver("libsql", () => import("libsql"));
    const database = new Database(url.slice("sqlite:".length));
    return new Kysely({ dialect: createSqliteDialect({ database, busyTimeoutMs: 5_000 }) });
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    const { default: pg } = await driver("pg", () => import("pg"));
    const pool = new pg.Pool({
      connectionString: url,
      max: 2,
      ...postgresPoolOptions({ statementTimeoutMs: 60_000, connectionTimeoutMs: 5_000 }),
    });
    pool.on("error", () => {});
    return new Kysely({ dialect: new PostgresDialect({ pool }) });
  }
  if (/^(mysql|mariadb):\/\//.test(url)) {
    const { createPool } = await driver("mysql2", () => import("mysql2"));
    const pool = createPool({
      uri: url.replace(/^mariadb:/, "mysql:"),
      connectionLimit: 2,
      connectTimeout: 5_000,
    });
    return new Kysely({ dialect: new MysqlDialect({ pool }) });
  }
  throw new TargetError(`${flag} must be a sqlite:<file>, postgres://… or mysql://… URL`);
}

/**
 * Opens the target database from its URL (`sqlite:<file>`, `postgres://…`, `mysql://…` or
 * `mariadb://…`) through store-sql's own dialect options, and checks that it answers. A URL of no
 * known scheme, a driver that is not installed or a database that does not answer is a
 * `TargetError` with a one-line message. `flag` names the database in those messages: `--target`
 * (default), or `--source` when a source database (Better Auth's, Auth.js's, Supabase's) is opened.
 */
export async function openTarget(url: string, flag = "--target"): Promise<OpenedTarget> {
  const db = await kyselyFor(url, flag);
  try {
    await sql`select 1`.execute(db);
  } catch (error) {
    await db.destroy().catch(() => {});
    const what = flag === "--target" ? "the target" : `the ${flag.replace(/^--/, "")} database`;
    throw new TargetError(`${what} does not answer: ${(error as Error).message}`, { cause: error });
  }
  return { db, close: () => db.destroy() };
}
