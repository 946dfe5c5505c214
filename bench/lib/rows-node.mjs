// The Nodes the benchmark's servers run on: Node 22 or newer for most rows (what hosts run), and
// Node 20 for the Fastify 429 rows that issue 33 also asks of it (past its end of life, but the
// packages install and run on it). A missing one comes from the npm registry's `node` package,
// installed once into an ignored folder under bench/.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BENCH_DIR } from "./servers.mjs";

const log = (...args) => console.error("[bench]", ...args);
const major = (version) => Number(version.replace(/^v/, "").split(".")[0]);
const versionOf = (binary) => execFileSync(binary, ["--version"], { encoding: "utf8" }).trim();

/**
 * `node@<range>` installed with npm into `dir` (once), answering its binary, or undefined when npm
 * could not install it. The folder carries a `.gitignore` of its own, so it is never committed.
 */
function installNode(range, dir) {
  const binary = join(dir, "node_modules", ".bin", "node");
  if (existsSync(binary)) return binary;
  log(`installing node@${range} into ${dir} (first run only)`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, ".gitignore"), "*\n");
  writeFileSync(join(dir, "package.json"), '{ "name": "bench-node", "private": true }\n');
  const result = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--no-save", `node@${range}`], {
    cwd: dir,
    stdio: "inherit",
  });
  return result.status === 0 ? binary : undefined;
}

/**
 * The Node the servers run on: BENCH_NODE, else this one when it is 22 or newer, else Node 22
 * from npm in bench/.peer-node. Sets BENCH_NODE (which startProcess reads) and answers the version.
 */
export function chooseServerNode() {
  if (process.env.BENCH_NODE) return versionOf(process.env.BENCH_NODE);
  if (major(process.version) >= 22) return process.version;
  const binary = installNode("22", join(BENCH_DIR, ".peer-node"));
  if (!binary) {
    log(`node@22 could not be installed: the servers run on this Node (${process.version})`);
    return process.version;
  }
  process.env.BENCH_NODE = binary;
  return versionOf(binary);
}

/**
 * A Node 20 for the `node20` rows: BENCH_NODE20, else this one when it is 20, else Node 20 from
 * npm in bench/.peer-node20. Answers `{ binary, version }`, or undefined when there is none.
 */
export function chooseNode20() {
  const binary =
    process.env.BENCH_NODE20 ||
    (major(process.version) === 20 ? process.execPath : installNode("20", join(BENCH_DIR, ".peer-node20")));
  if (!binary) return undefined;
  const version = versionOf(binary);
  if (major(version) !== 20) throw new Error(`BENCH_NODE20 is Node ${version}, not Node 20`);
  return { binary, version };
}

export const nodeMajor = major;
