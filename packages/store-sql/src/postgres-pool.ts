import { sql } from "kysely";
import type { AnyKysely } from "./context.js";
import { type PreparedStatementOptions, preparePostgresStatements } from "./postgres-prepared.js";

/**
 * Recommended `pg.Pool` settings for the stores: the server cancels a statement that runs or waits
 * too long, so its connection comes back clean instead of busy, and a write never lands after the
 * request that made it has answered. `pg` stays the host's dependency: these are plain values.
 */

export interface PostgresTimeouts {
  /**
   * Longest a statement may run on the server before PostgreSQL cancels it (`statement_timeout`).
   * The client gives up 250 ms later (`query_timeout`), so this also bounds how long a request
   * waits for a server that hangs. Default 1000.
   */
  statementTimeoutMs?: number;
  /** Longest a statement may wait for a lock before PostgreSQL cancels it (`lock_timeout`). Default 500. */
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
const CLIENT_MARGIN_MS = 250;

/**
 * `pg.Pool` options that make PostgreSQL cancel what runs too long: `statement_timeout` (1 s),
 * `lock_timeout` (500 ms) and `idle_in_transaction_session_timeout` (10 s), sent when each
 * connection starts. pg's client-side `query_timeout` is set 250 ms above the statement timeout,
 * so it fires only when the server cannot answer at all (a server that hangs, a network that drops
 * packets); pair the pool with `discardTimedOutConnections` so such a connection is closed instead
 * of returned to the pool, and the requests after it fail at once instead of waiting again.
 */
export function postgresPoolOptions(timeouts: PostgresTimeouts = {}): PostgresPoolTimeoutOptions {
  const statement = positive(timeouts.statementTimeoutMs ?? 1_000, "statementTimeoutMs");
  const lock = positive(timeouts.lockTimeoutMs ?? Math.min(500, statement), "lockTimeoutMs");
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
  /** pg-pool's `connect()`: wrapped so that, while the server does not answer, it fails at once. */
  connect?: (...args: never[]) => unknown;
}

/** How often, while the server does not answer, a `select 1` of the pool's own tries it. */
export const POSTGRES_PROBE_INTERVAL_MS = 250;
/** Time kept between a guarded COMMIT's deadline and the moment the client gives up (the reply's way back). */
const COMMIT_MARGIN_MS = 100;

/** pg's client-side timeout error (`query_timeout`). */
const isQueryTimeout = (error: unknown) => (error as Error | undefined)?.message === "Query read timeout";
/**
 * pg's timeout for a new connection (`connectionTimeoutMillis`): the server did not answer it. (A
 * wait for a free connection of a full pool is load, not a silent server: it does not count.)
 */
const isConnectTimeout = (error: unknown) =>
  (error as Error | undefined)?.message === "Connection terminated due to connection timeout";

/**
 * A session's statement and lock timeouts, as a statement parameter: PostgreSQL receives the
 * milliseconds (null: the session's values from its start), and the guard of
 * `discardTimedOutConnections` reads the object itself, so the client's `query_timeout` follows
 * the server's without reading the statement's text.
 */
class SessionTimeouts {
  constructor(readonly ms: number | undefined) {}
  /** What pg sends for it when no guard replaced it first. */
  toPostgres(): string | null {
    return this.ms === undefined ? null : String(this.ms);
  }
}

/**
 * Sets the session's `statement_timeout` and `lock_timeout` to `ms` (0: none) on the one
 * connection `db` runs on (`db.connection().execute(...)`), or back to the values the session
 * started with when `ms` is undefined. Through a pool guarded by `discardTimedOutConnections`, the
 * connection's client-side `query_timeout` follows: `ms` plus the usual margin, none for 0, the
 * pool's own when undefined. A migration run raises them this way.
 */
export async function setPostgresSessionTimeouts(db: AnyKysely, ms: number | undefined): Promise<void> {
  const timeouts = new SessionTimeouts(ms);
  await sql`select set_config(name, coalesce(${timeouts}, reset_val), false) from pg_settings
    where name in ('statement_timeout', 'lock_timeout')`.execute(db);
}

/** Refused while the server does not answer (after a statement or connection timed out). */
export class PostgresNotAnsweringError extends Error {
  constructor() {
    super("PostgreSQL did not answer in time: failing at once until it answers again");
    this.name = "PostgresNotAnsweringError";
  }
}

/**
 * Closes a pooled connection whose query hit pg's client-side `query_timeout`, instead of letting
 * it go back to the pool with the statement still running (pg returns it as if idle: the next
 * query would queue behind the old one). `end()` is called before the pool sees the release, so
 * the pool drops the connection, and pg closes its socket at once (a query is active): the server
 * rolls back the open transaction when it reads the close.
 *
 * A server that hangs (frozen, or a network that drops everything) answers nothing, so each
 * request would wait out a timeout of its own, one per statement. After a query or connection
 * timeout the pool's `connect()` therefore fails at once (`PostgresNotAnsweringError`), and a
 * `select 1` of its own tries the server at most every `POSTGRES_PROBE_INTERVAL_MS` (250 ms);
 * the first statement that is answered again ends this. No request's statement is sent to the
 * silent server meanwhile, so none runs late when it resumes.
 *
 * A COMMIT carries a deadline: sent with `query_timeout` set, it runs behind a check of the
 * server's own clock (time since its BEGIN, against the time the client saw pass since then plus
 * the timeout, less a margin), so a server that resumes after the client gave up (and answered
 * 500) rolls the transaction back instead of committing it.
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
  const health = watchServer(pool);
  pool.on("connect", (client) => guardConnection(client, health));
  return pool;
}

/** Whether the server answers, as the connections of one pool see it. */
interface ServerHealth {
  /** False after a statement or a new connection timed out, until a statement is answered again. */
  answering: boolean;
  /** Marks the server as silent: `connect()` fails at once and probes start. */
  notAnswering(): void;
}

/**
 * Wraps the pool's `connect()` so that, while the server does not answer, it fails at once
 * (`PostgresNotAnsweringError`), and tries the server with probes of its own meanwhile.
 */
function watchServer<P extends PgPoolLike>(pool: P): ServerHealth {
  const health: ServerHealth = { answering: true, notAnswering: () => notAnswering() };
  /** Whether a probe runs, and when a call was last let through to try the server. */
  const tries = { probing: false, triedAt: 0 };
  let nextProbe: ReturnType<typeof setTimeout> | undefined;
  /** While the server is silent, a probe every `POSTGRES_PROBE_INTERVAL_MS` (one at a time), until the pool ends. */
  const scheduleProbe = () => {
    if (nextProbe || health.answering || (pool as { ending?: boolean }).ending) return;
    nextProbe = setTimeout(() => {
      nextProbe = undefined;
      probe();
    }, POSTGRES_PROBE_INTERVAL_MS);
    nextProbe.unref?.();
  };
  const notAnswering = () => {
    health.answering = false;
    tries.triedAt = Date.now();
    scheduleProbe();
  };
  const connect = pool.connect?.bind(pool) as ((...args: unknown[]) => unknown) | undefined;
  /**
   * Tries the silent server with a statement of its own (`select 1`), never a request's: a
   * request's statement sent to a hung server would still run when it resumes (a counted attempt
   * after its 500). At most one at a time, one every `POSTGRES_PROBE_INTERVAL_MS`.
   */
  const probe = () => {
    if (!connect || tries.probing || health.answering) return;
    if (Date.now() - tries.triedAt < POSTGRES_PROBE_INTERVAL_MS) return scheduleProbe();
    tries.probing = true;
    tries.triedAt = Date.now();
    void (async () => {
      const client = (await connect()) as PgClientLike & { release(destroy?: boolean | Error): void };
      try {
        await (client.query as unknown as (text: string) => Promise<unknown>)("select 1");
        health.answering = true;
        client.release();
      } catch (error) {
        client.release(error instanceof Error ? error : true);
      }
    })()
      .catch((error: unknown) => {
        if (isConnectTimeout(error)) notAnswering();
      })
      .finally(() => {
        tries.probing = false;
        scheduleProbe();
      });
  };
  if (connect) {
    pool.connect = ((...args: unknown[]) => {
      if (!health.answering) {
        probe();
        const refused = new PostgresNotAnsweringError();
        const callback = args.find((arg) => typeof arg === "function") as
          | ((error: Error) => void)
          | undefined;
        if (callback) return void process.nextTick(() => callback(refused));
        return Promise.reject(refused);
      }
      const result = connect(...args);
      if (result instanceof Promise)
        result.catch((error: unknown) => {
          if (isConnectTimeout(error)) notAnswering();
        });
      return result;
    }) as P["connect"];
  }
  return health;
}

/**
 * A pooled connection's statements watched: a client-side timeout closes the connection and marks
 * the server silent, any answer marks it answering, and a COMMIT carries its deadline.
 */
function guardConnection(client: PgClientLike, health: ServerHealth): void {
  client.on?.("error", () => {});
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const pooledQueryTimeoutMs = queryTimeoutOf(client);
  /** When this connection's open transaction was begun, and how long its BEGIN took, on this process's clock. */
  let transaction: { sentAt: number; tookMs: number } | undefined;
  client.query = ((...args: unknown[]) => {
    const [text, values] = args;
    const timeouts = Array.isArray(values)
      ? values.find((value) => value instanceof SessionTimeouts)
      : undefined;
    if (timeouts) {
      // The session's timeouts change (setPostgresSessionTimeouts): the client's follow them.
      const { ms } = timeouts as SessionTimeouts;
      if (pooledQueryTimeoutMs !== undefined)
        setQueryTimeout(
          client,
          ms === undefined ? pooledQueryTimeoutMs : ms === 0 ? 0 : ms + CLIENT_MARGIN_MS,
        );
      args[1] = (values as unknown[]).map((value) =>
        value instanceof SessionTimeouts ? value.toPostgres() : value,
      );
    }
    const plain =
      typeof text === "string" && (values === undefined || (Array.isArray(values) && values.length === 0));
    const statement = plain ? text.trim().toLowerCase() : "";
    const sentAt = Date.now();
    const queryTimeoutMs = queryTimeoutOf(client);
    let result: unknown;
    if (statement === "commit" && transaction && queryTimeoutMs !== undefined) {
      // The server may run this COMMIT only while the client still waits for it: within the
      // time since its BEGIN on the client's clock plus the timeout, less the BEGIN's own round
      // trip (the server may have started it that much later) and a margin for the reply.
      const allowedMs = Math.max(
        0,
        sentAt - transaction.sentAt + queryTimeoutMs - transaction.tookMs - COMMIT_MARGIN_MS,
      );
      result = (query(guardedCommit(allowedMs), ...args.slice(1)) as Promise<unknown>).then((results) =>
        Array.isArray(results) ? results[results.length - 1] : results,
      );
    } else result = query(...args);
    if (/^(begin|start transaction)\b/.test(statement)) transaction = undefined;
    if (statement === "commit" || statement === "rollback") transaction = undefined;
    if (result instanceof Promise) {
      result.then(
        () => {
          health.answering = true;
          if (/^(begin|start transaction)\b/.test(statement))
            transaction = { sentAt, tookMs: Date.now() - sentAt };
        },
        (error: unknown) => {
          if (!isQueryTimeout(error)) {
            // Any answer from the server, an error too, says it answers.
            if ((error as { code?: unknown } | undefined)?.code !== undefined) health.answering = true;
            return;
          }
          health.notAnswering();
          void Promise.resolve(client.end()).catch(() => {});
        },
      );
    }
    return result;
  }) as PgClientLike["query"];
}

/** Sets the client's `query_timeout` (pg reads it from its connection parameters at each query; 0: none). */
function setQueryTimeout(client: PgClientLike, ms: number): void {
  const parameters = (client as { connectionParameters?: { query_timeout?: number } }).connectionParameters;
  if (parameters) parameters.query_timeout = ms;
}

/** The client's `query_timeout` (pg keeps its connection parameters), if it has one. */
function queryTimeoutOf(client: PgClientLike): number | undefined {
  const timeout = (client as { connectionParameters?: { query_timeout?: unknown } }).connectionParameters
    ?.query_timeout;
  return typeof timeout === "number" && timeout > 0 ? timeout : undefined;
}

/**
 * A COMMIT that PostgreSQL runs only within `allowedMs` of the transaction's start on its own clock
 * (`now()` is when the BEGIN ran): past it, a division by zero aborts the transaction and the rest
 * of the query string (the COMMIT) is skipped, so the transaction rolls back.
 */
function guardedCommit(allowedMs: number): string {
  const ms = Math.floor(allowedMs);
  return `select 1 / (case when clock_timestamp() - now() > interval '${ms} milliseconds' then 0 else 1 end) as portcullis_commit_deadline; commit`;
}
