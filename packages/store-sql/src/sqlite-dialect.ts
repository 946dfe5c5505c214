import { setTimeout as sleep } from "node:timers/promises";
import {
  CompiledQuery,
  type DatabaseConnection,
  type QueryResult,
  type SqliteDatabase,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
  type SqliteStatement,
} from "kysely";

export interface SqliteDialectOptions extends SqliteDialectConfig {
  /**
   * How long a statement keeps trying while another connection (another process) holds the
   * database's write lock, in milliseconds, before it fails with `SQLITE_BUSY`. The waiting is
   * asynchronous: the event loop keeps running. Default 5000.
   */
  busyTimeoutMs?: number;
  /**
   * The journal mode the dialect sets on its connection before its first statement
   * (`PRAGMA journal_mode`), waiting for a lock held by another process like every statement (a
   * process switching a new file to WAL holds it for a moment). `"wal"`, the recommended mode
   * for a file: reads never wait for a writer. Default: unchanged (set it yourself, or SQLite's
   * own default, `delete`). Ignored for `:memory:` databases.
   */
  journalMode?: "wal" | "delete" | "truncate" | "persist";
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
 * other connections (other processes) may lock. A locked database is waited for without blocking
 * the event loop: each attempt waits at most 20 ms inside SQLite (the dialect sets
 * `busy_timeout`), then it is tried again after an asynchronous pause, until `busyTimeoutMs` has
 * passed; then it fails with the busy error, its code (`SQLITE_BUSY`…) in its message.
 *
 * Only lock-taking statements meet a lock: transactions start with `BEGIN IMMEDIATE`, and a
 * statement that writes outside a transaction runs in one of its own, so the write lock is taken
 * by `BEGIN IMMEDIATE` (run through `exec`, which ends the statement whatever happens) and no
 * statement waits for it halfway. This matters with libsql: a prepared statement that fails with
 * `SQLITE_BUSY` is left in progress on the connection until it is run again or garbage
 * collected, and while a write is in progress every `COMMIT` on that connection fails ("cannot
 * commit transaction - SQL statements in progress", also `SQLITE_BUSY`).
 */
export function createSqliteDialect(options: SqliteDialectOptions): SqliteDialect {
  const { busyTimeoutMs = 5_000, journalMode, ...config } = options;
  if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new RangeError(`busyTimeoutMs must be a non-negative integer, not ${busyTimeoutMs}`);
  }
  if (journalMode !== undefined && !JOURNAL_MODES.includes(journalMode)) {
    throw new RangeError(`journalMode must be one of ${JOURNAL_MODES.join(", ")}, not ${journalMode}`);
  }
  return new RetryingSqliteDialect(config, { busyTimeoutMs, journalMode });
}

const JOURNAL_MODES: readonly string[] = ["wal", "delete", "truncate", "persist"];

interface RetryOptions {
  busyTimeoutMs: number;
  journalMode: SqliteDialectOptions["journalMode"];
}

/** What the dialect uses of better-sqlite3's API beyond Kysely's `SqliteDatabase`, when present. */
interface SqliteHandle extends SqliteDatabase {
  exec?(sql: string): unknown;
  readonly inTransaction?: boolean;
  prepare(sql: string): SqliteStatement & { get?(parameters: readonly unknown[]): unknown };
}

class RetryingSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #options: RetryOptions;

  constructor(config: SqliteDialectConfig, options: RetryOptions) {
    super(config);
    this.#config = config;
    this.#options = options;
  }

  override createDriver() {
    return new RetryingSqliteDriver(this.#config, this.#options);
  }
}

class RetryingSqliteDriver extends SqliteDriver {
  readonly #config: SqliteDialectConfig;
  readonly #options: RetryOptions;
  readonly #opened: { database?: SqliteHandle };
  #connection: RetryingSqliteConnection | undefined;

  constructor(config: SqliteDialectConfig, options: RetryOptions) {
    const opened: { database?: SqliteHandle } = {};
    const { database } = config;
    super({
      ...config,
      // Kysely's driver opens the database (calling `database` when it is a function); the
      // connection here is the dialect's own, so it keeps the handle.
      database: async (...args: unknown[]) => {
        opened.database =
          typeof database === "function"
            ? await (database as (...a: unknown[]) => Promise<SqliteDatabase>)(...args)
            : database;
        return opened.database;
      },
      onCreateConnection: undefined,
    });
    this.#config = config;
    this.#options = options;
    this.#opened = opened;
  }

