// This tree's example servers against another checkout's, over HTTP, in one run: the rows of
// `pnpm bench` that compare a build with itself ("no worse than that build"). Each pair is the
// same framework and stores from both checkouts, started side by side; windows alternate (A B,
// then B A, …) and each ratio is the median of the rounds' pairs, this tree / the other.
// Beside requests per second, the server's own CPU per answer (its /proc figures, argon2id's
// threads included), which moves less with what else the machine runs.
//
//   node bench/builds-ab.mjs <other checkout>   (both built: packages and examples/*/dist)
//   pnpm --filter portcullis-bench builds-ab <other checkout, an absolute path>   (builds this tree)
//
// The other checkout is e.g. a `git worktree add` of an older commit, installed and built there.
// Env: AB_ROUNDS (pairs of windows per row, default 5), AB_SECONDS (window, default 4),
// AB_FRAMEWORKS (default express,fastify,hono), AB_SCENARIOS (default me,reset,verification,login),
// AB_POSTGRES=1 (also Express on PostgreSQL, GET /me and login: a database per side, created through
// psql at BENCH_PG_URL and dropped at the end), BENCH_NODE (the servers' Node; otherwise Node 22 as
// `pnpm bench` picks it).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { processCpuS } from "./lib/cpu-split.mjs";
import { loginScenario, median } from "./lib/rows-measure.mjs";
import { chooseServerNode } from "./lib/rows-node.mjs";
import { prepareSqlDatabases } from "./lib/rows-services.mjs";
import {
  exampleServerPath,
  load,
  prepareScenarios,
  ROOT,
  startExample,
  writeSeedFile,
} from "./lib/servers.mjs";

const OTHER = process.argv[2] ? resolve(process.argv[2]) : undefined;
const ROUNDS = Number(process.env.AB_ROUNDS ?? 5);
const SECONDS = Number(process.env.AB_SECONDS ?? 4);
const FRAMEWORKS = (process.env.AB_FRAMEWORKS ?? "express,fastify,hono").split(",");
const SCENARIOS = (process.env.AB_SCENARIOS ?? "me,reset,verification,login").split(",");

if (!OTHER) throw new Error("usage: node bench/builds-ab.mjs <other checkout>");
for (const root of [ROOT, OTHER])
  for (const framework of FRAMEWORKS)
    if (!existsSync(exampleServerPath(root, framework)))
      throw new Error(`${exampleServerPath(root, framework)} is missing: build that checkout first`);

chooseServerNode(); // sets BENCH_NODE to Node 22 from npm when this Node is older
const node = process.env.BENCH_NODE || process.execPath;
const loadAverage = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(" ");
const commitOf = (root) =>
  spawnSync("git", ["-C", root, "log", "-1", "--format=%h %cs"], { encoding: "utf8" }).stdout.trim();

/** `ROOT`'s and `OTHER`'s example server for `host`, on their own PostgreSQL databases when it has one. */
async function startPair(host) {
  const databases = host.database ? prepareSqlDatabases({ postgres: ["ab_ours", "ab_other"] }) : undefined;
  if (databases && Object.keys(databases.urls).length < 2) {
    databases.drop();
    throw new Error("AB_POSTGRES=1: psql could not create the two databases (BENCH_PG_URL)");
  }
  const env = (name) => (databases ? { DATABASE_URL: databases.urls[name] } : {});
  const servers = [];
  const stop = async () => {
    await Promise.all(servers.map((server) => server.stop()));
    databases?.drop();
  };
  try {
    for (const [root, name] of [
      [ROOT, "ab_ours"],
      [OTHER, "ab_other"],
    ])
      servers.push(await startExample(host.framework, { seedFile, env: env(name), node, root }));
  } catch (error) {
    await stop();
    throw error;
  }
  return { ours: servers[0], other: servers[1], stop };
}

/** One window of `scenario` on `server`: requests/s and the server's CPU ms per answer. */
async function window(server, scenario) {
  let cpuMs = 0;
  const result = await load(server.url, scenario, {
    durationS: SECONDS,
    warmupS: 1,
    around: async (run) => {
      const before = processCpuS(server.child.pid);
      const measured = await run();
      cpuMs = ((processCpuS(server.child.pid) - before) * 1000) / Math.max(1, measured.requests.total);
      return measured;
    },
  });
  // A cooldown that ends during the run lets one request through (200, then 429 again): logged.
  // More than 1 % of other answers, or any socket error, means the row measures something else.
  if (result.errors > 0 || result.unexpected > result.total / 100)
    throw new Error(`${scenario.path}: ${result.unexpected} unexpected answers, ${result.errors} errors`);
  if (result.unexpected > 0)
    console.error(`${scenario.path}: ${result.unexpected} unexpected answers of ${result.total}`);
  return { rps: result.rps, cpuMs };
}

/** ROUNDS pairs of windows, alternating which side goes first; the medians and the pairs' ratios. */
async function row(ours, other, scenarioOurs, scenarioOther) {
  const pairs = [];
  for (let round = 0; round < ROUNDS; round++) {
    const first = round % 2 === 0;
    const a = first ? await window(ours, scenarioOurs) : undefined;
    const b = await window(other, scenarioOther);
    const mine = a ?? (await window(ours, scenarioOurs));
    pairs.push({ ours: mine, other: b });
  }
  return {
    ours: median(pairs.map((pair) => pair.ours.rps)),
    other: median(pairs.map((pair) => pair.other.rps)),
    ratio: median(pairs.map((pair) => pair.ours.rps / pair.other.rps)),
    cpuOurs: median(pairs.map((pair) => pair.ours.cpuMs)),
    cpuOther: median(pairs.map((pair) => pair.other.cpuMs)),
    cpuRatio: median(pairs.map((pair) => pair.other.cpuMs / pair.ours.cpuMs)),
  };
}

const seedFile = writeSeedFile();
const hosts = FRAMEWORKS.map((framework) => ({ framework, label: framework, database: false }));
if (process.env.AB_POSTGRES === "1")
  hosts.push({ framework: "express", label: "express + PostgreSQL", database: true });
console.log(
  `this tree ${commitOf(ROOT)} against ${OTHER} (${commitOf(OTHER)}); servers on ${spawnSync(node, ["--version"], { encoding: "utf8" }).stdout.trim()}; ${ROUNDS} pairs of ${SECONDS} s windows; load average ${loadAverage()}`,
);
const lines = [];
for (const host of hosts) {
  const { ours, other, stop } = await startPair(host);
  try {
    const scenariosOurs = { ...(await prepareScenarios(ours.url)), login: loginScenario };
    const scenariosOther = { ...(await prepareScenarios(other.url)), login: loginScenario };
    const names = host.database ? SCENARIOS.filter((name) => name === "me" || name === "login") : SCENARIOS;
    for (const name of names) {
      const result = await row(ours, other, scenariosOurs[name], scenariosOther[name]);
      const line = `| ${host.label} | ${name} | ${Math.round(result.ours)} | ${Math.round(result.other)} | **${result.ratio.toFixed(3)}** | ${result.cpuOurs.toFixed(3)} / ${result.cpuOther.toFixed(3)} | **${result.cpuRatio.toFixed(3)}** |`;
      console.log(line);
      lines.push(line);
    }
  } finally {
    await stop();
  }
}
console.log(
  "\n| host | route | this tree req/s | other req/s | ratio (this / other) | server CPU ms per answer, this / other | CPU ratio (other / this) |\n|---|---|---:|---:|---:|---:|---:|",
);
for (const line of lines) console.log(line);
console.log(`load average at the end ${loadAverage()}`);
