// Measurement helpers of bench/scale.mjs: the core on given stores, the five paths, timing, Redis.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { connect, createServer } from "node:net";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { handlerRequest, inProcessAuth } from "./handler-request.mjs";
import { seededEmail } from "./scale-seed.mjs";

const ROOT = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const fromSql = createRequire(join(ROOT, "packages/store-sql/package.json"));
const load = (path) => import(pathToFileURL(join(ROOT, path)).href);
const core = await load("packages/core/dist/index.js");
const { createSqlStores } = await load("packages/store-sql/dist/index.js");
const { createRedisStores, createRedisClient } = await load("packages/store-redis/dist/index.js");
const pg = fromSql("pg");
const { Kysely, PostgresDialect } = await import(pathToFileURL(fromSql.resolve("kysely")).href);

const SCALE = Number(process.env.SCALE ?? 1);
const FULL_USERS = Math.round(1_000_000 * SCALE);
const SMALL_USERS = Math.min(10_000, Math.round(FULL_USERS / 10));
const SAMPLES = Number(process.env.SAMPLES ?? 300);
const SWEEP_ROWS = Number(process.env.SWEEP_ROWS ?? Math.round(1_000_000 * SCALE));
const PG_ADMIN = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const PASSWORD = "correct horse battery staple";
const PREFIX = "portcullis-scale:";
const PATHS = ["me", "login", "refresh", "reset429", "verification429"];
const LABELS = {
  me: "GET /me",
  login: "login (right password)",
  refresh: "refresh",
  reset429: "reset-request in cooldown (429)",
  verification429: "verification send in cooldown (429)",
};
const load1 = () => loadavg()[0].toFixed(2);

/** Statements sent to PostgreSQL while `recording` (as store-trips.mjs counts them). */
const seen = new Map();
let recording;
class RecordingClient extends pg.Client {
  query(config, values, callback) {
    const text = typeof config === "string" ? config : config?.text;
    if (recording && text && !/^(begin|commit|rollback)/i.test(text))
      seen.set(text.replace(/\s+/g, " ").trim(), { text, values: config?.values ?? values, path: recording });
    return super.query(config, values, callback);
  }
}

const request = handlerRequest;

/** A seeded user number in [1, users], odd (unverified) when asked, from a small LCG so runs repeat. */
function picker(seed) {
  let state = seed;
  return (users, { odd = false } = {}) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    const i = 1 + (state % users);
    return odd && i % 2 === 0 ? (i === users ? i - 1 : i + 1) : i;
  };
}

/** The core on `stores`, as the bench's examples configure it (default argon2id, bearer tokens, no login alerts). */
function authOn(stores) {
  const { auth, send } = inProcessAuth(core, {
    secret: "scale-secret-yAEoUyHUyQNxa_NIrlTvpITTjFXcXZF8WX0iqYtPlFY",
    stores,
  });
  return { auth, send };
}

