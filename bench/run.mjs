// `pnpm bench`: in one run, the Express and Fastify examples (memory stores, 1,000 seeded users,
// bearer tokens), the Fastify example on store-redis, a bare server of each framework answering
// the same JSON, Better Auth on Express (installed on first run into bench/.peer, never a
// workspace dependency), raw argon2id verifies, and the store-memory footprint. Prints every ratio
// with its goal, writes the table to bench/results/ and the latest figures into bench/README.md.
// BENCH_QUICK=1: one pair of 3 s windows per ratio instead of BENCH_ROUNDS (default 3) pairs of 5 s.
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { hash, verify } from "@node-rs/argon2";
import { createRedisClient } from "@portcullis/store-redis";
import {
  BENCH_DIR,
  email,
  load,
  PASSWORD,
  post,
  prepareScenarios,
  SECRET,
  startExample,
  startProcess,
  writeSeedFile,
} from "./lib/servers.mjs";

const QUICK = process.env.BENCH_QUICK === "1";
// Each ratio is the median of ROUNDS pairs of windows, ours and its baseline back to back: one
// window alone moved by ±20 % between runs on a shared 2-core VM.
const TIMING = { connections: 10, durationS: QUICK ? 3 : 5, warmupS: 1 };
const ROUNDS = QUICK ? 1 : Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const ARGON2 = { memoryCost: 19456, timeCost: 2, parallelism: 1, algorithm: 2 };
const BETTER_AUTH = "1.7.25";
const PEER = join(BENCH_DIR, ".peer");
const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const REDIS_PREFIX = `portcullis-bench:${process.pid}:`;
const log = (...args) => console.error("[bench]", ...args);
const SQL_LABELS = {
  expressSqlite: "express + store-sql (SQLite)",
  expressPostgres: "express + store-sql (PostgreSQL)",
};

/** Better Auth and its peers, installed with npm into the ignored bench/.peer on first run. */
function installBetterAuth() {
  const marker = join(PEER, "node_modules", "better-auth", "package.json");
  if (existsSync(marker) && JSON.parse(readFileSync(marker, "utf8")).version === BETTER_AUTH) return true;
  mkdirSync(PEER, { recursive: true });
  writeFileSync(join(PEER, "package.json"), '{ "name": "bench-peer", "private": true, "type": "module" }\n');
  log(`installing better-auth@${BETTER_AUTH} into bench/.peer (first run only)`);
  const result = spawnSync(
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      "--no-save",
      `better-auth@${BETTER_AUTH}`,
      "@node-rs/argon2@2.2.1",
      "express@5.3.0",
    ],
    { cwd: PEER, stdio: "inherit" },
  );
  return result.status === 0;
}

/**
 * The Node the servers run on: BENCH_NODE, else this one when it is 22 or newer (what hosts run;
 * Node 20 is past its end of life and slower on the core's hot paths), else Node 22 from the npm registry's `node` package, installed once into the
 * ignored bench/.peer-node. Answers its version.
 */
function chooseServerNode() {
  if (process.env.BENCH_NODE)
    return execFileSync(process.env.BENCH_NODE, ["--version"], { encoding: "utf8" }).trim();
  if (Number(process.versions.node.split(".")[0]) >= 22) return process.version;
  const dir = join(BENCH_DIR, ".peer-node");
  const binary = join(dir, "node_modules", ".bin", "node");
  if (!existsSync(binary)) {
    log("installing node@22 into bench/.peer-node (first run only): the servers run on Node 22 or newer");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "package.json"), '{ "name": "bench-node", "private": true }\n');
    const result = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--no-save", "node@22"], {
      cwd: dir,
      stdio: "inherit",
    });
    if (result.status !== 0) {
      log(`node@22 could not be installed: the servers run on this Node (${process.version})`);
      return process.version;
    }
  }
  process.env.BENCH_NODE = binary;
  return execFileSync(binary, ["--version"], { encoding: "utf8" }).trim();
}

