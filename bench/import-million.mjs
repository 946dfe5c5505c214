// `portcullis import` of 1,000,000 accounts from a JSON-lines file into PostgreSQL (spec §22: a
// million users in bounded memory; goal: under 10 minutes, memory flat).
// Writes the file to a temporary directory, streaming: unique addresses, a handful of real hashes
// made once at the start (bcrypt, Better Auth's scrypt, argon2id) and reused, since the import only
// parses a hash and never verifies it; ~30 % of the accounts with a GitHub link, ~10 % without a
// password, 1 % bad rows of five kinds. Creates a database of its own (portcullis_bench_import_<pid>)
// on PG_URL, builds the import package, runs its built CLI (packages/import/dist/cli.js) as a child
// process, samples the child's VmRSS and VmHWM from /proc every second, then counts the users,
// links and ledger entries against what the file holds. Drops the database and the file at the end.
// Run: node bench/import-million.mjs [--rows 100000]
//      IMPORT_NODE_ARGS="--max-old-space-size=64": the child's Node options (a cap on its heap shows
//      the import holds nothing per row: a run that kept its rows would die of it)
//      (PostgreSQL at PG_URL, default postgres://postgres@127.0.0.1:5432/postgres)
import { execFileSync, spawn } from "node:child_process";
import { randomBytes, scryptSync } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { hash as argon2Hash } from "@node-rs/argon2";
import bcrypt from "bcryptjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CLI = join(ROOT, "packages/import/dist/cli.js");
const pg = createRequire(join(ROOT, "packages/import/package.json"))("pg");

const { values } = parseArgs({ options: { rows: { type: "string" } } });
const ROWS = Number(values.rows ?? process.env.ROWS ?? 1_000_000);
if (!Number.isSafeInteger(ROWS) || ROWS < 1000) throw new Error("--rows must be a whole number ≥ 1000");
const adminUrl = process.env.PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const database = `portcullis_bench_import_${process.pid}`;
const targetUrl = new URL(adminUrl);
targetUrl.pathname = `/${database}`;
const MB = 1024 * 1024;

/** Two hashes of each kind the import takes from other systems, made once (cheap parameters: only their shape matters here). */
async function sampleHashes() {
  const password = "correct horse battery staple";
  const betterAuth = () => {
    const salt = randomBytes(16).toString("hex");
    const key = scryptSync(password.normalize("NFKC"), salt, 64, { N: 16384, r: 16, p: 1, maxmem: 64 * MB });
    return `${salt}:${key.toString("hex")}`;
  };
  const argon2 = () => argon2Hash(password, { algorithm: 2, memoryCost: 1024, timeCost: 1, parallelism: 1 });
  return [
    await bcrypt.hash(password, 4),
    await bcrypt.hash(password, 4),
    betterAuth(),
    betterAuth(),
    await argon2(),
    await argon2(),
  ];
}

/** The bad rows, one in a hundred, in turn; each names the skip reason the summary must give it. */
const BAD_ROWS = [
  ["invalid_json", (i) => `{"id": "u${i}", "email": "user${i}@example.test"`],
  ["invalid_row", (i) => JSON.stringify({ id: `u${i}`, name: "No address" })],
  ["invalid_email", (i) => JSON.stringify({ id: `u${i}`, email: `user${i} at example.test` })],
  [
    "unverifiable_hash",
    (i) => JSON.stringify({ id: `u${i}`, email: `user${i}@example.test`, passwordHash: "$2b$04$short" }),
  ],
  [
    "unknown_provider",
    (i) =>
      JSON.stringify({
        id: `u${i}`,
        email: `user${i}@example.test`,
        identities: [{ provider: "okta", subject: `o${i}` }],
      }),
  ],
];

/** Row `i` (0-based) of the file, and what the import should make of it. */
function row(i, hashes) {
  if (i % 100 === 99) {
    const [reason, line] = BAD_ROWS[Math.floor(i / 100) % BAD_ROWS.length];
    return { line: line(i), skip: reason, links: 0 };
  }
  const github = i % 10 < 3;
  const account = {
    id: `u${i}`,
    email: `user${i}@example${i % 13}.test`,
    emailVerified: i % 4 !== 0,
    name: i % 3 === 0 ? null : `User ${i}`,
    passwordHash: i % 10 === 5 ? null : hashes[i % hashes.length],
    ...(github && { identities: [{ provider: "github", subject: String(10_000_000 + i) }] }),
  };
  return { line: JSON.stringify(account), skip: null, links: github ? 1 : 0 };
}