/** The five paths over `users` seeded users: tokens of 20 random unverified users, logins of random users. */
async function pathsOver(send, users, seed) {
  const pick = picker(seed);
  const login = (i) =>
    send(request("POST", "/login", { body: { email: seededEmail(i), password: PASSWORD } }), 200);
  const signedIn = [];
  for (let k = 0; k < 20; k++) signedIn.push(await login(pick(users, { odd: true })));
  let turn = 0;
  const next = () => signedIn[turn++ % signedIn.length];
  return {
    me: () => send(request("GET", "/me", { token: next().accessToken }), 200),
    login: () => login(pick(users)),
    refresh: async () => {
      const tokens = next();
      const answer = await send(request("POST", "/refresh", { token: tokens.refreshToken }), 200);
      tokens.refreshToken = answer.refreshToken;
      tokens.accessToken = answer.accessToken;
    },
    reset429: () =>
      send(request("POST", "/password/reset-request", { body: { email: seededEmail(pick(users)) } }), 429),
    /** A reset request for any address (no account needed: the cooldown is taken all the same). */
    resetRequest: (email, status) =>
      send(request("POST", "/password/reset-request", { body: { email } }), status),
    verification429: () =>
      send(request("POST", "/email/verification/send", { token: next().accessToken }), 429),
  };
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
function summary(times) {
  const sorted = [...times].sort((a, b) => a - b);
  return { median: quantile(sorted, 0.5), p95: quantile(sorted, 0.95), max: sorted.at(-1), n: sorted.length };
}

const ROUNDS = 6;

/**
 * Times each path of each set (`{ name: paths }`): a warm-up, then `SAMPLES` sequential calls a
 * path (logins a third), in `ROUNDS` rounds whose path order turns and whose set order alternates,
 * so sets measured together share the machine's load. Resolves to `{ set: { path: summary } }`.
 */
async function measure(sets, label) {
  const names = Object.keys(sets);
  const times = Object.fromEntries(names.map((set) => [set, Object.fromEntries(PATHS.map((p) => [p, []]))]));
  for (const set of names)
    for (const name of PATHS) for (let k = 0; k < (name === "login" ? 10 : 100); k++) await sets[set][name]();
  for (let round = 0; round < ROUNDS; round++) {
    for (let p = 0; p < PATHS.length; p++) {
      const name = PATHS[(p + round) % PATHS.length];
      const n = Math.ceil((name === "login" ? SAMPLES / 3 : SAMPLES) / ROUNDS);
      for (const set of round % 2 === 0 ? names : [...names].reverse()) {
        for (let k = 0; k < n; k++) {
          const t0 = performance.now();
          await sets[set][name]();
          times[set][name].push(performance.now() - t0);
        }
      }
    }
  }
  console.log(`\n${label} (load average ${load1()})`);
  const result = {};
  for (const set of names) {
    result[set] = Object.fromEntries(PATHS.map((name) => [name, summary(times[set][name])]));
    console.log(`  ${set}`);
    for (const name of PATHS) {
      const { median, p95, max, n } = result[set][name];
      console.log(
        `    ${LABELS[name].padEnd(38)} median ${median.toFixed(2)} ms  p95 ${p95.toFixed(2)} ms  max ${max.toFixed(2)} ms  (n=${n})`,
      );
    }
  }
  return result;
}

async function freePort() {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address();
  server.close();
  await once(server, "close");
  return port;
}

/** A redis-server of our own on 127.0.0.1, no persistence. */
async function startRedis() {
  const port = await freePort();
  const child = spawn(
    "redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--protected-mode",
      "yes",
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  const url = `redis://127.0.0.1:${port}`;
  for (let k = 0; k < 100; k++) {
    await sleep(50);
    const socket = connect(port, "127.0.0.1");
    const ok = await new Promise((resolve) => {
      socket.once("error", () => resolve(false));
      socket.once("data", (data) => resolve(data.toString().startsWith("+PONG")));
      socket.write("PING\r\n");
    });
    socket.destroy();
    if (ok) return { child, url };
  }
  child.kill();
  throw new Error("redis-server did not start");
}

async function redisMemory(client) {
  const info = await client.info("memory");
  const field = (name) => info.match(new RegExp(`^${name}:(.*)$`, "m"))?.[1]?.trim();
  return {
    used: field("used_memory_human"),
    peak: field("used_memory_peak_human"),
    rss: field("used_memory_rss_human"),
    keys: await client.dbsize(),
  };
}

export const setRecording = (value) => {
  recording = value;
};
export {
  authOn,
  core,
  createRedisClient,
  createRedisStores,
  createSqlStores,
  FULL_USERS,
  Kysely,
  LABELS,
  load1,
  measure,
  PASSWORD,
  PATHS,
  PG_ADMIN,
  PostgresDialect,
  PREFIX,
  pathsOver,
  pg,
  RecordingClient,
  redisMemory,
  SAMPLES,
  SCALE,
  SMALL_USERS,
  SWEEP_ROWS,
  seen,
  startRedis,
  summary,
};