/** Raw argon2id verifies per second: 10 verifies in flight, like 10 connections. */
async function argon2Throughput(durationS) {
  const hashed = await hash(PASSWORD, ARGON2);
  let done = 0;
  const end = performance.now() + durationS * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      if (!(await verify(hashed, PASSWORD))) throw new Error("argon2 verify failed");
      done += 1;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: TIMING.connections }, worker));
  return done / ((performance.now() - start) / 1000);
}

const readyRedis = async () => {
  const client = createRedisClient(REDIS_URL);
  await new Promise((resolve, reject) => {
    client.once("ready", resolve);
    setTimeout(() => reject(new Error("Redis did not answer")), 2000).unref();
  }).catch((error) => {
    client.disconnect();
    throw error;
  });
  return client;
};

async function redisAvailable() {
  let client;
  try {
    client = await readyRedis();
    await client.ping();
    return true;
  } catch {
    return false;
  } finally {
    client?.disconnect();
  }
}

async function deleteRedisKeys() {
  const client = await readyRedis();
  let cursor = "0";
  let deleted = 0;
  do {
    const [next, keys] = await client.scan(cursor, "MATCH", `${REDIS_PREFIX}*`, "COUNT", 1000);
    cursor = next;
    if (keys.length > 0) deleted += await client.del(...keys);
  } while (cursor !== "0");
  client.disconnect();
  return deleted;
}

const seedFile = writeSeedFile();
const withRedis = await redisAvailable();
const serverNode = chooseServerNode();
log(`servers run on Node ${serverNode}`);
// libsql (SQLite) is an N-API module: it loads on the servers' Node whatever Node installed it.
const sql = prepareSqlDatabases();
const withBetterAuth = process.env.BENCH_SKIP_BETTER_AUTH !== "1" && installBetterAuth();
log("starting servers and seeding 1,000 users each (argon2id, takes a while)");
const servers = {};
const started = [
  startExample("express", { seedFile }).then((s) => (servers.express = s)),
  startExample("fastify", { seedFile }).then((s) => (servers.fastify = s)),
  startExample("hono", { seedFile }).then((s) => (servers.hono = s)),
];
if (withRedis)
  started.push(
    startExample("fastify", { seedFile, env: { REDIS_URL, REDIS_KEY_PREFIX: REDIS_PREFIX } }).then(
      (s) => (servers.fastifyRedis = s),
    ),
  );
for (const [name, url] of Object.entries(sql.urls))
  started.push(
    startExample("express", { seedFile, env: { DATABASE_URL: url } }).then((s) => (servers[name] = s)),
  );
if (withBetterAuth) {
  copyFileSync(join(BENCH_DIR, "servers", "better-auth.mjs"), join(PEER, "server.mjs"));
  started.push(
    startProcess(join(PEER, "server.mjs"), { AUTH_SECRET: SECRET, SEED_FILE: seedFile }).then(
      (s) => (servers.betterAuth = s),
    ),
  );
}
const stopAll = () => Promise.all(Object.values(servers).map((s) => s.stop()));
process.once("SIGINT", () => stopAll().then(() => process.exit(130)));

const rows = [];
const row = (scenario, framework, { ours, base, ratio }, baseName, goal) => {
  rows.push({
    scenario,
    framework,
    ours: Math.round(ours),
    [baseName]: Math.round(base),
    ratio: Number(ratio.toFixed(2)),
    goal: goal === undefined ? "-" : `>= ${goal.toFixed(2)} of ${baseName}`,
    met: goal === undefined ? "-" : ratio >= goal ? "yes" : "NO",
  });
};
const figures = {};
/** Every window's figure, by key, for the JSON result. */
const record = (key, value) => {
  figures[key] = [...(figures[key] ?? []), value];
};
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
/**
 * ROUNDS pairs of windows (the baseline, then ours): the median of each and of the pairs' ratios,
 * so a burst of noise in one window moves one ratio of three, not the row.
 */
