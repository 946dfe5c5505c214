#!/usr/bin/env node
// Builds the workspace's packages and examples whose build inputs changed since their last build
// by this script, and skips the others: `pnpm dev` and each package's `test` script start with it.
// A package is up to date when the hash of its inputs (its sources but tests, its package.json and
// build configuration, those of the packages it depends on, and the workspace's tsup.shared.ts,
// tsconfig.base.json and pnpm-lock.yaml) is the one recorded at its last build, and its dist
// still holds the files of that build, unchanged (size and modification time): a fresh clone, a
// deleted dist or a build by anything else (`pnpm -r build`) builds again. The records live in
// node_modules/.cache/portcullis-build, so a new install starts from nothing.
//
// Usage: node scripts/build-changed.mjs [package dir…]. Without a directory: every package and
// example; with some (e.g. `.` from a package's script): those and what they depend on, test
// tooling included (dependencies, peer and dev dependencies in the workspace).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CACHE = join(ROOT, "node_modules/.cache/portcullis-build");
/** Workspace files every build reads. */
const SHARED_INPUTS = ["tsup.shared.ts", "tsconfig.base.json", "pnpm-lock.yaml", "scripts/build-changed.mjs"];
const GROUPS = ["packages", "examples"];

/** Every package and example: `{ name, dir, manifest }` by name. */
function workspacePackages() {
  const packages = new Map();
  for (const group of GROUPS) {
    for (const entry of readdirSync(join(ROOT, group), { withFileTypes: true })) {
      const dir = join(ROOT, group, entry.name);
      if (!entry.isDirectory() || !existsSync(join(dir, "package.json"))) continue;
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      if (manifest.scripts?.build) packages.set(manifest.name, { name: manifest.name, dir, manifest });
    }
  }
  return packages;
}

/** The workspace packages `pkg` names in `fields` of its package.json. */
const workspaceDeps = (pkg, packages, fields) =>
  fields.flatMap((field) => Object.keys(pkg.manifest[field] ?? {})).filter((name) => packages.has(name));

/** `names` and everything they reach through `fields`, each once. */
function closure(names, packages, fields) {
  const seen = new Set();
  const visit = (name) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const dep of workspaceDeps(packages.get(name), packages, fields)) visit(dep);
  };
  for (const name of names) visit(name);
  return [...seen];
}

/** The files under `dir` a build reads: not node_modules, dist or tests. */
function inputFiles(dir, top = true) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const wanted = top ? ["src", "scripts"].includes(entry.name) : entry.name !== "node_modules";
      return wanted ? inputFiles(path, false) : [];
    }
    if (top) return /\.(json|ts|mts|mjs|js|cjs)$/.test(entry.name) ? [path] : [];
    return /\.test\.ts$/.test(entry.name) ? [] : [path];
  });
}

function hashFiles(files) {
  const hash = createHash("sha256");
  for (const file of [...files].sort())
    hash.update(relative(ROOT, file)).update("\0").update(readFileSync(file));
  return hash.digest("hex");
}

/** The key of each package: its inputs and those of its dependencies (and peers), transitively. */
function inputKeys(packages) {
  const shared = hashFiles(SHARED_INPUTS.map((file) => join(ROOT, file)).filter((file) => existsSync(file)));
  const own = new Map([...packages.values()].map((pkg) => [pkg.name, hashFiles(inputFiles(pkg.dir))]));
  const keys = new Map();
  for (const name of packages.keys()) {
    const hash = createHash("sha256").update(shared);
    for (const dep of closure([name], packages, ["dependencies", "peerDependencies"]).sort()) {
      hash.update(dep).update(own.get(dep));
    }
    keys.set(name, hash.digest("hex"));
  }
  return keys;
}

