// API keys on the authenticated path (issue 45): a host route behind Express's `requireAuth`
// (GET /api/orders, answering the principal's user id) called with an API key (`X-API-Key: pc_…`:
// the checksum, one store call that reads the key and counts the request, `useApiKey`: one round
// trip on Redis and PostgreSQL; one HMAC) beside the same route with the same user's access token (the JWT verify and the allowlist
// read, joint with the user's on SQL). Rounds alternate the two; the ratio (key / token) is the
// median of the rounds, measured in this one run. Goal: at least 0.9. On memory stores, on Redis
// (users in memory, everything else in Redis, under a key prefix of this run that is deleted at the
// end) and on PostgreSQL (a database of its own, created through psql at BENCH_PG_URL, default the
// local server, dropped at the end).
//
// Before the load, a counting pass: the server wraps every store method with a counter, and counts
// what goes over the wire (each SQL statement the pg driver sends, each Redis command), and the
// bench sends KEYS_COUNT sequential requests of each kind: store calls per request by store, the
// key reads apart. Then the same-time rule (a refused key takes as long as a valid
// one): KEYS_SAME_TIME rounds in the server's own process, each an `auth.authenticate` of an
// unknown key (well-formed, right checksum, no such lookup id), of the valid key's lookup id with
// a wrong secret, and of the valid key, in turn; the p50 of each and their ratios to the valid one.
//
//   pnpm -r --filter "./packages/*" build && node bench/api-keys.mjs
//
// Env: KEYS_ROUNDS (default 5), KEYS_SECONDS (window, default 4), KEYS_STORES
// (memory,redis,postgres), KEYS_COUNT (requests of the counting pass, default 200), KEYS_ONLY
// (key or token: load only that path, for a profile of it), KEYS_PG_OPTIONS (PostgreSQL settings of
// the server's connections, e.g. "-c synchronous_commit=off", for an experiment), KEYS_PG_POOL (the
// server's pool size, default 10 as in the examples), BENCH_REDIS_URL, BENCH_PG_URL, BENCH_NODE
// (the server's Node; otherwise Node 22 as `pnpm bench` picks it),
// KEYS_NODE_ARGS (extra arguments of the server's Node, e.g. "--cpu-prof --cpu-prof-dir=bench/.tmp"),
// KEYS_REDIS_AUTOPIPELINING=1 (the Redis client made with ioredis's `enableAutoPipelining`: the
// commands of one turn of the event loop written together), KEYS_SAME_TIME (rounds of the
// same-time measure, default 1000; 0 leaves it out).
// The server is this file run with KEYS_SERVE=<stores>.
import { spawnSync } from "node:child_process";
import { randomInt } from "node:crypto";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { crc32 } from "node:zlib";
import { chooseServerNode } from "./lib/rows-node.mjs";
import { load, PASSWORD, post, ROOT, SECRET, startProcess } from "./lib/servers.mjs";

const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const PG_ADMIN = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

// ---------------------------------------------------------------------------------------------
// The server (a child process).

/** Every method of `store`, own or inherited (class-based stores keep theirs on the prototype). */
function methodNames(store) {
  const names = new Set();
  for (let proto = store; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const descriptor = Object.getOwnPropertyDescriptor(proto, name);
      if (name !== "constructor" && typeof descriptor?.value === "function") names.add(name);
    }
  }
  return names;
}

/** Wraps each store's methods in place (identity kept) with a counter `<store>.<method>`. */
function countStoreCalls(stores, counts) {
  const wrapped = new Set();
  for (const [name, store] of Object.entries(stores)) {
    if (store === null || typeof store !== "object" || wrapped.has(store)) continue;
    wrapped.add(store);
    for (const method of methodNames(store)) {
      const original = store[method];
      const counter = `${name}.${method}`;
      store[method] = function counted(...args) {
        counts[counter] = (counts[counter] ?? 0) + 1;
        return original.apply(this, args);
      };
    }
  }
}

