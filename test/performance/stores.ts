// The four stores of the round-trip test, each with a counter of what one request costs it:
// memory, the calls to its store methods; Redis, the commands the client sends (a Lua script is
// one EVALSHA); PostgreSQL and SQLite, the statements sent to the database (BEGIN and COMMIT too).
import { once } from "node:events";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import type { AuthOptions } from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import { createRedisClient, createRedisStores } from "@portcullis/store-redis";
import {
  createSqliteDialect,
  createSqlStores,
  discardTimedOutConnections,
  postgresPoolOptions,
} from "@portcullis/store-sql";
import { deleteKeys, testPrefix, useRedis } from "../../packages/store-redis/src/test-redis.js";
import {
  postgresDatabase,
  SHARED_SERVER_TIMEOUTS,
  usePostgres,
} from "../../packages/store-sql/src/test-databases.js";

/** The stores of the table's columns, in its order. */
export const STORE_KINDS = ["memory", "redis", "postgres", "sqlite"] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

/** Every store an Auth of the test uses: the core's, the OAuth provider's and enterprise sign-in's. */
export type TestStores = AuthOptions["stores"] &
  Pick<ReturnType<typeof createMemoryStores>, "oauth" | "signingKeys" | "sso" | "scim">;

/** Stores whose round trips are counted from the last `reset()` on. */
export interface CountedStores {
  kind: StoreKind;
  stores: TestStores;
  /** Round trips (memory: store calls) since the last `reset()`. */
  count(): number;
  reset(): void;
  /** Closes the connections and removes what the test made (its database, its keys). */
  close(): Promise<void>;
}

/** Opens the stores of `kind`, counting. */
export function openCountedStores(kind: StoreKind): Promise<CountedStores> {
  switch (kind) {
    case "memory":
      return countedMemory();
    case "redis":
      return countedRedis();
    case "postgres":
      return countedPostgres();
    case "sqlite":
      return countedSqlite();
  }
}

/** A count of round trips, set back to 0 before each measured request. */
function counter() {
  let value = 0;
  return {
    add() {
      value += 1;
    },
    count: () => value,
    reset() {
      value = 0;
    },
  };
}

/**
 * `store` behind a proxy that counts each call of one of its methods made from outside (a store
 * calling its own methods through `this` reaches the object itself, so it is not counted twice).
 */
function countingProxy<S extends object>(store: S, add: () => void): S {
  return new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        add();
        return value.apply(target, args);
      };
    },
  });
}

/** No sweep timer: a sweep in the middle of a request would add calls that the request did not make. */
const memoryStores = () => createMemoryStores({ sweepIntervalMs: 0 });

async function countedMemory(): Promise<CountedStores> {
  const calls = counter();
  const stores = Object.fromEntries(
    Object.entries(memoryStores()).map(([name, store]) => [
      name,
      store !== null && typeof store === "object" ? countingProxy(store, calls.add) : store,
    ]),
  ) as ReturnType<typeof memoryStores>;
  // The joint names the stores it writes: the counted ones, so that the core uses it (each of its
  // calls counted once, as a store of one's own would be asked once).
  stores.joint = Object.assign(Object.create(stores.joint), {
    sessions: stores.sessions,
    allowlist: stores.allowlist,
  });
  return { kind: "memory", stores, ...calls, close: async () => {} };
}

/**
 * store-redis, with users, identities, organizations and the SCIM store in memory (store-redis has
 * no such stores: an app keeps them in its database), as the benchmarks run it. Every command the
 * client sends goes through `sendCommand`, a defined Lua script's EVALSHA included.
 */
async function countedRedis(): Promise<CountedStores> {
  const redis = await useRedis();
  const client = createRedisClient(redis.url);
  if (client.status !== "ready") await once(client, "ready");
  const commands = counter();
  const sendCommand = client.sendCommand;
  client.sendCommand = function counted(this: typeof client, ...args: Parameters<typeof sendCommand>) {
    commands.add();
    return sendCommand.apply(this, args);
  } as typeof sendCommand;
  const keyPrefix = testPrefix();
  const memory = memoryStores();
  const stores = {
    users: memory.users,
    identities: memory.identities,
    organizations: memory.organizations,
    scim: memory.scim,
    ...createRedisStores({ client, keyPrefix }),
  };
  return {
    kind: "redis",
    stores,
    ...commands,
    async close() {
      client.sendCommand = sendCommand;
      await deleteKeys(client, keyPrefix);
      client.disconnect();
      await redis.stop();
    },
  };
}

// pg, Kysely and libsql as store-sql resolves them: this folder is no package of its own, and
// Kysely's classes must be the ones store-sql's `instanceof` checks know.
const fromStoreSql = createRequire(new URL("../../packages/store-sql/package.json", import.meta.url));
const kysely = () => import(pathToFileURL(fromStoreSql.resolve("kysely")).href);

/** A pg client that counts each statement it sends (a query call is one round trip). */
function countingPgClient(add: () => void) {
  const pg = fromStoreSql("pg");
  return class CountingClient extends pg.Client {
    // biome-ignore lint/suspicious/noExplicitAny: pg's overloads are passed on untouched.
    query(...args: any[]) {
      add();
      return super.query(...args);
    }
  };
}

/**
 * store-sql on a PostgreSQL database of the test's own, behind the pool the examples use (the
 * recommended timeouts, prepared statements): each statement the pg driver sends is counted.
 */
async function countedPostgres(): Promise<CountedStores> {
  const server = await usePostgres();
  const database = await postgresDatabase(server.url);
  const statements = counter();
  const pg = fromStoreSql("pg");
  const pool = discardTimedOutConnections(
    new pg.Pool({
      connectionString: database.url,
      max: 10,
      ...postgresPoolOptions(SHARED_SERVER_TIMEOUTS),
      Client: countingPgClient(statements.add),
    }),
  );
  pool.on("error", () => {});
  const { Kysely, PostgresDialect } = await kysely();
  const db = new Kysely({ dialect: new PostgresDialect({ pool }) });
  const stores = createSqlStores({ db });
  await stores.migrate();
  return {
    kind: "postgres",
    stores,
    ...statements,
    async close() {
      await db.destroy();
      await database.drop();
      await server.stop();
    },
  };
}

/**
 * store-sql on SQLite in memory through libsql and store-sql's dialect: each statement the dialect
 * prepares or executes is counted, the BEGIN IMMEDIATE and COMMIT around a lone write included.
 */
async function countedSqlite(): Promise<CountedStores> {
  const Database = fromStoreSql("libsql");
  const database = new Database(":memory:");
  const statements = counter();
  for (const method of ["prepare", "exec"] as const) {
    const original = database[method];
    database[method] = (...args: unknown[]) => {
      statements.add();
      return original.apply(database, args);
    };
  }
  const { Kysely } = await kysely();
  const db = new Kysely({ dialect: createSqliteDialect({ database }) });
  const stores = createSqlStores({ db });
  await stores.migrate();
  return { kind: "sqlite", stores, ...statements, close: () => db.destroy() };
}
