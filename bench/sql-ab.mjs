// This tree's Express example on PostgreSQL against another checkout's (BEFORE_DIR, e.g. main,
// built) and bare Express, in one run: each round measures bare, before and after one after the
// other (the order turning each round), on GET /me and the verification send in its cooldown
// (429). Each example gets a PostgreSQL database of its own (created through psql at BENCH_PG_URL,
// default the local server, dropped at the end) and SEED users (default 20).
//
//   node bench/sql-ab.mjs ../portcullis-main   (another checkout, e.g. of main; both trees built)
//
// Env: AB_ROUNDS (default 5), AB_SECONDS (window, default 4), AB_PATHS (me,verification).
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import {
  BENCH_DIR,
  load,
  prepareScenarios,
  ROOT,
  SECRET,
  startProcess,
  writeSeedFile,
} from "./lib/servers.mjs";

const BEFORE_DIR = process.argv[2];
if (!BEFORE_DIR) throw new Error("usage: node bench/sql-ab.mjs <checkout to compare with>");
const ROUNDS = Number(process.env.AB_ROUNDS ?? 5);
const SECONDS = Number(process.env.AB_SECONDS ?? 4);
const PATHS = (process.env.AB_PATHS ?? "me,verification").split(",");
const PG_ADMIN = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const psql = (text) =>
  spawnSync("psql", [PG_ADMIN, "-v", "ON_ERROR_STOP=1", "-c", text], { encoding: "utf8" });

const seedFile = writeSeedFile(Number(process.env.SEED ?? 20));
const databases = [];
function database(tag) {
  const name = `portcullis_ab_${process.pid}_${tag}`;
  if (psql(`CREATE DATABASE ${name}`).status !== 0) throw new Error(`psql at ${PG_ADMIN} failed`);
  databases.push(name);
  const url = new URL(PG_ADMIN);
  url.pathname = `/${name}`;
  return url.toString();
}

const example = (root, tag) =>
  startProcess(join(root, "examples", "express", "dist", "server.js"), {
    AUTH_SECRET: SECRET,
    SEED_FILE: seedFile,
    LOGIN_ALERTS: "false",
    ALLOW_HEADER_AUTH: "true",
    DATABASE_URL: database(tag),
  });

const servers = {};
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
try {
  servers.after = await example(ROOT, "after");
  servers.before = await example(BEFORE_DIR, "before");
  const scenarios = {
    after: await prepareScenarios(servers.after.url),
    before: await prepareScenarios(servers.before.url),
  };
  const bareRoutes = [];
  for (const scenario of Object.values(scenarios.after)) {
    const response = await fetch(`${servers.after.url}${scenario.path}`, scenario);
    bareRoutes.push({ ...scenario, status: response.status, body: await response.json() });
  }
  servers.bare = await startProcess(join(BENCH_DIR, "servers", "bare.mjs"), {
    BARE_ROUTES: JSON.stringify(bareRoutes),
    BARE_FRAMEWORK: "express",
  });
  const bareScenario = (scenario) => ({ ...scenario, headers: { "content-type": "application/json" } });
  for (const path of PATHS) {
    const figures = { bare: [], before: [], after: [] };
    const order = ["bare", "before", "after"];
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of round % 2 ? [...order].reverse() : order) {
        const scenario = side === "bare" ? bareScenario(scenarios.after[path]) : scenarios[side][path];
        const result = await load(servers[side].url, scenario, { durationS: SECONDS, warmupS: 1 });
        if (result.unexpected > 0 || result.errors > 0)
          console.log(`${path} ${side}: ${result.unexpected} unexpected statuses, ${result.errors} errors`);
        figures[side].push(result.rps);
      }
    }
    const ratio = (side) => median(figures[side].map((value, i) => value / figures.bare[i]));
    console.log(
      `${path}: bare ${Math.round(median(figures.bare))} req/s, before ${Math.round(median(figures.before))} (${ratio("before").toFixed(2)} of bare), after ${Math.round(median(figures.after))} (${ratio("after").toFixed(2)} of bare); after / before ${median(figures.after.map((value, i) => value / figures.before[i])).toFixed(2)}`,
    );
    console.log(
      `  windows: ${JSON.stringify(Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, v.map(Math.round)])))}`,
    );
  }
} finally {
  await Promise.all(Object.values(servers).map((server) => server.stop()));
  for (const name of databases) psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
