// CPU per request of the host routes beside the bare framework (issue 51). The Express and Fastify
// examples (built, from dist) on memory stores and on store-redis, and Express on PostgreSQL, each
// a child process on the servers' Node (as `pnpm bench` picks it: Node 22 or newer), 200 seeded
// users. For each route, BENCH_ROUNDS (default 3) back-to-back pairs of windows: the same
// framework's bare route that only reads the credential's header and answers the same JSON
// (lib/cpu-per-request-bare.mjs), then ours; each window's CPU seconds of the server process, and of
// redis-server's or the PostgreSQL backends' own processes, read from /proc before and after, per
// answer with the route's status (200; 429 for the cooldowns). Routes: GET /me, refresh (a fresh
// refresh token per request: each answer's goes to the next request), an API-key request (GET
// /api/hello with X-API-Key, each of 3,000 keys for 400 requests in a row), the
// permission check (GET /api/projects, a member with an active organization), login, and logout
// (a window of exactly CPR_LOGOUTS requests, each ending a session signed in before it), and the
// 429s of the email cooldowns: a reset request and a verification send, each in its cooldown
// (no bare route: no goal holds them). On Redis each round also has a window of the bare route
// that reads one key of the run's Redis before it answers (the floor that the one round trip of
// a revocable token sets; its own table in the report). Then Better Auth (on memory and on PostgreSQL):
// get-session, sign-in/email, sign-out, request-password-reset (answered 200: Better Auth has no
// cooldown there), in the same run.
// The OAuth provider's code exchange and refresh grant (`POST /oauth2/token`; the code exchange a
// window of exactly CPR_CODES requests, each redeeming a code made before it), a resource
// server's verify of an RFC 9068 access token (GET /api/projects with an OAuth client's token)
// and a SCIM list (GET /scim/v2/Users with a filter on a provisioned user's name) run on a second
// server of each host, with the OAuth provider on and an admin who sets SCIM up, and for Better
// Auth its OAuth provider and SCIM plugins (servers/better-auth.mjs with BETTER_AUTH_ENTERPRISE=1;
// the requests in lib/cpu-per-request-enterprise.mjs), so the first server keeps its defaults.
// Each login window is split into the server's main thread and its other threads (argon2id), and
// each round's login windows come with a raw argon2id window in this process: the report's
// "beyond the hash" table is server plus database less that verify (bench/login-beyond-hash.mjs
// measures the same without the subtraction, the hash replaced by a trivial stand-in).
//
//   pnpm --filter portcullis-bench cpu-per-request          (builds the examples first)
//
// Env: BENCH_ROUNDS (3), BENCH_QUICK=1 (one round of 2 s windows), CPR_SECONDS (window, 4),
// CPR_ONLY (hosts: express-memory,fastify-memory,express-redis,fastify-redis,express-postgres,
// better-auth-memory,better-auth-postgres), CPR_ROUTES (me,refresh,apiKey,permission,login,logout,
// reset429,verification429,oauthCode,oauthRefresh,oauthResource,scimList),
// CPR_LOGOUTS (300), CPR_CODES (1000), CPR_NODE_ARGS (extra arguments of the examples' Node, e.g. "--cpu-prof
// --cpu-prof-dir=bench/.tmp"), BENCH_NODE, BENCH_PG_URL, BENCH_SKIP_BETTER_AUTH=1,
// PERFORMANCE_WRITE=1 (also writes the table into docs/performance.md between its markers).
// Redis is a redis-server of this run on a free port (its CPU then is this run's alone).
import { copyFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import {
  betterAuthEnterpriseScenarios,
  enterpriseEnv,
  enterpriseScenarios,
  writeEnterpriseSeedFile,
} from "./lib/cpu-per-request-enterprise.mjs";
import { databaseProbe, loadAverage, measureWindow, startRedis } from "./lib/cpu-per-request-measure.mjs";
import {
  markdown,
  printable,
  reduceRow,
  writePerformanceDoc,
  writeResults,
} from "./lib/cpu-per-request-report.mjs";
import { bareRoutes, betterAuthScenarios, exampleScenarios } from "./lib/cpu-per-request-scenarios.mjs";
import { withOwnCpu } from "./lib/cpu-split.mjs";
import { argon2Throughput } from "./lib/rows-measure.mjs";
import { chooseServerNode } from "./lib/rows-node.mjs";
import { installBetterAuth, PEER, prepareSqlDatabases } from "./lib/rows-services.mjs";
import { BENCH_DIR, SECRET, startExample, startProcess, writeSeedFile } from "./lib/servers.mjs";

const QUICK = process.env.BENCH_QUICK === "1";
const ROUNDS = QUICK ? 1 : Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const TIMING = { connections: 10, durationS: QUICK ? 2 : Number(process.env.CPR_SECONDS ?? 4), warmupS: 2 };
const LOGOUTS = Number(process.env.CPR_LOGOUTS ?? (QUICK ? 200 : 300));
const CODES = Number(process.env.CPR_CODES ?? (QUICK ? 300 : 1000));
const USERS = 200;
const HOSTS = [
  { key: "express-memory", kind: "example", framework: "express", store: "memory", label: "Express, memory" },
  { key: "fastify-memory", kind: "example", framework: "fastify", store: "memory", label: "Fastify, memory" },
  { key: "express-redis", kind: "example", framework: "express", store: "redis", label: "Express, Redis" },
  { key: "fastify-redis", kind: "example", framework: "fastify", store: "redis", label: "Fastify, Redis" },
  {
    key: "express-postgres",
    kind: "example",
    framework: "express",
    store: "postgres",
    label: "Express, PostgreSQL",
  },
  { key: "better-auth-memory", kind: "better-auth", store: "memory", label: "Better Auth (Express), memory" },
  {
    key: "better-auth-postgres",
    kind: "better-auth",
    store: "postgres",
    label: "Better Auth (Express), PostgreSQL",
  },
];
/** The rows of the second server of an example host (the OAuth provider on, SCIM set up). */
const ENTERPRISE_ROUTES = ["oauthCode", "oauthRefresh", "oauthResource", "scimList"];
const ROUTES = [
  "me",
  "refresh",
  "apiKey",
  "permission",
  "login",
  "logout",
  "reset429",
  "verification429",
  ...ENTERPRISE_ROUTES,
];
const listed = (name, all) => (process.env[name] ? process.env[name].split(",").map((s) => s.trim()) : all);
const ONLY = listed(
  "CPR_ONLY",
  HOSTS.map((h) => h.key),
);
const ONLY_ROUTES = listed("CPR_ROUTES", ROUTES);
const log = (...args) => console.error("[cpu-per-request]", ...args);

/** The PostgreSQL database of a host's server (`enterprise`: its second server's). */
const databaseName = (host, enterprise = false) =>
  `${host.kind === "example" ? "cpr_express" : "cpr_better_auth"}${enterprise ? "_enterprise" : ""}`;
const wantsEnterprise = () => ONLY_ROUTES.some((route) => ENTERPRISE_ROUTES.includes(route));

/** Redis, PostgreSQL databases and Better Auth for the selected hosts; `notes` says what is left out. */
async function services(hosts, notes) {
  const redis = hosts.some((h) => h.store === "redis") ? await startRedis() : undefined;
  const postgresHosts = hosts.filter((h) => h.store === "postgres");
  const names = postgresHosts.map((h) => databaseName(h));
  if (wantsEnterprise()) names.push(...postgresHosts.map((h) => databaseName(h, true)));
  const sql = prepareSqlDatabases({ sqlite: false, postgres: names });
  let betterAuth = hosts.some((h) => h.kind === "better-auth");
  if (betterAuth && (process.env.BENCH_SKIP_BETTER_AUTH === "1" || !installBetterAuth())) {
    notes.push("Better Auth could not be installed (or BENCH_SKIP_BETTER_AUTH=1): its rows are left out.");
    betterAuth = false;
  }
  if (betterAuth) copyFileSync(join(BENCH_DIR, "servers", "better-auth.mjs"), join(PEER, "server.mjs"));
  if (redis)
    notes.push(
      `redis-server's own idle CPU, ${(redis.idleCpuPerS * 1000).toFixed(1)} ms a second (5 s before any load), is left out of each window's Redis CPU.`,
    );
  return { redis, sql, betterAuth };
}

/**
 * A host's server, its scenarios and the database probe of its CPU; `enterprise`: an example
 * host's second server, with its own database or key prefix, for ENTERPRISE_ROUTES.
 */
async function startHost(host, { redis, sql }, seedFile, enterprise = false) {
  const env = enterprise && host.kind === "example" ? enterpriseEnv() : {};
  let database;
  if (host.store === "redis")
    Object.assign(env, {
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: `portcullis-cpr:${process.pid}:${host.key}${enterprise ? ":enterprise" : ""}:`,
    });
  if (host.store === "postgres") {
    const name = databaseName(host, enterprise);
    if (!sql.urls[name]) return undefined;
    env.DATABASE_URL = sql.urls[name];
    database = new URL(env.DATABASE_URL).pathname.slice(1);
  }
  const probe = databaseProbe({ database, redis: host.store === "redis" ? redis : undefined });
  const options = { users: USERS, connections: TIMING.connections, logouts: LOGOUTS, codes: CODES };
  // The scenarios set up on `server`, which is stopped when that fails.
  const withScenarios = async (server, make) => {
    try {
      return { server, probe, scenarios: await make(server.url, options) };
    } catch (error) {
      await server.stop();
      throw error;
    }
  };
  if (host.kind === "better-auth") {
    const server = await startProcess(join(PEER, "server.mjs"), {
      ...env,
      AUTH_SECRET: SECRET,
      SEED_FILE: seedFile,
      ...(enterprise ? { BETTER_AUTH_ENTERPRISE: "1" } : {}),
    });
    return withScenarios(server, enterprise ? betterAuthEnterpriseScenarios : betterAuthScenarios);
  }
  const nodeArgs = (process.env.CPR_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const server = await startExample(host.framework, { seedFile, env, nodeArgs });
  return withScenarios(server, enterprise ? enterpriseScenarios : exampleScenarios);
}

/** CPU milliseconds of one raw argon2id verify (the examples' and Better Auth's parameters), in this process. */
async function rawVerifyWindow() {
  const { rate, cpuMs } = await withOwnCpu(() => argon2Throughput(TIMING.durationS, TIMING.connections));
  log(`raw argon2id: ${Math.round(rate)} verifies/s, ${cpuMs.toFixed(2)} ms CPU each`);
  return { cpuMs, rate };
}

/**
 * The bare server of `framework`, started on first use with the routes read from `source`; with
 * `redis`, also its twin whose routes each read one key of that Redis first (`<framework>+redis`).
 */
async function bareOf(framework, bare, source, redis) {
  if (!bare.routes) Object.assign(bare, await bareRoutes(source.server.url, source.scenarios));
  const start = (env) =>
    startProcess(join(BENCH_DIR, "lib", "cpu-per-request-bare.mjs"), {
      BARE_FRAMEWORK: framework,
      BARE_ROUTES: JSON.stringify(bare.routes),
      ...env,
    });
  bare.servers[framework] ??= await start({});
  if (redis) bare.servers[`${framework}+redis`] ??= await start({ BARE_REDIS_URL: redis.url });
}

/**
 * Each route of a host: ROUNDS pairs of windows (the bare route, then ours) where there is a bare
 * route; on Redis, each round also measures the bare route with its one Redis read (the floor).
 */
async function measureHost(host, started, bare) {
  const rows = [];
  for (const route of ONLY_ROUTES) {
    const scenario = started.scenarios[route];
    if (!scenario) continue;
    const bareScenario = host.kind === "example" ? bare.scenarios?.[route] : undefined;
    const bareServer = bareScenario ? bare.servers[host.framework] : undefined;
    const floorServer =
      bareScenario && host.store === "redis" ? bare.servers[`${host.framework}+redis`] : undefined;
    const windows = [];
    const bareWindows = [];
    const floorWindows = [];
    const rawWindows = [];
    for (let round = 0; round < ROUNDS; round++) {
      // A login's hash, measured alone in the same round: raw argon2id verifies in this process.
      if (route === "login") rawWindows.push(await rawVerifyWindow());
      if (bareServer)
        bareWindows.push(
          await measureWindow(bareServer.url, bareScenario, {
            serverPid: bareServer.child.pid,
            timing: TIMING,
          }),
        );
      if (floorServer)
        floorWindows.push(
          await measureWindow(floorServer.url, bareScenario, {
            serverPid: floorServer.child.pid,
            probe: started.probe,
            timing: TIMING,
          }),
        );
      const serverPid = started.server.child.pid;
      windows.push(
        await measureWindow(started.server.url, scenario, {
          serverPid,
          probe: started.probe,
          timing: TIMING,
        }),
      );
      const last = windows.at(-1);
      log(
        `${host.key} ${route}: ${last.serverMs.toFixed(3)} ms server, ${last.databaseMs.toFixed(3)} ms database per answer, ${Math.round(last.rps)}/s, ${last.other + last.errors} with another status${bareWindows.length ? `; bare ${bareWindows.at(-1).serverMs.toFixed(3)} ms` : ""}${floorWindows.length ? `, with one Redis read ${floorWindows.at(-1).serverMs.toFixed(3)} ms` : ""}`,
      );
    }
    rows.push(reduceRow(host, route, windows, bareWindows, rawWindows, floorWindows));
  }
  return rows;
}

async function main() {
  const node = chooseServerNode();
  const hosts = HOSTS.filter((h) => ONLY.includes(h.key));
  const notes = [];
  const loadBefore = loadAverage();
  log(
    `servers on Node ${node}; ${ROUNDS} round(s) of ${TIMING.durationS} s windows; load average ${loadBefore}`,
  );
  const seedFile = writeSeedFile(USERS);
  const context = await services(hosts, notes);
  const bare = { servers: {} };
  const rows = [];
  const firstServerRoutes = ONLY_ROUTES.some((route) => !ENTERPRISE_ROUTES.includes(route));
  try {
    for (const host of hosts) {
      if (host.kind === "better-auth" && !context.betterAuth) continue;
      const started = firstServerRoutes ? await startHost(host, context, seedFile) : null;
      if (started === undefined) {
        notes.push(`No PostgreSQL database for ${host.label}: its rows are left out.`);
        continue;
      }
      if (started)
        try {
          if (host.kind === "example")
            await bareOf(host.framework, bare, started, host.store === "redis" ? context.redis : undefined);
          rows.push(...(await measureHost(host, started, bare)));
        } finally {
          await started.server.stop();
        }
      if (wantsEnterprise()) {
        const second = await startHost(host, context, writeEnterpriseSeedFile(), true);
        if (!second) {
          notes.push(
            `No second PostgreSQL database for ${host.label}: its OAuth and SCIM rows are left out.`,
          );
          continue;
        }
        try {
          rows.push(...(await measureHost(host, second, bare)));
        } finally {
          await second.server.stop();
        }
      }
      log(`${host.key} done; load average ${loadAverage()}`);
    }
  } finally {
    await Promise.all(Object.values(bare.servers).map((s) => s.stop()));
    await context.redis?.stop();
    const dropped = context.sql.drop();
    if (dropped.length > 0) log(`dropped PostgreSQL databases ${dropped.join(", ")}`);
  }
  const run = {
    date: new Date().toISOString(),
    node,
    cpus: cpus().length,
    rounds: ROUNDS,
    quick: QUICK,
    timing: TIMING,
    logouts: LOGOUTS,
    codes: CODES,
    loadBefore,
    loadAfter: loadAverage(),
    notes,
    rows,
  };
  console.table(printable(rows));
  for (const note of notes) console.log(note);
  console.log(`load average ${run.loadBefore} before, ${run.loadAfter} after`);
  const stem = writeResults(run);
  console.log(`written to bench/results/${stem}.json and .md`);
  if (process.env.PERFORMANCE_WRITE === "1") {
    writePerformanceDoc(run);
    console.log("written into docs/performance.md between the cpu-per-request markers");
  } else console.log(`\n${markdown(run)}`);
}

await main();