/** The stores of `kind`, with a `close()`; wire round trips counted into `counts.wire`. */
async function openStores(kind, counts) {
  const load = (path) => import(pathToFileURL(join(ROOT, path)).href);
  const { createMemoryStores } = await load("packages/store-memory/dist/index.js");
  const memory = createMemoryStores({ sweepIntervalMs: 0 });
  if (kind === "memory") return { stores: memory, close: async () => {} };
  if (kind === "redis") {
    const { createRedisClient, createRedisStores } = await load("packages/store-redis/dist/index.js");
    const pipelining = process.env.KEYS_REDIS_AUTOPIPELINING === "1";
    const client = createRedisClient(REDIS_URL, pipelining ? { enableAutoPipelining: true } : {});
    await new Promise((resolve) => client.once("ready", resolve));
    const sendCommand = client.sendCommand;
    client.sendCommand = function counted(...args) {
      counts.wire = (counts.wire ?? 0) + 1;
      return sendCommand.apply(this, args);
    };
    const keyPrefix = `portcullis-keys-bench:${process.pid}:`;
    const stores = { ...createRedisStores({ client, keyPrefix }), users: memory.users };
    const close = async () => {
      let cursor = "0";
      do {
        const [next, keys] = await client.scan(cursor, "MATCH", `${keyPrefix}*`, "COUNT", 1000);
        if (keys.length > 0) await client.del(...keys);
        cursor = next;
      } while (cursor !== "0");
      client.disconnect();
    };
    return { stores, close };
  }
  const fromSql = createRequire(join(ROOT, "packages/store-sql/package.json"));
  const pg = fromSql("pg");
  const { Kysely, PostgresDialect } = await import(pathToFileURL(fromSql.resolve("kysely")).href);
  const sql = await load("packages/store-sql/dist/index.js");
  class CountingClient extends pg.Client {
    query(...args) {
      counts.wire = (counts.wire ?? 0) + 1;
      return super.query(...args);
    }
  }
  const pool = sql.discardTimedOutConnections(
    new pg.Pool({
      connectionString: process.env.DATABASE_URL,
      max: Number(process.env.KEYS_PG_POOL ?? 10),
      Client: CountingClient,
      // An experiment's server settings, e.g. "-c synchronous_commit=off" (default: none).
      ...(process.env.KEYS_PG_OPTIONS ? { options: process.env.KEYS_PG_OPTIONS } : {}),
      ...sql.postgresPoolOptions(),
    }),
  );
  const db = new Kysely({ dialect: new PostgresDialect({ pool }) });
  const all = sql.createSqlStores({ db });
  await all.migrate();
  const { users, cooldowns, sessions, allowlist, singleUseTokens, apiKeys, joint } = all;
  const stores = { users, cooldowns, sessions, allowlist, singleUseTokens, apiKeys, joint };
  return { stores, close: () => db.destroy() };
}

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** `length` random base62 characters. */
const randomBase62 = (length) => Array.from({ length }, () => ALPHABET[randomInt(62)]).join("");
/** A well-formed key of `body` (43 base62 characters): `pc_`, the body, its base62 CRC-32 (key-format.ts). */
function keyOf(body) {
  let checksum = "";
  for (let rest = crc32(body); rest > 0; rest = Math.floor(rest / 62))
    checksum = ALPHABET[rest % 62] + checksum;
  return `pc_${body}${checksum.padStart(6, "0")}`;
}

/**
 * The same-time rule in this process: `rounds` turns of an unknown key, the valid key's lookup id
 * with a wrong secret, and the valid key, one `auth.authenticate` each in a random order, the
 * background work of each (a valid key's `lastUsedAt`, at most once a minute; a refused key's
 * count goes back to its instance's block, with no write) waited for outside the timed span, as
 * the timing suite does, after a tenth as many
 * turns of warm-up; the p50 of each (µs) and the refused ones' ratios to the valid.
 */
