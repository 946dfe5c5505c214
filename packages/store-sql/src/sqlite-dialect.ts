import { setTimeout as sleep } from "node:timers/promises";
import {
  CompiledQuery,
  type DatabaseConnection,
  type QueryResult,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
} from "kysely";

export interface SqliteDialectOptions extends SqliteDialectConfig {
  /**
   * How long a statement keeps trying while another connection (another process) holds the
   * database's write lock, in milliseconds, before it fails with `SQLITE_BUSY`. The waiting is
   * asynchronous: the event loop keeps running. Default 5000.
   */
  busyTimeoutMs?: number;
}

/**
 * Longest one attempt waits inside SQLite (`PRAGMA busy_timeout`): the drivers of the
 * better-sqlite3 API run synchronously, so this is how long one attempt can block the event loop.
 */
export const SQLITE_ATTEMPT_BUSY_MS = 20;
/** Longest pause between two attempts. */
const MAX_PAUSE_MS = 50;

/**
 * Kysely's `SqliteDialect` (better-sqlite3's API: better-sqlite3, libsql) for a database file that
 * other connections may lock. A locked database is waited for without blocking the event loop:
 * each attempt waits at most 20 ms inside SQLite (the dialect sets `busy_timeout`), then the
 * statement is tried again after an asynchronous pause, until `busyTimeoutMs` has passed.
 * Transactions start with `BEGIN IMMEDIATE` (they take the write lock, retried the same way, before
 * their first statement), so a statement inside a transaction never meets a lock it cannot retry.
 */
export function createSqliteDialect(options: SqliteDialectOptions): SqliteDialect {
  const { busyTimeoutMs = 5_000, ...config } = options;
  if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new RangeError(`busyTimeoutMs must be a non-negative integer, not ${busyTimeoutMs}`);
  }
  return new RetryingSqliteDialect(config, busyTimeoutMs);
}

class RetryingSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #busyTimeoutMs: number;

  constructor(config: SqliteDialectConfig, busyTimeoutMs: number) {
    super(config);
    this.#config = config;
    this.#busyTimeoutMs = busyTimeoutMs;
  }

  override createDriver() {
    return new RetryingSqliteDriver(this.#config, this.#busyTimeoutMs);
  }
}

class RetryingSqliteDriver extends SqliteDriver {
  readonly #busyTimeoutMs: number;
  #connection: (DatabaseConnection & { inner: DatabaseConnection }) | undefined;

  constructor(config: SqliteDialectConfig, busyTimeoutMs: number) {
    super({
      ...config,
      onCreateConnection: async (connection) => {
        await connection.executeQuery(CompiledQuery.raw(`pragma busy_timeout = ${SQLITE_ATTEMPT_BUSY_MS}`));
        await config.onCreateConnection?.(connection);
      },
    });
    this.#busyTimeoutMs = busyTimeoutMs;
  }

  /** Kysely 0.28's driver takes its connection lock here (0.29's runtime does): always ask it. */
  override async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await super.acquireConnection();
    if (this.#connection?.inner !== inner) {
      const busyTimeoutMs = this.#busyTimeoutMs;
      this.#connection = {
        inner,
        executeQuery: <R>(query: CompiledQuery) =>
          retryWhileBusy(() => inner.executeQuery<R>(query), busyTimeoutMs),
        streamQuery: (query, chunkSize) => inner.streamQuery(query, chunkSize),
      };
    }
    return this.#connection;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }
}

/** SQLite's "database is locked": nothing ran, the statement can be tried again. */
const isBusy = (error: unknown) => {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === "SQLITE_BUSY" || code === "SQLITE_LOCKED";
};

async function retryWhileBusy<R>(attempt: () => Promise<QueryResult<R>>, busyTimeoutMs: number) {
  const deadline = Date.now() + busyTimeoutMs;
  for (let pause = 2; ; pause = Math.min(pause * 2, MAX_PAUSE_MS)) {
    try {
      return await attempt();
    } catch (error) {
      if (!isBusy(error) || Date.now() + pause > deadline) throw error;
      await sleep(pause);
    }
  }
}