const compare = async (measureOurs, measureBase) => {
  const ours = [];
  const base = [];
  for (let round = 0; round < ROUNDS; round++) {
    base.push(await measureBase());
    ours.push(await measureOurs());
  }
  return { ours: median(ours), base: median(base), ratio: median(ours.map((value, i) => value / base[i])) };
};
try {
  await Promise.all(started);
  const scenarios = {};
  for (const name of ["express", "fastify", "hono", "fastifyRedis", ...Object.keys(sql.urls)]) {
    if (servers[name]) scenarios[name] = await prepareScenarios(servers[name].url);
  }
  // The bare servers answer what the example answers on each route.
  const bareRoutes = [];
  for (const scenario of Object.values(scenarios.express)) {
    const response = await fetch(`${servers.express.url}${scenario.path}`, {
      method: scenario.method,
      headers: scenario.headers,
      body: scenario.body,
    });
    bareRoutes.push({
      method: scenario.method,
      path: scenario.path,
      status: response.status,
      body: await response.json(),
    });
  }
  const bareEnv = { BARE_ROUTES: JSON.stringify(bareRoutes) };
  const bare = join(BENCH_DIR, "servers", "bare.mjs");
  servers.bareExpress = await startProcess(bare, { ...bareEnv, BARE_FRAMEWORK: "express" });
  servers.bareFastify = await startProcess(bare, { ...bareEnv, BARE_FRAMEWORK: "fastify" });
  servers.bareHono = await startProcess(bare, { ...bareEnv, BARE_FRAMEWORK: "hono" });
  const bareServers = { express: servers.bareExpress, fastify: servers.bareFastify, hono: servers.bareHono };

  let betterAuth;
  if (servers.betterAuth) betterAuth = await prepareBetterAuth(servers.betterAuth.url);

  const measure = (key, server, scenario) => async () => {
    const result = await load(server.url, scenario, TIMING);
    if (result.unexpected > 0 || result.errors > 0)
      log(`${key}: ${result.unexpected} unexpected statuses, ${result.errors} errors`);
    record(key, result.rps);
    log(`${key}: ${Math.round(result.rps)} req/s`);
    return result.rps;
  };
  const bareScenario = (scenario) => ({
    ...scenario,
    status: bareRoutes.find((r) => r.path === scenario.path).status,
  });
  const labels = {
    me: "GET /me (bearer)",
    reset: "reset-request in cooldown (429)",
    verification: "verification send in cooldown (429)",
  };
  const goals = {
    me: { express: 0.8, fastify: 0.6 },
    reset: { express: 0.6, fastify: 0.6 },
    verification: { express: 0.6, fastify: 0.6 },
    login: { express: 0.9, fastify: 0.9 },
  };
  for (const name of ["me", "reset", "verification"]) {
    // Hono (the Fetch adapter on @hono/node-server) has no goal of its own yet: measured beside.
    for (const framework of ["express", "fastify", "hono"]) {
      const bareServer = bareServers[framework];
      const bare = measure(`${name} bare ${framework}`, bareServer, bareScenario(scenarios[framework][name]));
      const ours = measure(`${name} ours ${framework}`, servers[framework], scenarios[framework][name]);
      row(labels[name], framework, await compare(ours, bare), "bare", goals[name][framework]);
      if (name === "me" && framework === "express") {
        for (const store of Object.keys(sql.urls)) {
          const ours = measure(`me ours ${store}`, servers[store], scenarios[store].me);
          row(labels[name], SQL_LABELS[store], await compare(ours, bare), "bare");
        }
      }
      if (name === "me" && framework === "fastify" && servers.fastifyRedis) {
        const redis = measure("me ours fastify+redis", servers.fastifyRedis, scenarios.fastifyRedis.me);
        row(labels[name], "fastify + store-redis", await compare(redis, bare), "bare", 0.45);
      }
    }
    if (betterAuth) {
      const theirs = measure(`${name} better-auth express`, servers.betterAuth, betterAuth[name]);
      const ours = measure(`${name} ours express`, servers.express, scenarios.express[name]);
      row(`${labels[name]}: Better Auth equivalent`, "express", await compare(ours, theirs), "better-auth");
    }
  }

  // Each login names the next of users 3..999, so no address has two checks in flight (the
  // per-address throttle counts attempts before the hash is checked).
  let nextUser = 3;
  const loginBody = () => {
    nextUser = nextUser >= 999 ? 3 : nextUser + 1;
    return JSON.stringify({ email: email(nextUser), password: PASSWORD });
  };
  const loginScenario = {
    path: "/api/auth/login",
    method: "POST",
    headers: { "content-type": "application/json" },
    body: loginBody(),
    nextBody: loginBody,
    status: 200,
  };
  // Raw argon2id verifies in this process, a window of its own before each login window.
  const raw = async () => {
    const rate = await argon2Throughput(TIMING.durationS);
    record("raw argon2id verifies/s", rate);
    log(`raw argon2id: ${Math.round(rate)} verifies/s`);
    return rate;
  };
  for (const framework of ["express", "fastify", "hono"]) {
    const ours = measure(`login ours ${framework}`, servers[framework], loginScenario);
    row("login, right password", framework, await compare(ours, raw), "raw argon2id", goals.login[framework]);
  }
  for (const store of Object.keys(sql.urls)) {
    const ours = measure(`login ours ${store}`, servers[store], loginScenario);
    row("login, right password", SQL_LABELS[store], await compare(ours, raw), "raw argon2id");
  }
  if (betterAuth) {
    const theirs = measure("login better-auth express", servers.betterAuth, {
      ...betterAuth.login,
      nextBody: loginBody,
    });
    row("login, right password: Better Auth", "express", await compare(theirs, raw), "raw argon2id");
  }
} finally {
  await stopAll();
  if (withRedis) log(`deleted ${await deleteRedisKeys()} Redis keys under ${REDIS_PREFIX}`);
  sql.drop();
}