async function sameTime(auth, key, rounds) {
  const body = key.slice(3, 46);
  const tokens = {
    unknown: keyOf(randomBase62(43)),
    "wrong secret": keyOf(body.slice(0, 12) + randomBase62(31)),
    valid: key,
  };
  const names = Object.keys(tokens);
  const times = Object.fromEntries(names.map((name) => [name, []]));
  const warmup = Math.ceil(rounds / 10);
  for (let round = 0; round < warmup + rounds; round++) {
    const order = [...names];
    for (let i = order.length - 1; i > 0; i--) {
      const j = randomInt(i + 1);
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (const name of order) {
      const start = process.hrtime.bigint();
      const code = await auth.authenticate({ token: tokens[name] }).then(
        () => "ok",
        (error) => error.code,
      );
      const micros = Number(process.hrtime.bigint() - start) / 1_000;
      await auth.idle();
      if (code !== (name === "valid" ? "ok" : "API_KEY_INVALID"))
        throw new Error(`same-time ${name}: ${code}`);
      if (round >= warmup) times[name].push(micros);
    }
  }
  const p50 = Object.fromEntries(names.map((name) => [name, median(times[name])]));
  return {
    "p50 µs (unknown / wrong secret / valid)": names.map((name) => p50[name].toFixed(0)).join(" / "),
    "unknown / valid": (p50.unknown / p50.valid).toFixed(2),
    "wrong secret / valid": (p50["wrong secret"] / p50.valid).toFixed(2),
  };
}

/** An Express app with the auth routes and GET /api/orders behind `requireAuth`; prints its URL. */
async function serve(kind) {
  const load = (path) => import(pathToFileURL(join(ROOT, path)).href);
  const core = await load("packages/core/dist/index.js");
  const { createAuthRouter, requireAuth } = await load("packages/adapter-express/dist/index.js");
  const express = createRequire(join(ROOT, "packages/adapter-express/package.json"))("express");
  const counts = {};
  const { stores, close } = await openStores(kind, counts);
  countStoreCalls(stores, counts);
  const auth = core.createAuth({
    secret: SECRET,
    stores,
    logger: core.silentLogger,
    email: { enabled: false },
    allowHeaderAuthentication: true,
    // The bench's own rate: every request must pass. The key's counter is still kept: counted in
    // blocks of up to a twentieth of this limit (1,000), about one counting call per 1,000 requests.
    apiKeys: { requestsPerMinute: 1_000_000 },
  });
  const app = express();
  app.use(createAuthRouter(auth));
  app.get("/api/orders", requireAuth(auth), (req, res) => res.json({ userId: req.auth.userId }));
  app.get("/bench/counts", (_req, res) => res.json(counts));
  app.get("/bench/cpu", (_req, res) => {
    const { user, system } = process.cpuUsage();
    res.json({ micros: user + system });
  });
  app.get("/bench/same-time", async (req, res) => {
    res.json(await sameTime(auth, String(req.query.key), Number(req.query.rounds)));
  });
  app.post("/bench/counts/reset", (_req, res) => {
    for (const name of Object.keys(counts)) delete counts[name];
    res.json({});
  });
  const server = app.listen(0, "127.0.0.1", () => {
    console.log(`http://127.0.0.1:${server.address().port}`);
  });
  process.once("SIGINT", async () => {
    server.close();
    await close();
    process.exit(0);
  });
}

// ---------------------------------------------------------------------------------------------
// The bench.

const ROUNDS = Number(process.env.KEYS_ROUNDS ?? 5);
const SECONDS = Number(process.env.KEYS_SECONDS ?? 4);
const COUNT = Number(process.env.KEYS_COUNT ?? 200);
const SAME_TIME = Number(process.env.KEYS_SAME_TIME ?? 1000);
const STORES = (process.env.KEYS_STORES ?? "memory,redis,postgres").split(",");
/** `key` or `token`: load only that one (for a profile of one path); no ratio then. */
const ONLY = process.env.KEYS_ONLY;
const figure = (values, f) => (values.length === 0 ? "—" : f(median(values)));
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const psql = (text) =>
  spawnSync("psql", [PG_ADMIN, "-v", "ON_ERROR_STOP=1", "-c", text], { encoding: "utf8" });

/** Registers a user, signs in, steps up and creates a user key: the access token and the key. */
async function credentials(base) {
  const email = `keys-${process.pid}@example.test`;
  const registered = await post(`${base}/api/auth/register`, { email, password: PASSWORD });
  if (registered.status !== 201 && registered.status !== 200)
    throw new Error(`register: ${registered.status} ${JSON.stringify(registered.body)}`);
  const login = await post(`${base}/api/auth/login`, { email, password: PASSWORD });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${JSON.stringify(login.body)}`);
  const bearer = { authorization: `Bearer ${login.body.accessToken}` };
  const stepUp = await post(`${base}/api/auth/step-up`, { password: PASSWORD }, bearer);
  if (stepUp.status !== 200) throw new Error(`step-up: ${stepUp.status} ${JSON.stringify(stepUp.body)}`);
  const created = await post(
    `${base}/api/auth/api-keys`,
    { name: "bench" },
    { ...bearer, "x-step-up-token": stepUp.body.stepUpToken },
  );
  if (created.status !== 201) throw new Error(`api key: ${created.status} ${JSON.stringify(created.body)}`);
  return { accessToken: login.body.accessToken, key: created.body.key };
}

/** The server's CPU time so far (user + system, µs). */
const cpuMicros = async (base) => (await (await fetch(`${base}/bench/cpu`)).json()).micros;

/** Store calls and wire round trips per request over COUNT sequential requests with `headers`. */
async function countPerRequest(base, headers) {
  await fetch(`${base}/bench/counts/reset`, { method: "POST" });
  for (let i = 0; i < COUNT; i++) {
    const response = await fetch(`${base}/api/orders`, { headers });
    if (response.status !== 200)
      throw new Error(`GET /api/orders: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  }
  const counts = await (await fetch(`${base}/bench/counts`)).json();
  const per = (filter) =>
    Object.entries(counts)
      .filter(([name]) => filter(name))
      .reduce((sum, [, count]) => sum + count, 0) / COUNT;
  return {
    "key reads (with the counter)": per((name) => name === "apiKeys.useApiKey"),
    "other store calls": per((name) => name !== "wire" && name !== "apiKeys.useApiKey"),
    "round trips": counts.wire === undefined ? "—" : counts.wire / COUNT,
    calls: Object.entries(counts)
      .filter(([name]) => name !== "wire")
      .map(([name, count]) => `${name} ${(count / COUNT).toFixed(2)}`)
      .join(", "),
  };
}

