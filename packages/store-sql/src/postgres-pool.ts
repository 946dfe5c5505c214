import { type PreparedStatementOptions, preparePostgresStatements } from "./postgres-prepared.js";

/**
 * Recommended `pg.Pool` settings for the stores: the server cancels a statement that runs or waits
 * too long, so its connection comes back clean instead of busy, and a write never lands after the
 * request that made it has answered. `pg` stays the host's dependency: these are plain values.
 */

export interface PostgresTimeouts {
  /** Longest a statement may run on the server before PostgreSQL cancels it (`statement_timeout`). Default 5000. */
  statementTimeoutMs?: number;
  /** Longest a statement may wait for a lock before PostgreSQL cancels it (`lock_timeout`). Default 2000. */
  lockTimeoutMs?: number;
  /** Longest a transaction may sit idle before PostgreSQL ends its session (`idle_in_transaction_session_timeout`). Default 10000. */
  idleInTransactionTimeoutMs?: number;
  /** Longest `pool.connect()` waits for a new connection (`connectionTimeoutMillis`). Default 1000. */
  connectionTimeoutMs?: number;
}

/** The `pg.Pool` options that `postgresPoolOptions` returns (spread them into `new pg.Pool({...})`). */
export interface PostgresPoolTimeoutOptions {
  statement_timeout: number;
  lock_timeout: number;
  idle_in_transaction_session_timeout: number;
  query_timeout: number;
  connectionTimeoutMillis: number;
}

/** How much later than the server's `statement_timeout` the client's own `query_timeout` fires. */
const CLIENT_MARGIN_MS = 1_000;

/**
 * `pg.Pool` options that make PostgreSQL cancel what runs too long: `statement_timeout` (5 s),
 * `lock_timeout` (2 s) and `idle_in_transaction_session_timeout` (10 s), sent when each connection
 * starts. pg's client-side `query_timeout` is set 1 s above the statement timeout, so it fires
 * only when the server cannot answer at all (a network that drops packets); pair the pool with
 * `discardTimedOutConnections` so such a connection is closed instead of returned to the pool.
 */
export function postgresPoolOptions(timeouts: PostgresTimeouts = {}): PostgresPoolTimeoutOptions {
  const statement = positive(timeouts.statementTimeoutMs ?? 5_000, "statementTimeoutMs");
  const lock = positive(timeouts.lockTimeoutMs ?? 2_000, "lockTimeoutMs");
  if (lock > statement) throw new RangeError("lockTimeoutMs must not exceed statementTimeoutMs");
  return {
    statement_timeout: statement,
    lock_timeout: lock,
    idle_in_transaction_session_timeout: positive(
      timeouts.idleInTransactionTimeoutMs ?? 10_000,
      "idleInTransactionTimeoutMs",
    ),
    query_timeout: statement + CLIENT_MARGIN_MS,
    connectionTimeoutMillis: positive(timeouts.connectionTimeoutMs ?? 1_000, "connectionTimeoutMs"),
  };
}

function positive(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1)
    throw new RangeError(`${name} must be a positive integer, not ${value}`);
  return value;
}

/** What `discardTimedOutConnections` adds besides closing timed-out connections. */
export interface PostgresConnectionOptions {
  /**
   * Send the stores' statements as named prepared statements (`preparePostgresStatements`), so
   * PostgreSQL plans each once per connection: `true` (the default), `false`, or its bounds.
   * Turn it off behind a pooler in transaction mode that does not track prepared statements
   * (PgBouncer before 1.21, or with `max_prepared_statements = 0`).
   */
  preparedStatements?: boolean | PreparedStatementOptions;
}

/** The parts of a `pg` client and pool that `discardTimedOutConnections` uses. */
export interface PgClientLike {
  query: (...args: never[]) => unknown;
  end(): unknown;
  on?(event: "error", listener: (error: Error) => void): unknown;
}
export interface PgPoolLike {
  on(event: "connect", listener: (client: PgClientLike) => void): unknown;
}

/**
 * Closes a pooled connection whose query hit pg's client-side `query_timeout`, instead of letting
 * it go back to the pool with the statement still running (pg returns it as if idle: the next
 * query would queue behind the old one). `end()` is called before the pool sees the release, so
 * the pool drops the connection.
 *
 * It also keeps a lost connection from crashing the process: pg-pool listens for a connection's
 * `error` only while it sits idle in the pool, so a checked-out connection that the server drops
 * between two statements (an outage in the middle of a transaction) emits an `error` nobody
 * listens to, which Node turns into an uncaught exception. The listener added here ignores it:
 * the statement in flight, or the next one, fails with the cause, and the store reports that.
 *
 * Unless `preparedStatements` is false, the connections also send the stores' statements as named
 * prepared statements (`preparePostgresStatements`). Returns the pool.
 */
export function discardTimedOutConnections<P extends PgPoolLike>(
  pool: P,
  options: PostgresConnectionOptions = {},
): P {
  const { preparedStatements = true } = options;
  // Before the listener below: the prepared statements' queries go through its timeout check.
  if (preparedStatements !== false)
    preparePostgresStatements(pool, preparedStatements === true ? {} : preparedStatements);
  pool.on("connect", (client) => {
    client.on?.("error", () => {});
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    client.query = ((...args: unknown[]) => {
      const result = query(...args);
      if (result instanceof Promise) {
        result.catch((error: unknown) => {
          if ((error as Error | undefined)?.message === "Query read timeout")
            void Promise.resolve(client.end()).catch(() => {});
        });
      }
      return result;
    }) as PgClientLike["query"];
  });
  return pool;
}