const memoryRun = execFileSync(process.execPath, ["--expose-gc", join(BENCH_DIR, "memory.mjs")], {
  encoding: "utf8",
});
const memory = JSON.parse(memoryRun.trim().split("\n").pop());
// "Back near the start": the store holds nothing (every entry swept) and the heap is back within
// 5 MB of where it started; the RSS residual is printed too (pages not yet handed back to the OS).
const memoryOk = memory.growthMb < 300 && memory.held === 0 && memory.heapResidualMb < 5;

console.table(rows);
const memoryLine = `store-memory, 1,000,000 cooldown keys + 100,000 sessions: +${memory.growthMb.toFixed(0)} MB RSS (goal < 300 MB), after expiry and a sweep ${memory.held} entries held, heap ${memory.heapResidualMb.toFixed(1)} MB and RSS ${memory.residualMb.toFixed(0)} MB above the start (goal: near the start, heap < 5 MB): ${memoryOk ? "met" : "NOT met"}`;
console.log(memoryLine);
if (!withRedis) console.log(`Redis at ${REDIS_URL} did not answer: the store-redis row is left out.`);
if (!withBetterAuth)
  console.log("Better Auth could not be installed (or BENCH_SKIP_BETTER_AUTH=1): its column is left out.");

const cpu = os.cpus();
const machine = `${cpu.length} × ${cpu[0]?.model.trim()}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GB, ${os.platform()} ${os.release()}, servers on Node ${serverNode} (bench and raw argon2id on ${process.version})`;
const date = new Date().toISOString();
const header = `| scenario | framework | ours | baseline | ratio | goal | met |\n|---|---|---:|---:|---:|---|---|\n`;
const table =
  header +
  rows
    .map((r) => {
      const [baseName] = Object.keys(r).filter(
        (k) => !["scenario", "framework", "ours", "ratio", "goal", "met"].includes(k),
      );
      return `| ${r.scenario} | ${r.framework} | ${r.ours.toLocaleString("en")} req/s | ${r[baseName].toLocaleString("en")} (${baseName}) | ${r.ratio.toFixed(2)} | ${r.goal} | ${r.met} |`;
    })
    .join("\n");
