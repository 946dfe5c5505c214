import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import {
  createSqliteDialect,
  createSqlStores,
  discardTimedOutConnections,
  postgresPoolOptions,
  type SqlStores,
} from "@portcullis/store-sql";
import { Kysely, PostgresDialect } from "kysely";
import Database from "libsql";
import pg from "pg";
import { ConfigError } from "./config.js";

/** How often expired sessions, tokens, cooldowns and counters are deleted (they read as absent anyway). */
const SWEEP_INTERVAL_MS = 5 * 60_000;

export interface ExampleDatabase {
  stores: SqlStores;
  close(): Promise<void>;
}

/**
 * Opens DATABASE_URL (`sqlite:<file>`, `sqlite::memory:` or `postgres://…`) through Kysely, runs
 * store-sql's migrations and sweeps expired rows every few minutes. PostgreSQL cancels a statement
 * that waits for a lock over 2 s or runs over 5 s (store-sql's `postgresPoolOptions`), so a locked
 * table answers 500 codes, its connections come back clean and no write lands after its 500; a
 * connection takes at most 1 s to open, so an outage answers 500 codes instead of hanging. SQLite
 * waits for another process's lock asynchronously (store-sql's `createSqliteDialect`), up to 5 s;
 * several processes may open and migrate one file at once. A database that cannot be opened or
 * migrated is a `ConfigError` (a one-line message at start, no stack trace).
 */
export async function openDatabase(url: string): Promise<ExampleDatabase> {
  // biome-ignore lint/suspicious/noExplicitAny: store-sql's tables are not part of a host database type here.
  let db: Kysely<any>;
  if (url.startsWith("sqlite:")) {
    const file = url.slice("sqlite:".length);
    let database: Database.Database;
    try {
      if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
      database = new Database(file);
    } catch (error) {
      throw new ConfigError(`DATABASE_URL cannot be used: ${(error as Error).message}`, { cause: error });
    }
    // WAL: reads never wait for a writer; writes wait for another process's lock without blocking.
    // The dialect switches the file to WAL on its first statement (in `migrate` below), waiting
    // for another process that opens or migrates the same file at the same moment.
    db = new Kysely({ dialect: createSqliteDialect({ database, busyTimeoutMs: 5_000, journalMode: "wal" }) });
  } else {
    const pool = discardTimedOutConnections(
      new pg.Pool({ connectionString: url, max: 10, ...postgresPoolOptions() }),
    );
    // An idle connection that the server dropped emits "error": log it, never crash the process.
    pool.on("error", (error) => console.error(`PostgreSQL connection lost: ${error.message}`));
    db = new Kysely({ dialect: new PostgresDialect({ pool }) });
  }
  const stores = createSqlStores({ db });
  try {
    await stores.migrate();
  } catch (error) {
    await db.destroy();
    throw new ConfigError(`DATABASE_URL cannot be used: ${(error as Error).message}`, { cause: error });
  }
  const timer = setInterval(() => stores.sweep().catch(() => {}), SWEEP_INTERVAL_MS);
  timer.unref();
  return {
    stores,
    async close() {
      clearInterval(timer);
      await db.destroy();
    },
  };
}