async function measure(kind, node) {
  const env = { KEYS_SERVE: kind };
  let database;
  if (kind === "postgres") {
    database = `portcullis_keys_bench_${process.pid}`;
    if (psql(`CREATE DATABASE ${database}`).status !== 0) throw new Error(`psql at ${PG_ADMIN} failed`);
    const url = new URL(PG_ADMIN);
    url.pathname = `/${database}`;
    env.DATABASE_URL = url.toString();
  }
  const nodeArgs = (process.env.KEYS_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const server = await startProcess(fileURLToPath(import.meta.url), env, nodeArgs, node);
  try {
    const { accessToken, key } = await credentials(server.url);
    const scenarios = {
      token: {
        path: "/api/orders",
        method: "GET",
        headers: { authorization: `Bearer ${accessToken}` },
        status: 200,
      },
      key: { path: "/api/orders", method: "GET", headers: { "x-api-key": key }, status: 200 },
    };
    const counted = {
      token: await countPerRequest(server.url, scenarios.token.headers),
      key: await countPerRequest(server.url, scenarios.key.headers),
    };
    const timing =
      SAME_TIME > 0
        ? await (
            await fetch(`${server.url}/bench/same-time?rounds=${SAME_TIME}&key=${encodeURIComponent(key)}`)
          ).json()
        : null;
    const rps = { token: [], key: [] };
    const cpu = { token: [], key: [] };
    let unexpected = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? ["token", "key"] : ["key", "token"];
      for (const name of order.filter((name) => !ONLY || name === ONLY)) {
        const result = await load(server.url, scenarios[name], {
          durationS: SECONDS,
          warmupS: round === 0 ? 2 : 0,
          around: async (run) => {
            const before = await cpuMicros(server.url);
            const outcome = await run();
            cpu[name].push(((await cpuMicros(server.url)) - before) / outcome.requests.total);
            return outcome;
          },
        });
        rps[name].push(result.rps);
        unexpected += result.unexpected + result.errors;
      }
    }
    return {
      row: {
        stores: kind,
        "access token req/s": figure(rps.token, Math.round),
        "API key req/s": figure(rps.key, Math.round),
        ratio: ONLY ? "—" : (median(rps.key) / median(rps.token)).toFixed(2),
        "server CPU µs/req (token / key)": `${figure(cpu.token, Math.round)} / ${figure(cpu.key, Math.round)}`,
        "CPU ratio": ONLY ? "—" : (median(cpu.token) / median(cpu.key)).toFixed(2),
        "rounds (token / key)": `${rps.token.map(Math.round).join(" ")} / ${rps.key.map(Math.round).join(" ")}`,
        unexpected,
      },
      counted,
      timing,
    };
  } finally {
    await server.stop();
    if (database) psql(`DROP DATABASE IF EXISTS ${database}`);
  }
}

async function main() {
  const version = chooseServerNode();
  const node = process.env.BENCH_NODE || process.execPath;
  console.error(`[api-keys] servers on Node ${version}; ${ROUNDS} rounds of ${SECONDS} s`);
  const rows = [];
  const counts = [];
  const timings = [];
  for (const kind of STORES) {
    try {
      const { row, counted, timing } = await measure(kind, node);
      rows.push(row);
      if (timing) timings.push({ stores: kind, ...timing });
      for (const [credential, figures] of Object.entries(counted))
        counts.push({ stores: kind, credential, ...figures });
    } catch (error) {
      console.error(`[api-keys] ${kind} left out: ${error.message}`);
    }
  }
  console.table(rows);
  console.table(counts.map(({ calls, ...rest }) => rest));
  if (timings.length > 0) console.table(timings);
  for (const { stores, credential, calls } of counts) console.log(`${stores} / ${credential}: ${calls}`);
}

if (process.env.KEYS_SERVE) await serve(process.env.KEYS_SERVE);
else await main();
