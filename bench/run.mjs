// `pnpm bench`: in one run, the Express, Fastify and Hono examples (memory stores, 1,000 seeded
// users, bearer tokens), the examples on store-sql (SQLite, PostgreSQL) and store-redis, Fastify
// on Node 20 beside the servers' Node 22, a bare server of each framework answering the same JSON,
// Better Auth on Express (memory and PostgreSQL; installed on first run into bench/.peer, never a
// workspace dependency), raw argon2id verifies, and the store-memory footprint. Prints every ratio
// with its goal, writes the table to bench/results/ and the latest figures into bench/README.md.
// BENCH_QUICK=1: one pair of 3 s windows per ratio instead of BENCH_ROUNDS (default 3) pairs of 5 s.
// BENCH_ONLY=<groups>: only those rows (lib/rows-plan.mjs), starting only the servers they name.
import { execFileSync } from "node:child_process";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import {
  compare,
  cpuSplitLines,
  loginScenario,
  measurer,
  prepareBetterAuth,
  rawMeasure,
} from "./lib/rows-measure.mjs";
import { chooseNode20, chooseServerNode, nodeMajor } from "./lib/rows-node.mjs";
import { rowPlan, SCENARIO_LABELS, SERVERS, selectedGroups } from "./lib/rows-plan.mjs";
import { tableRow, writeReport } from "./lib/rows-report.mjs";
import {
  deleteRedisKeys,
  installBetterAuth,
  PEER,
  prepareSqlDatabases,
  REDIS_PREFIX,
  REDIS_URL,
  redisAvailable,
} from "./lib/rows-services.mjs";
import {
  BENCH_DIR,
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
const GROUPS = selectedGroups();
const PARTIAL = (process.env.BENCH_ONLY ?? "").trim() !== "";
const log = (...args) => console.error("[bench]", ...args);

/** The server keys the rows name (their own and their baselines'), raw argon2id left out. */
const serversOf = (rows) =>
  new Set(rows.flatMap((row) => [row.ours, row.base]).filter((key) => key !== "raw"));

/**
 * The Nodes the selected rows' servers need, each found (or installed) only when needed. Answers
 * them, the notes on what is left out, the servers that cannot run (`missing`) and `wanted(test)`:
 * the selected rows' servers whose spec passes `test`.
 */
function setUp() {
  const wanted = (test) =>
    [...serversOf(rowPlan("22").filter((row) => GROUPS.includes(row.group)))].filter((key) =>
      test(SERVERS[key]),
    );
  const notes = [];
  const missing = new Set();
  const nodes = {};
  if (wanted((s) => s.node === "22").length > 0) nodes.server = chooseServerNode();
  if (wanted((s) => s.node === "20").length > 0) {
    nodes.node20 = chooseNode20();
    if (!nodes.node20) notes.push("No Node 20 could be found or installed: the Node 20 rows are left out.");
  }
  for (const key of wanted((s) => s.node === "20")) if (!nodes.node20) missing.add(key);
  return { nodes, notes, missing, wanted };
}

/** Redis, Better Auth and the SQL databases of `wanted` servers; marks what is missing. */
async function setUpServices({ notes, missing, wanted }) {
  if (wanted((s) => s.redis).length > 0 && !(await redisAvailable())) {
    notes.push(`Redis at ${REDIS_URL} did not answer: the store-redis row is left out.`);
    for (const key of wanted((s) => s.redis)) missing.add(key);
  }
  const betterAuth = wanted((s) => s.kind === "better-auth");
  if (betterAuth.length > 0 && (process.env.BENCH_SKIP_BETTER_AUTH === "1" || !installBetterAuth())) {
    notes.push("Better Auth could not be installed (or BENCH_SKIP_BETTER_AUTH=1): its rows are left out.");
    for (const key of betterAuth) missing.add(key);
  }
  const withDatabase = wanted((s) => s.database !== undefined).filter((key) => !missing.has(key));
  const names = [...new Set(withDatabase.map((key) => SERVERS[key].database))];
  const sql = prepareSqlDatabases({
    sqlite: names.includes("sqlite"),
    postgres: names.filter((n) => n !== "sqlite"),
  });
  for (const key of withDatabase) {
    if (sql.urls[SERVERS[key].database] === undefined) {
      missing.add(key);
      notes.push(`No PostgreSQL database for ${key}: its rows are left out.`);
    }
  }
  return sql;
}

/** Starts the examples and Better Auth servers of `keys` at once (bare servers come later). */
function startServers(keys, { seedFile, sql, nodes }) {
  const servers = {};
  const nodeOf = (spec) => (spec.node === "20" ? nodes.node20.binary : undefined);
  const started = [];
  for (const key of keys) {
    const spec = SERVERS[key];
    const env = {};
    if (spec.database) env.DATABASE_URL = sql.urls[spec.database];
    if (spec.redis) Object.assign(env, { REDIS_URL, REDIS_KEY_PREFIX: REDIS_PREFIX });
    let server;
    if (spec.kind === "example") server = startExample(spec.framework, { seedFile, env, node: nodeOf(spec) });
    else if (spec.kind === "better-auth") {
      copyFileSync(join(BENCH_DIR, "servers", "better-auth.mjs"), join(PEER, "server.mjs"));
      server = startProcess(join(PEER, "server.mjs"), { ...env, AUTH_SECRET: SECRET, SEED_FILE: seedFile });
    } else continue;
    started.push(server.then((s) => (servers[key] = s)));
  }
  // settled: every start has ended (started or failed), so none is left running at the cleanup.
  return { servers, ready: Promise.all(started), settled: Promise.allSettled(started) };
}

/**
 * Each example's scenarios (its accounts put into their states) and Better Auth's equivalents;
 * then the bare servers, answering on each route what the first example answers there.
 */
async function prepare(keys, servers, nodes) {
  const scenarios = {};
  for (const key of Object.keys(servers)) {
    const spec = SERVERS[key];
    if (spec.kind === "example") scenarios[key] = await prepareScenarios(servers[key].url);
    if (spec.kind === "better-auth") scenarios[key] = await prepareBetterAuth(servers[key].url);
  }
  const bareKeys = keys.filter((key) => SERVERS[key].kind === "bare");
  if (bareKeys.length === 0) return scenarios;
  // The first example in SERVERS' order (Express on memory stores when it runs): the same on every run.
  const source = Object.keys(SERVERS).find((key) => SERVERS[key].kind === "example" && servers[key]);
  const bareRoutes = [];
  for (const scenario of Object.values(scenarios[source])) {
    const { method, path, headers, body } = scenario;
    const response = await fetch(`${servers[source].url}${path}`, { method, headers, body });
    bareRoutes.push({ method, path, status: response.status, body: await response.json() });
  }
  scenarios.bareRoutes = bareRoutes;
  const bare = join(BENCH_DIR, "servers", "bare.mjs");
  for (const key of bareKeys) {
    const { framework, node } = SERVERS[key];
    const env = { BARE_ROUTES: JSON.stringify(bareRoutes), BARE_FRAMEWORK: framework };
    servers[key] = await startProcess(bare, env, [], node === "20" ? nodes.node20.binary : undefined);
  }
  return scenarios;
}

/** The request a server answers for a scenario: an example's own, or Better Auth's equivalent. */
const scenarioOf = (scenarios, key, name) => {
  if (name === "login") return SERVERS[key].kind === "example" ? loginScenario : scenarios[key].login;
  return scenarios[key][name];
};

/** Measures each row (the baseline, then ours, ROUNDS times) and answers the printed rows. */
async function measureRows(plan, servers, scenarios, figures) {
  const measure = measurer(TIMING, figures);
  const raw = rawMeasure(TIMING, figures);
  const printed = [];
  for (const row of plan) {
    const name = row.scenario.split(":")[0];
    const oursScenario = scenarioOf(scenarios, row.ours, name);
    // Logins record where their CPU went (the server's and PostgreSQL's, cpuSplitLines).
    const pid = name === "login" ? servers[row.ours].child.pid : undefined;
    const ours = measure(`${row.scenario} ${row.ours}`, servers[row.ours].url, oursScenario, pid);
    let base = raw;
    if (row.base !== "raw") {
      const baseScenario =
        SERVERS[row.base].kind === "bare"
          ? { ...oursScenario, status: scenarios.bareRoutes.find((r) => r.path === oursScenario.path).status }
          : scenarioOf(scenarios, row.base, name);
      const basePid = name === "login" ? servers[row.base].child.pid : undefined;
      base = measure(`${row.scenario} ${row.base}`, servers[row.base].url, baseScenario, basePid);
    }
    const result = await compare(ours, base, ROUNDS);
    printed.push(tableRow(SCENARIO_LABELS[row.scenario], row.framework, result, row.baseName, row.goal));
  }
  return printed;
}

/** store-memory's footprint (memory.mjs, own process, --expose-gc) and its line of the report. */
function memoryFootprint() {
  const output = execFileSync(process.execPath, ["--expose-gc", join(BENCH_DIR, "memory.mjs")], {
    encoding: "utf8",
  });
  const memory = JSON.parse(output.trim().split("\n").pop());
  // "Back near the start": the store holds nothing (every entry swept) and the heap is back within
  // 5 MB of where it started; the RSS residual is printed too (pages not yet handed back to the OS).
  const ok = memory.growthMb < 300 && memory.held === 0 && memory.heapResidualMb < 5;
  const line = `store-memory, 1,000,000 cooldown keys + 100,000 sessions: +${memory.growthMb.toFixed(0)} MB RSS (goal < 300 MB), after expiry and a sweep ${memory.held} entries held, heap ${memory.heapResidualMb.toFixed(1)} MB and RSS ${memory.residualMb.toFixed(0)} MB above the start (goal: near the start, heap < 5 MB): ${ok ? "met" : "NOT met"}`;
  return { memory, line };
}

/** Stops every server, deletes the run's Redis keys and drops its databases (once). */
const cleaner = (servers, sql, withRedis) => {
  let done;
  return () => {
    done ??= (async () => {
      await Promise.all(Object.values(servers).map((s) => s.stop()));
      if (withRedis) log(`deleted ${await deleteRedisKeys()} Redis keys under ${REDIS_PREFIX}`);
      const dropped = sql.drop();
      if (dropped.length > 0) log(`dropped PostgreSQL databases ${dropped.join(", ")}`);
    })();
    return done;
  };
};

async function main() {
  const context = setUp();
  const sql = await setUpServices(context);
  const { nodes, notes, missing } = context;
  const plan = rowPlan(nodes.server ? String(nodeMajor(nodes.server)) : "22").filter(
    (row) => GROUPS.includes(row.group) && !missing.has(row.ours) && !missing.has(row.base),
  );
  const keys = [...serversOf(plan)];
  if (nodes.server)
    log(
      `servers run on Node ${nodes.server}${nodes.node20 ? `, the Node 20 rows on ${nodes.node20.version}` : ""}`,
    );
  log(`groups: ${GROUPS.join(", ")}`);
  if (keys.length > 0)
    log(`starting ${keys.length} servers and seeding 1,000 users each (argon2id, takes a while)`);
  const { servers, ready, settled } = startServers(keys, { seedFile: writeSeedFile(), sql, nodes });
  const withRedis = keys.some((key) => SERVERS[key].redis);
  const cleanUp = cleaner(servers, sql, withRedis);
  process.once("SIGINT", () => cleanUp().then(() => process.exit(130)));
  const figures = {};
  let rows;
  try {
    await ready;
    const scenarios = await prepare(keys, servers, nodes);
    rows = await measureRows(plan, servers, scenarios, figures);
  } finally {
    await settled;
    await cleanUp();
  }
  const footprint = GROUPS.includes("memory-footprint") ? memoryFootprint() : undefined;
  if (rows.length > 0) console.table(rows);
  if (footprint) console.log(footprint.line);
  notes.push(...cpuSplitLines(figures));
  for (const note of notes) console.log(note);
  const run = {
    rows,
    figures,
    memory: footprint?.memory,
    memoryLine: footprint?.line,
    notes,
    timing: TIMING,
  };
  const nodeNames = { server: keys.length > 0 ? nodes.server : undefined, node20: nodes.node20?.version };
  Object.assign(run, { rounds: ROUNDS, quick: QUICK, groups: GROUPS, partial: PARTIAL, nodes: nodeNames });
  const stamp = writeReport(run);
  console.log(`\nwritten to bench/results/${stamp}.md and bench/README.md`);
}

await main();