/** Writes the file in blocks of 1,000 lines, waiting for the stream to drain; returns what the import should do with it. */
async function generate(file, hashes) {
  const out = createWriteStream(file);
  const expected = { users: 0, identities: 0, skipped: {} };
  for (let start = 0; start < ROWS; start += 1000) {
    let block = "";
    for (let i = start; i < Math.min(ROWS, start + 1000); i += 1) {
      const { line, skip, links } = row(i, hashes);
      block += `${line}\n`;
      if (skip) expected.skipped[skip] = (expected.skipped[skip] ?? 0) + 1;
      else {
        expected.users += 1;
        expected.identities += links;
      }
    }
    if (!out.write(block)) await new Promise((resolve) => out.once("drain", resolve));
  }
  await new Promise((resolve, reject) => out.end((error) => (error ? reject(error) : resolve())));
  return expected;
}

/** One reading of the child's memory: VmRSS and VmHWM (the peak so far), in MB; null once it is gone. */
async function memoryOf(pid) {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => null);
  const field = (name) =>
    Number(status?.match(new RegExp(`^${name}:\\s+(\\d+) kB`, "m"))?.[1] ?? Number.NaN) / 1024;
  return status === null ? null : { rss: field("VmRSS"), hwm: field("VmHWM") };
}

/** Runs the built CLI into the database; samples its memory every second and timestamps its progress lines. */
function runImport(file) {
  const nodeArgs = (process.env.IMPORT_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const args = [...nodeArgs, CLI, "import", "--from", "jsonl", "--source", file, "--target", targetUrl.href];
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  const run = {
    samples: [],
    progress: [],
    stdout: "",
    stderr: "",
    code: null,
    wallMs: 0,
    loadBefore: loadavg(),
  };
  const sampler = setInterval(async () => {
    const memory = await memoryOf(child.pid);
    if (memory) run.samples.push({ s: (performance.now() - started) / 1000, ...memory });
  }, 1000);
  child.stdout.on("data", (chunk) => {
    run.stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    run.stderr += chunk;
    for (const match of String(chunk).matchAll(/^(?:progress|done): (\d+) rows/gm))
      run.progress.push({ s: (performance.now() - started) / 1000, rows: Number(match[1]) });
  });
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearInterval(sampler);
      run.code = code;
      run.wallMs = performance.now() - started;
      run.loadAfter = loadavg();
      resolve(run);
    }),
  );
}

/** The rows the import left in the target's tables. */
async function countTables(client) {
  const count = async (table) => Number((await client.query(`select count(*) as n from ${table}`)).rows[0].n);
  return {
    users: await count("portcullis_users"),
    identities: await count("portcullis_identities"),
    ledger: await count("portcullis_import_ledger"),
  };
}

const mean = (list) => list.reduce((sum, value) => sum + value, 0) / list.length;
const fmt = (value, digits = 0) =>
  value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** The memory samples in quarters of the run: mean and max RSS of each, and the peak. */
function memoryReport(samples) {
  const quarter = Math.max(1, Math.floor(samples.length / 4));
  const parts = [0, 1, 2, 3].map((q) =>
    samples.slice(q * quarter, q === 3 ? samples.length : (q + 1) * quarter),
  );
  const lines = parts.map(
    (part, q) =>
      `  quarter ${q + 1}: RSS mean ${fmt(mean(part.map((x) => x.rss)), 1)} MB, max ${fmt(Math.max(...part.map((x) => x.rss)), 1)} MB`,
  );
  const step = Math.max(1, Math.floor(samples.length / 10));
  const series = samples.filter((_, i) => i % step === 0).map((x) => `${fmt(x.s)}s ${fmt(x.rss)}`);
  lines.push(`  RSS over time (s MB): ${series.join(", ")}`);
  const peak = Math.max(...samples.map((x) => x.hwm));
  const first = mean(parts[0].map((x) => x.rss));
  const last = mean(parts[3].map((x) => x.rss));
  return { lines, peak, first, last };
}

