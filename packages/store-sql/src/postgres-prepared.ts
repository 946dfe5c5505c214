import { createHash } from "node:crypto";

/** How `preparePostgresStatements` bounds what it prepares. */
export interface PreparedStatementOptions {
  /**
   * Most statements prepared on one connection; a text seen after that is sent unnamed (planned
   * each time) on that connection. PostgreSQL keeps a prepared statement until its connection
   * closes, so this caps the server memory per connection. Default 100 (the stores send about 60
   * distinct statements).
   */
  maxPerConnection?: number;
  /** A text is prepared from its `minUses`-th use on the pool on (one-off statements stay unnamed). Default 2. */
  minUses?: number;
}

/** The parts of a `pg` client that `preparePostgresStatements` uses (pg 8). */
interface PreparingClient {
  query: (...args: never[]) => unknown;
  /** pg ≥ 8.8: "I" idle, "T" in a transaction, "E" in a failed transaction. */
  getTransactionStatus?: () => string | null;
  /** pg's record of the statements parsed on this connection, by name. */
  connection?: { parsedStatements?: Record<string, string> };
}

interface PreparingPool {
  on(event: "connect", listener: (client: { query: (...args: never[]) => unknown }) => void): unknown;
}

/** Distinct texts counted per pool: past this many, new texts stay unnamed. */
const MAX_COUNTED_TEXTS = 1_000;
/** Only parameterized DML is named: the extended protocol then runs it exactly as unnamed. */
const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i;
/** `DISCARD ALL` / `DEALLOCATE ALL` sent by the host drop every prepared statement. */
const DROPS_ALL = /^\s*(discard|deallocate)\s+(all|prepare\s+all)\b/i;
/** PostgreSQL's "cached plan must not change result type" and "prepared statement … does not exist". */
const STALE_CODES = new Set(["0A000", "26000"]);

/**
 * Sends the statements of `pool`'s connections as named prepared statements (the name a hash of
 * the text), so PostgreSQL parses and plans each once per connection instead of once per call.
 * Only parameterized `select`/`insert`/`update`/`delete`/`with` texts are named, from their
 * `minUses`-th use, and at most `maxPerConnection` per connection. A statement that a schema change
 * made stale (`cached plan must not change result type`) or that the host deallocated is dropped
 * and, outside a transaction, sent again once unnamed; inside one the error stands (the
 * transaction failed anyway) and the next use prepares it anew.
 *
 * Not for a pooler in transaction mode that does not track prepared statements (PgBouncer before
 * 1.21, or with `max_prepared_statements = 0`): a later statement may run on another server
 * connection that never saw the name. Returns the pool.
 */
export function preparePostgresStatements<P extends PreparingPool>(
  pool: P,
  options: PreparedStatementOptions = {},
): P {
  const maxPerConnection = options.maxPerConnection ?? 100;
  const minUses = options.minUses ?? 2;
  if (!Number.isInteger(maxPerConnection) || maxPerConnection < 0)
    throw new RangeError(`maxPerConnection must be a non-negative integer, not ${maxPerConnection}`);
  if (!Number.isInteger(minUses) || minUses < 1)
    throw new RangeError(`minUses must be a positive integer, not ${minUses}`);
  const uses = new Map<string, { count: number; name: string }>();
  const nameFor = (text: string): string | undefined => {
    let use = uses.get(text);
    if (!use) {
      if (uses.size >= MAX_COUNTED_TEXTS) return undefined;
      use = { count: 0, name: `pc_${createHash("sha256").update(text).digest("base64url").slice(0, 22)}` };
      uses.set(text, use);
    }
    if (use.count < minUses) use.count++;
    return use.count >= minUses ? use.name : undefined;
  };
  pool.on("connect", (connected) => {
    const client = connected as PreparingClient;
    if (maxPerConnection > 0 && client.connection?.parsedStatements)
      prepareOn(client, nameFor, maxPerConnection);
  });
  return pool;
}

type Query = (...args: unknown[]) => Promise<unknown>;

function prepareOn(client: PreparingClient, nameFor: (text: string) => string | undefined, max: number) {
  const send = client.query.bind(client) as Query;
  const parsed = () => client.connection?.parsedStatements ?? {};
  /** Names given on this connection; `stale`: prepared on the server, no longer usable. */
  const named = new Set<string>();
  const stale = new Set<string>();
  const forget = (name: string) => {
    delete parsed()[name];
    named.delete(name);
  };
  const sendNamed = async (name: string, text: string, values: unknown[]) => {
    if (stale.has(name)) {
      await send(`deallocate "${name}"`).catch(() => {});
      stale.delete(name);
    }
    named.add(name);
    try {
      return await send({ name, text, values });
    } catch (error) {
      const code = (error as { code?: unknown } | undefined)?.code;
      if (typeof code !== "string" || !STALE_CODES.has(code)) throw error;
      forget(name);
      if (code === "0A000") stale.add(name);
      // In a transaction the failed statement aborted it: only its caller can start again.
      if (client.getTransactionStatus?.() !== "I") throw error;
      return send(text, values);
    }
  };
  const prepared = (config: unknown, values: unknown): Promise<unknown> | undefined => {
    if (typeof config !== "string" || !Array.isArray(values) || values.length === 0) {
      if (typeof config === "string" && DROPS_ALL.test(config)) {
        for (const name of named) forget(name);
        stale.clear();
      }
      return undefined;
    }
    const name = PREPARABLE.test(config) ? nameFor(config) : undefined;
    // A stale name inside a failed transaction cannot be deallocated yet: unnamed until then.
    const usable =
      name !== undefined &&
      (named.has(name) || named.size + stale.size < max) &&
      !(stale.has(name) && client.getTransactionStatus?.() === "E");
    return usable ? sendNamed(name, config, values) : undefined;
  };
  // Kysely calls `query(text, values)`; pg-pool's `pool.query` adds a callback.
  client.query = ((config: unknown, values?: unknown, ...rest: unknown[]) => {
    const callback = [values, ...rest].find((arg) => typeof arg === "function") as
      | ((error: unknown, result?: unknown) => void)
      | undefined;
    const result = prepared(config, Array.isArray(values) ? values : undefined);
    if (result === undefined) return send(config, values, ...rest);
    if (callback === undefined) return result;
    result.then(
      (value) => callback(null, value),
      (error) => callback(error),
    );
    return undefined;
  }) as PreparingClient["query"];
}