const report = `Run of ${date} on ${machine}; autocannon ${TIMING.connections} connections, ${TIMING.durationS} s after ${TIMING.warmupS} s warm-up; each ratio the median of ${ROUNDS} back-to-back pairs (baseline, then ours), each figure the median of its windows${QUICK ? " (BENCH_QUICK)" : ""}.\n\n${table}\n\n${memoryLine}\n`;
const results = join(BENCH_DIR, "results");
mkdirSync(results, { recursive: true });
const stamp = date.replace(/[:.]/g, "-");
writeFileSync(join(results, `${stamp}.md`), report);
writeFileSync(
  join(results, `${stamp}.json`),
  JSON.stringify({ date, machine, timing: TIMING, rows, figures, memory }, null, 2),
);
const readmePath = join(BENCH_DIR, "README.md");
const readme = existsSync(readmePath) ? readFileSync(readmePath, "utf8") : "# Benchmarks\n";
const START = "<!-- latest-figures:start -->";
const END = "<!-- latest-figures:end -->";
const block = `${START}\n${report}${END}`;
writeFileSync(
  readmePath,
  readme.includes(START)
    ? readme.replace(new RegExp(`${START}[\\s\\S]*${END}`), block)
    : `${readme.trimEnd()}\n\n## Latest figures\n\n${block}\n`,
);
console.log(`\nwritten to bench/results/${stamp}.md and bench/README.md`);

/**
 * The SQL rows: the Express example on a SQLite file and, when `psql` reaches a PostgreSQL
 * (`BENCH_PG_URL`, default the local server), on a database of its own, dropped afterwards.
 */
function prepareSqlDatabases() {
  const dir = join(BENCH_DIR, ".tmp", `sql-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const urls = { expressSqlite: `sqlite:${join(dir, "bench.db")}` };
  const admin = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const database = `portcullis_bench_${process.pid}`;
  const psql = (sqlText) =>
    spawnSync("psql", [admin, "-v", "ON_ERROR_STOP=1", "-c", sqlText], { encoding: "utf8" });
  if (psql(`CREATE DATABASE ${database}`).status === 0) {
    const url = new URL(admin);
    url.pathname = `/${database}`;
    urls.expressPostgres = url.toString();
  } else log(`no PostgreSQL through psql at ${admin}: the PostgreSQL rows are left out`);
  return {
    urls,
    drop() {
      if (urls.expressPostgres) psql(`DROP DATABASE IF EXISTS ${database}`);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function prepareBetterAuth(base) {
  const signIn = async (index) => {
    const response = await fetch(`${base}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: base },
      body: JSON.stringify({ email: email(index), password: PASSWORD }),
    });
    if (response.status !== 200)
      throw new Error(`better-auth sign-in: ${response.status} ${await response.text()}`);
    return response.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
  };
  const cookie = await signIn(0);
  const json = { "content-type": "application/json", origin: base };
  const check = await post(
    `${base}/api/auth/request-password-reset`,
    { email: email(1), redirectTo: "/" },
    { origin: base },
  );
  if (check.status !== 200)
    throw new Error(`better-auth reset: ${check.status} ${JSON.stringify(check.body)}`);
  return {
    me: { path: "/api/auth/get-session", method: "GET", headers: { cookie }, status: 200 },
    reset: {
      path: "/api/auth/request-password-reset",
      method: "POST",
      headers: json,
      body: JSON.stringify({ email: email(1), redirectTo: "/" }),
      status: 200,
    },
    verification: {
      path: "/api/auth/send-verification-email",
      method: "POST",
      headers: { ...json, cookie: await signIn(2) },
      body: JSON.stringify({ email: email(2) }),
      status: 200,
    },
    login: {
      path: "/api/auth/sign-in/email",
      method: "POST",
      headers: json,
      body: JSON.stringify({ email: email(3), password: PASSWORD }),
      status: 200,
    },
  };
}