  override async init(...args: []): Promise<void> {
    await super.init(...args);
    if (!this.#opened.database) throw new Error("the SQLite database did not open");
    const connection = new RetryingSqliteConnection(this.#opened.database, this.#options.busyTimeoutMs);
    await connection.executeQuery(CompiledQuery.raw(`pragma busy_timeout = ${SQLITE_ATTEMPT_BUSY_MS}`));
    // Switching a file to WAL takes its exclusive lock: another process opening or migrating it
    // at the same moment is waited for.
    if (this.#options.journalMode)
      await connection.control(`pragma journal_mode = ${this.#options.journalMode}`);
    this.#connection = connection;
    await (
      this.#config.onCreateConnection as
        | ((c: DatabaseConnection, ...a: unknown[]) => Promise<void>)
        | undefined
    )?.(connection, ...args);
  }

  /** Kysely 0.28's driver takes its connection lock here (0.29's runtime does): always ask it. */
  override async acquireConnection(): Promise<DatabaseConnection> {
    await super.acquireConnection();
    if (!this.#connection) throw new Error("the SQLite dialect is not initialized");
    return this.#connection;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as RetryingSqliteConnection).control("begin immediate");
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as RetryingSqliteConnection).control("commit");
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as RetryingSqliteConnection).control("rollback");
  }
}

/** Transaction control, run through `exec` (no parameters). */
const CONTROL = /^\s*(begin|commit|end|rollback|savepoint|release)\b/i;
/** Statements that take no write lock (they are not wrapped in a transaction of their own). */
const READ = /^\s*(select|pragma|explain)\b/i;
const EXPLAIN = /^\s*explain\b/i;
/** A busy error that waiting does not cure: a statement of this connection is still running. */
const IN_PROGRESS = /statements? in progress/i;

class RetryingSqliteConnection implements DatabaseConnection {
  readonly #database: SqliteHandle;
  readonly #busyTimeoutMs: number;
  /** Reads that gave up while busy (libsql leaves them in progress): run again until they end. */
  #unfinished: { statement: SqliteStatement; parameters: readonly unknown[] }[] = [];

  constructor(database: SqliteHandle, busyTimeoutMs: number) {
    this.#database = database;
    this.#busyTimeoutMs = busyTimeoutMs;
  }

  /** `sql` without parameters through `exec`, retried while busy. */
  async control(sql: string): Promise<void> {
    const database = this.#database;
    await retryWhileBusy(async () => {
      if (database.exec) database.exec(sql);
      else database.prepare(sql).run([]);
    }, this.#busyTimeoutMs);
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const { sql, parameters } = query;
    if (parameters.length === 0 && CONTROL.test(sql)) {
      await this.control(sql);
      return { rows: [] };
    }
    this.#finishUnfinished();
    const read = query.query?.kind === "SelectQueryNode" || READ.test(sql);
    if (read || this.#database.inTransaction !== false) return this.#run<R>(sql, parameters, read);
    // A write outside a transaction: the write lock first, then the statement, which then cannot
    // meet a lock.
    await this.control("begin immediate");
    try {
      const result = await this.#run<R>(sql, parameters, false);
      await this.control("commit");
      return result;
    } catch (error) {
      await this.control("rollback").catch(() => {});
      throw error;
    }
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (query.query?.kind !== "SelectQueryNode") {
      throw new Error("Sqlite driver only supports streaming of select queries");
    }
    for (const row of this.#database.prepare(query.sql).iterate(query.parameters)) {
      yield { rows: [row as R] };
    }
  }

  /** Runs one prepared statement, again (the same one: that resets it) while busy. */
  async #run<R>(sql: string, parameters: readonly unknown[], read: boolean): Promise<QueryResult<R>> {
    const statement = await retryWhileBusy(async () => this.#database.prepare(sql), this.#busyTimeoutMs);
    try {
      const result = await retryWhileBusy(async () => execute<R>(statement, parameters), this.#busyTimeoutMs);
      // libsql leaves `EXPLAIN` of a write in progress after its last row (a COMMIT would then
      // fail); `get` runs it again and ends it (an EXPLAIN changes nothing).
      if (EXPLAIN.test(sql)) statement.get?.(parameters);
      return result;
    } catch (error) {
      if (read && isSqliteBusy(error)) this.#unfinished.push({ statement, parameters });
      throw error;
    }
  }

  /** Runs the reads left in progress again: one that ends no longer holds its snapshot. */
  #finishUnfinished(): void {
    this.#unfinished = this.#unfinished.filter(({ statement, parameters }) => {
      try {
        execute(statement, parameters);
        return false;
      } catch (error) {
        return isSqliteBusy(error);
      }
    });
  }
}

function execute<R>(statement: SqliteStatement, parameters: readonly unknown[]): QueryResult<R> {
  if (statement.reader) return { rows: statement.all(parameters) as R[] };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return {
    insertId: lastInsertRowid != null ? BigInt(lastInsertRowid) : undefined,
    numAffectedRows: changes != null ? BigInt(changes) : undefined,
    rows: [],
  };
}

/**
 * SQLite's "database is locked" (`SQLITE_BUSY`, `SQLITE_LOCKED` and their extended codes, such as
 * `SQLITE_BUSY_SNAPSHOT`): nothing ran, the statement can be tried again.
 */
export const isSqliteBusy = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && /^SQLITE_(BUSY|LOCKED)(_|$)/.test(code);
};

/**
 * Runs `attempt` again while it fails with a busy error, after asynchronous pauses (2 ms, then
 * doubling to 50 ms), until `busyTimeoutMs` has passed; then rejects with the last error, its code
 * added to its message (what a log line of it shows). A busy error that waiting does not cure (a
 * statement of the same connection still in progress) fails at once.
 */
export async function retryWhileBusy<R>(attempt: () => Promise<R>, busyTimeoutMs: number): Promise<R> {
  const started = Date.now();
  const deadline = started + busyTimeoutMs;
  for (let pause = 2; ; pause = Math.min(pause * 2, MAX_PAUSE_MS)) {
    try {
      return await attempt();
    } catch (error) {
      if (!isSqliteBusy(error)) throw error;
      const inProgress = IN_PROGRESS.test(String((error as Error).message));
      if (inProgress || Date.now() + pause > deadline) throw withCode(error, Date.now() - started);
      await sleep(pause);
    }
  }
}

/** The busy error with its code (and how long it was retried) in its message. */
function withCode(error: unknown, waitedMs: number): unknown {
  const failure = error as Error & { code: string };
  if (!failure.message.includes(failure.code)) {
    try {
      failure.message = `${failure.message} (${failure.code}, after ${waitedMs} ms of retries)`;
    } catch {
      // A read-only message stays as it is.
    }
  }
  return error;
}