/** Rows a second within each quarter of the import's progress lines (is the rate steady as the tables grow?). */
function rateReport(progress) {
  if (progress.length < 8) return ["  (too few progress lines: one every 10,000 rows)"];
  const quarter = Math.floor(progress.length / 4);
  return [0, 1, 2, 3].map((q) => {
    const from = progress[q === 0 ? 0 : q * quarter - 1];
    const to = progress[q === 3 ? progress.length - 1 : (q + 1) * quarter - 1];
    return `  quarter ${q + 1}: ${fmt((to.rows - from.rows) / (to.s - from.s))} rows/s`;
  });
}

function printReport(run, expected, counts, fileBytes) {
  const { lines, peak, first, last } = memoryReport(run.samples);
  const load = (at) => at.map((value) => value.toFixed(1)).join(" ");
  // The rows the command reported last: all of them, unless it stopped early.
  const read = run.progress.at(-1)?.rows ?? 0;
  const skipped = Object.values(expected.skipped).reduce((sum, n) => sum + n, 0);
  console.log(`\nimport of ${fmt(ROWS)} rows (${fmt(fileBytes / MB, 1)} MB file), exit code ${run.code}`);
  console.log(
    `wall time ${fmt(run.wallMs / 1000, 1)} s (process start to exit), ${fmt(read / (run.wallMs / 1000))} rows/s over the ${fmt(read)} rows read`,
  );
  console.log(
    `load average (1, 5, 15 min) before ${load(run.loadBefore)}, after ${load(run.loadAfter)} (2 cores)`,
  );
  console.log(`rows/s by quarter of the run:\n${rateReport(run.progress).join("\n")}`);
  console.log(`child memory, ${run.samples.length} samples a second apart:\n${lines.join("\n")}`);
  console.log(
    `  peak (VmHWM) ${fmt(peak, 1)} MB; last quarter's mean RSS ${last >= first ? "+" : ""}${fmt(last - first, 1)} MB against the first's`,
  );
  console.log(
    `target: ${fmt(counts.users)} users (expected ${fmt(expected.users)}), ${fmt(counts.identities)} identities (expected ${fmt(expected.identities)}), ${fmt(counts.ledger)} ledger entries (expected ${fmt(expected.users)}); ${fmt(skipped)} bad rows`,
  );
  process.stdout.write(`summary printed by the command:\n${run.stdout}`);
}

/** Whether the summary names each skip reason with the expected count, and the tables hold what they should. */
function checks(run, expected, counts) {
  const problems = [];
  if (run.code !== 0) problems.push(`exit code ${run.code}: ${run.stderr.slice(-2000)}`);
  if (counts.users !== expected.users) problems.push(`users: ${counts.users} ≠ ${expected.users}`);
  if (counts.identities !== expected.identities)
    problems.push(`identities: ${counts.identities} ≠ ${expected.identities}`);
  if (counts.ledger !== expected.users) problems.push(`ledger: ${counts.ledger} ≠ ${expected.users}`);
  for (const [reason, n] of Object.entries(expected.skipped))
    if (!run.stdout.includes(`skipped ${reason}: ${n} `))
      problems.push(`the summary does not say ${reason}: ${n}`);
  return problems;
}

const dir = await mkdtemp(join(tmpdir(), "portcullis-import-bench-"));
const file = join(dir, "users.jsonl");
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
let created = false;
try {
  console.log(`building packages/import …`);
  execFileSync(process.execPath, ["scripts/build-changed.mjs", "packages/import"], {
    cwd: ROOT,
    stdio: "inherit",
  });
  const t0 = performance.now();
  const expected = await generate(file, await sampleHashes());
  const { size } = await stat(file);
  console.log(
    `generated ${fmt(ROWS)} rows (${fmt(size / MB, 1)} MB) in ${fmt((performance.now() - t0) / 1000, 1)} s`,
  );
  await admin.query(`create database ${database}`);
  created = true;
  const run = await runImport(file);
  const target = new pg.Client({ connectionString: targetUrl.href });
  await target.connect();
  const counts = await countTables(target).finally(() => target.end());
  printReport(run, expected, counts, size);
  const problems = checks(run, expected, counts);
  if (problems.length > 0) {
    console.error(`\nFAILED:\n- ${problems.join("\n- ")}`);
    process.exitCode = 1;
  } else console.log("\nall counts as expected");
} finally {
  if (created) await admin.query(`drop database if exists ${database} with (force)`);
  await admin.end();
  await rm(dir, { recursive: true, force: true });
}
