// CPU profiles of the example servers under load: one server process per (framework, scenario)
// under `node --cpu-prof`, autocannon 10 connections, then where the server's CPU time went.
// Run: pnpm --filter portcullis-bench profile [express|fastify] [me|reset|verification|login]
// PROFILE_STORE=postgres: the example on store-sql, in a PostgreSQL database of its own (created
// through psql at BENCH_PG_URL, default the local server, and dropped afterwards);
// PROFILE_STORE=redis: on store-redis (BENCH_REDIS_URL) under a key prefix of its own.
import { spawnSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { summarize } from "./lib/cpu-profile.mjs";
import { loginScenario } from "./lib/rows-measure.mjs";
import { load, prepareScenarios, startExample, TMP, writeSeedFile } from "./lib/servers.mjs";

const frameworks = process.argv[2] ? [process.argv[2]] : ["express", "fastify"];
const scenarios = process.argv[3] ? [process.argv[3]] : ["me", "reset", "verification"];
const durationS = Number(process.env.PROFILE_SECONDS ?? 8);
const seedFile = writeSeedFile();
const STORE = process.env.PROFILE_STORE ?? "memory";
const PG_ADMIN = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const psql = (text) =>
  spawnSync("psql", [PG_ADMIN, "-v", "ON_ERROR_STOP=1", "-c", text], { encoding: "utf8" });

/** The example's environment for PROFILE_STORE, and what removes what it left. */
function storeEnv(tag) {
  if (STORE === "postgres") {
    const database = `portcullis_profile_${process.pid}_${tag}`;
    if (psql(`CREATE DATABASE ${database}`).status !== 0) throw new Error(`psql at ${PG_ADMIN} failed`);
    const url = new URL(PG_ADMIN);
    url.pathname = `/${database}`;
    return {
      env: { DATABASE_URL: url.toString() },
      cleanUp: () => psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`),
    };
  }
  if (STORE === "redis") {
    const prefix = `portcullis-profile:${process.pid}:${tag}:`;
    return {
      env: { REDIS_URL, REDIS_KEY_PREFIX: prefix },
      cleanUp: () =>
        spawnSync("sh", [
          "-c",
          `redis-cli -u ${REDIS_URL} --scan --pattern '${prefix}*' | xargs -r redis-cli -u ${REDIS_URL} del`,
        ]),
    };
  }
  return { env: {}, cleanUp: () => {} };
}
const INCLUSIVE = [
  "jwtVerify",
  "authenticate",
  "errorResponse",
  "errorMessage",
  "resolveLocale",
  "parseCookie",
  "structuredClone",
  "readJsonBody",
  "parseInput",
  "handle",
  "findById",
  "getCurrentUser",
  "jsonResponse",
  "sendWithCooldown",
  "requestPasswordReset",
  "resendVerification",
  "clientIp",
  "checkOrigin",
  "toISOString",
  "findAllowedAccessToken",
  "executeQuery",
  "compileQuery",
  "sendCommand",
  "login",
  "finishLogin",
  "verify",
  "countAttempt",
  "acceptPassword",
];

for (const framework of frameworks) {
  for (const name of scenarios) {
    const dir = join(TMP, `profile-${framework}-${name}`);
    rmSync(dir, { recursive: true, force: true });
    const spawned = performance.now();
    const store = storeEnv(`${framework}_${name}`);
    const server = await startExample(framework, {
      seedFile,
      env: store.env,
      nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`, "--cpu-prof-interval=200"],
    });
    const scenario = name === "login" ? loginScenario : (await prepareScenarios(server.url))[name];
    const result = await load(server.url, scenario, { durationS, warmupS: 1 });
    const loadEnded = performance.now();
    await server.stop();
    store.cleanUp();
    const file = join(dir, readdirSync(dir)[0]);
    // The profile runs from spawn to exit: keep the last `durationS` seconds of load.
    const fromMs = loadEnded - spawned - durationS * 1000;
    const summary = summarize(file, { fromMs, inclusive: INCLUSIVE });
    console.log(
      `\n## ${framework} (${STORE}) ${name}: ${Math.round(result.rps)} req/s, unexpected statuses ${result.unexpected}`,
    );
    console.log(`busy ${summary.busyMs.toFixed(0)} ms, idle ${summary.idleMs.toFixed(0)} ms`);
    console.table(summary.packages);
    console.table(summary.functions);
    console.table(summary.inclusive);
  }
}