/** Each file of `dir` (recursively) with its size and modification time. */
function listing(dir, base = dir) {
  if (!existsSync(dir)) return {};
  const files = {};
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) Object.assign(files, listing(path, base));
    else {
      const { size, mtimeMs } = statSync(path);
      files[relative(base, path)] = [size, mtimeMs];
    }
  }
  return files;
}

const stampFile = (name) => join(CACHE, `${name.replace(/[@/]/g, "_")}.json`);

function upToDate(pkg, key) {
  if (!existsSync(stampFile(pkg.name))) return false;
  const stamp = JSON.parse(readFileSync(stampFile(pkg.name), "utf8"));
  const dist = listing(join(pkg.dir, "dist"));
  return (
    stamp.key === key && Object.keys(dist).length > 0 && JSON.stringify(dist) === JSON.stringify(stamp.dist)
  );
}

function selected(packages, args) {
  if (args.length === 0) return [...packages.keys()];
  const named = args.map((arg) => {
    const dir = resolve(arg);
    const pkg = [...packages.values()].find((candidate) => resolve(candidate.dir) === dir);
    if (!pkg) throw new Error(`build-changed: ${arg} is not a package or example with a build script`);
    return pkg.name;
  });
  return closure(named, packages, ["dependencies", "peerDependencies", "devDependencies"]);
}

const LOCK = join(CACHE, "lock");

/**
 * Whether the build-changed that holds the lock is gone: its process no longer runs, or it died
 * between making the lock and writing its pid (a lock without a pid for 10 s).
 */
function holderGone() {
  try {
    process.kill(Number(readFileSync(join(LOCK, "pid"), "utf8")), 0);
    return false;
  } catch (error) {
    if (error.code === "ESRCH") return true;
    if (error.code !== "ENOENT") return false;
    try {
      return Date.now() - statSync(LOCK).mtimeMs > 10_000;
    } catch {
      return false;
    }
  }
}

/**
 * Waits until no other build-changed of this checkout runs, then holds the lock (a directory: its
 * creation is atomic). Two at once built the same package into the same dist and one failed (test
 * files that build what they run, started together); the second now finds it built.
 */
function lock() {
  mkdirSync(CACHE, { recursive: true });
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; ; waited += 1) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, "pid"), String(process.pid));
      return;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
    }
    if (holderGone()) rmSync(LOCK, { recursive: true, force: true });
    else {
      if (waited === 0) console.log("build-changed: waiting for another build-changed of this checkout");
      Atomics.wait(pause, 0, 0, 200);
    }
  }
}

function main() {
  lock();
  try {
    build();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

function build() {
  const started = Date.now();
  const packages = workspacePackages();
  const names = selected(packages, process.argv.slice(2));
  const before = inputKeys(packages);
  const stale = names.filter((name) => !upToDate(packages.get(name), before.get(name)));
  const took = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  if (stale.length === 0) {
    console.log(`build-changed: ${names.length} of ${names.length} up to date, nothing to build (${took()})`);
    return;
  }
  console.log(`build-changed: building ${stale.length} of ${names.length}: ${stale.join(", ")}`);
  const filters = stale.flatMap((name) => ["--filter", name]);
  // pnpm runs the builds in dependency order, several at once; on Windows pnpm is a .cmd file.
  execFileSync("pnpm", [...filters, "run", "build"], {
    cwd: ROOT,
    stdio: "inherit",
    shell: process.platform === "win32",
  });
  // Recorded only for inputs that did not change while building (else the next run builds again).
  const after = inputKeys(packages);
  mkdirSync(CACHE, { recursive: true });
  for (const name of stale) {
    if (after.get(name) !== before.get(name)) continue;
    const dist = listing(join(packages.get(name).dir, "dist"));
    writeFileSync(stampFile(name), JSON.stringify({ key: before.get(name), dist }));
  }
  console.log(`build-changed: built ${stale.length} (${took()})`);
}

try {
  main();
} catch (error) {
  console.error(error instanceof Error && "status" in error ? "build-changed: the build failed" : error);
  process.exit(1);
}
