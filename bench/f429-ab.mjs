// The Fastify 429 paths (reset-request and verification send, each in its cooldown) of this tree's
// Fastify example against another checkout's (BASE_DIR, e.g. main, built) and bare Fastify
// (servers/bare.mjs answering the same status and JSON), in one run, on each Node of AB_NODES.
// Fresh servers per Node (memory stores, 20 seeded users, a cooldown of a day so no window
// outlives it); each round measures bare, base and ours one after the other (the order turning
// each round); per window, requests/s and the server's CPU per request (utime + stime of
// /proc/<pid>/stat before and after the window, over the requests answered).
//
//   node bench/f429-ab.mjs ../portcullis-main   (another checkout, e.g. of main; both trees built)
//
// Env: AB_ROUNDS (default 3), AB_SECONDS (window, default 3), AB_PATHS (reset,verification),
// AB_NODES (comma-separated paths of node binaries; default this Node and bench/.peer-node's Node 22
// when installed there, as run.mjs installs it).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { processCpuS } from "./lib/cpu-split.mjs";
import {
  BENCH_DIR,
  load,
  prepareScenarios,
  ROOT,
  SECRET,
  startProcess,
  writeSeedFile,
} from "./lib/servers.mjs";

const BASE_DIR = process.argv[2];
if (!BASE_DIR) throw new Error("usage: node bench/f429-ab.mjs <checkout to compare with>");
const ROUNDS = Number(process.env.AB_ROUNDS ?? 3);
const SECONDS = Number(process.env.AB_SECONDS ?? 3);
const PATHS = (process.env.AB_PATHS ?? "reset,verification").split(",");
const peerNode = join(BENCH_DIR, ".peer-node", "node_modules", ".bin", "node");
const NODES = process.env.AB_NODES
  ? process.env.AB_NODES.split(",")
  : [process.execPath, ...(existsSync(peerNode) ? [peerNode] : [])];

const seedFile = writeSeedFile(20);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** utime + stime of a process, in µs. */
const cpuUs = (pid) => processCpuS(pid) * 1e6;

const example = (root, node) =>
  startProcess(join(root, "examples", "fastify", "dist", "server.js"), {
    BENCH_NODE: node,
    AUTH_SECRET: SECRET,
    SEED_FILE: seedFile,
    LOGIN_ALERTS: "false",
    ALLOW_HEADER_AUTH: "true",
    EMAIL_COOLDOWN_SECONDS: "86400",
  });

async function measureNode(node) {
  process.env.BENCH_NODE = node; // startProcess reads it
  const servers = {};
  const results = {};
  try {
    servers.ours = await example(ROOT, node);
    servers.base = await example(BASE_DIR, node);
    const scenarios = {
      ours: await prepareScenarios(servers.ours.url),
      base: await prepareScenarios(servers.base.url),
    };
    const bareRoutes = [];
    for (const path of PATHS) {
      const scenario = scenarios.ours[path];
      const response = await fetch(`${servers.ours.url}${scenario.path}`, scenario);
      bareRoutes.push({ ...scenario, status: response.status, body: await response.json() });
    }
    servers.bare = await startProcess(join(BENCH_DIR, "servers", "bare.mjs"), {
      BARE_ROUTES: JSON.stringify(bareRoutes),
      BARE_FRAMEWORK: "fastify",
    });
    const bareScenario = (scenario) =>
      scenario.body
        ? { ...scenario, headers: { "content-type": "application/json" } }
        : { ...scenario, headers: {} };
    for (const path of PATHS) {
      const rps = { bare: [], base: [], ours: [] };
      const cpu = { bare: [], base: [], ours: [] };
      const order = ["bare", "base", "ours"];
      for (let round = 0; round < ROUNDS; round++) {
        for (const side of round % 2 ? [...order].reverse() : order) {
          const scenario = side === "bare" ? bareScenario(scenarios.ours[path]) : scenarios[side][path];
          // The warm-up window of load() runs first; measure the CPU around the measured window only.
          await load(servers[side].url, scenario, { durationS: 1, warmupS: 0 });
          const pid = servers[side].child.pid;
          const before = cpuUs(pid);
          const result = await load(servers[side].url, scenario, { durationS: SECONDS, warmupS: 0 });
          const used = cpuUs(pid) - before;
          if (result.unexpected > 0 || result.errors > 0)
            console.log(
              `  ${path} ${side}: ${result.unexpected} unexpected statuses, ${result.errors} errors`,
            );
          rps[side].push(result.rps);
          cpu[side].push(used / result.total);
        }
      }
      results[path] = { rps, cpu };
      const ratio = (a, b) => median(rps[a].map((value, i) => value / rps[b][i]));
      const us = (side) => median(cpu[side]).toFixed(1);
      console.log(
        `${path}: bare ${Math.round(median(rps.bare))} req/s (${us("bare")} µs CPU/req), base ${Math.round(median(rps.base))} (${us("base")} µs, ${ratio("base", "bare").toFixed(2)} of bare), ours ${Math.round(median(rps.ours))} (${us("ours")} µs, ${ratio("ours", "bare").toFixed(2)} of bare); ours / base ${ratio("ours", "base").toFixed(2)}`,
      );
      console.log(
        `  windows req/s: ${JSON.stringify(Object.fromEntries(Object.entries(rps).map(([k, v]) => [k, v.map(Math.round)])))}`,
      );
    }
  } finally {
    await Promise.all(Object.values(servers).map((server) => server.stop()));
  }
  return results;
}

for (const node of NODES) {
  const { execFileSync } = await import("node:child_process");
  const version = execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
  console.log(
    `--- servers on Node ${version}; ${ROUNDS} rounds of ${SECONDS} s windows; load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`,
  );
  await measureNode(node);
}
