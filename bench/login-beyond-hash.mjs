// A password login's work beyond the hash on PostgreSQL, Portcullis beside Better Auth, in one
// run on the same PostgreSQL server (issue 51). Each contestant runs in a child process of its
// own on a database of its own (created and dropped here): 200 accounts, then sign-ins 10 at a
// time through a WHATWG Request handler (our Fetch adapter, Better Auth's `auth.handler`), both
// hashing with the same trivial stand-in, so every millisecond measured is beyond the hash: the
// process's CPU (JavaScript, the driver) plus that of the PostgreSQL backends serving the
// database, per sign-in (lib/login-windows.mjs). Contestants: Portcullis with createSqlStores'
// stores as they come (the audit log and the activity log on), Portcullis without the audit log,
// Better Auth 1.7.25 (installed into bench/.peer on first run). BENCH_ROUNDS (3) rounds, each
// running every contestant once in turn; a ratio is the median of the rounds' ratios.
//
//   pnpm --filter portcullis-bench login-beyond-hash        (builds the packages first)
//
// Env: BENCH_ROUNDS (3), LBH_LOGINS (3,000 per window), LBH_WINDOWS (3), LBH_WARMUP (1,000),
// BENCH_PG_URL (the server; default postgres://postgres@127.0.0.1:5432/postgres), BENCH_NODE.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { loadAverage } from "./lib/cpu-per-request-measure.mjs";
import { median } from "./lib/rows-measure.mjs";
import { chooseServerNode } from "./lib/rows-node.mjs";
import { installBetterAuth, PEER, prepareSqlDatabases } from "./lib/rows-services.mjs";
import { BENCH_DIR, ROOT, SECRET } from "./lib/servers.mjs";

const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
/** Issue 51: ours at most this share of Better Auth's work beyond the hash. */
const GOAL = 0.5;
const log = (...args) => console.error("[login-beyond-hash]", ...args);

const CONTESTANTS = [
  {
    key: "ours",
    label: "Portcullis, createSqlStores (audit log and activity on)",
    entry: join(BENCH_DIR, "lib", "login-beyond-hash-ours.mjs"),
    env: {},
  },
  {
    key: "ours_no_audit",
    label: "Portcullis, without the audit log",
    entry: join(BENCH_DIR, "lib", "login-beyond-hash-ours.mjs"),
    env: { LBH_AUDIT: "0" },
  },
  {
    key: "better_auth",
    label: "Better Auth 1.7.25",
    entry: join(PEER, "login-beyond-hash.mjs"),
    env: {},
    betterAuth: true,
  },
];

/** One contestant's child on a fresh database: its result line, parsed. */
function runChild(contestant, round) {
  const sql = prepareSqlDatabases({ sqlite: false, postgres: [`lbh_${contestant.key}_${round}`] });
  const url = Object.values(sql.urls)[0];
  if (!url) throw new Error("no PostgreSQL database could be created (BENCH_PG_URL)");
  try {
    const node = process.env.BENCH_NODE || process.execPath;
    const child = spawnSync(node, [contestant.entry], {
      cwd: contestant.betterAuth ? PEER : ROOT,
      env: {
        ...process.env,
        ...contestant.env,
        DATABASE_URL: url,
        AUTH_SECRET: SECRET,
        LBH_LABEL: contestant.key,
      },
      encoding: "utf8",
      maxBuffer: 16 * 1024 * 1024,
    });
    const line = child.stdout.split("\n").find((text) => text.startsWith("{"));
    if (child.status !== 0 || !line)
      throw new Error(`${contestant.key} exited with ${child.status}: ${child.stderr.slice(-2000)}`);
    return JSON.parse(line);
  } finally {
    sql.drop();
  }
}

const ms = (value) => `${value.toFixed(2)} ms`;

function markdown(run) {
  const lines = [
    "### A password login's work beyond the hash, beside Better Auth (issue 51)",
    "",
    `Written by \`pnpm --filter portcullis-bench login-beyond-hash\` (\`bench/login-beyond-hash.mjs\`), ${run.date.slice(0, 10)}: ${run.rounds} rounds, each contestant's child once per round on a database of its own on the same PostgreSQL server; Node ${run.node.replace(/^v/, "")}, ${run.cpus} CPUs, load average ${run.loadBefore} before and ${run.loadAfter} after. CPU per sign-in, medians of the rounds; the hash is a trivial stand-in in every contestant.`,
    "",
    "| contestant | process CPU | PostgreSQL CPU | beyond the hash | sign-ins/s | / Better Auth |",
    "|---|---:|---:|---:|---:|---:|",
  ];
  for (const row of run.rows)
    lines.push(
      `| ${row.label} | ${ms(row.serverMs)} | ${ms(row.databaseMs)} | ${ms(row.totalMs)} | ${Math.round(row.perSecond)} | ${row.ratio === undefined ? "–" : row.ratio.toFixed(2)} |`,
    );
  const ours = run.rows.find((row) => row.key === "ours");
  if (ours?.ratio !== undefined)
    lines.push(
      "",
      `Ours / Better Auth's, createSqlStores as they come: ${ours.ratio.toFixed(2)} (goal at most ${GOAL}: ${ours.ratio <= GOAL ? "met" : "not met"}).`,
    );
  return `${lines.join("\n")}\n`;
}

async function main() {
  const node = chooseServerNode();
  const contestants = CONTESTANTS.filter((c) => !c.betterAuth || installBetterAuth());
  if (contestants.some((c) => c.betterAuth))
    copyFileSync(join(BENCH_DIR, "servers", "better-auth-logins.mjs"), join(PEER, "login-beyond-hash.mjs"));
  else log("Better Auth could not be installed: its row and the ratios are left out");
  const loadBefore = loadAverage();
  const results = Object.fromEntries(contestants.map((c) => [c.key, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const contestant of contestants) {
      const result = runChild(contestant, round);
      results[contestant.key].push(result);
      log(
        `round ${round + 1} ${contestant.key}: ${ms(result.serverMs)} process + ${ms(result.databaseMs)} PostgreSQL per sign-in, ${Math.round(result.perSecond)}/s`,
      );
    }
  }
  const total = (result) => result.serverMs + result.databaseMs;
  const theirs = results.better_auth;
  const rows = contestants.map((contestant) => {
    const own = results[contestant.key];
    return {
      key: contestant.key,
      label: contestant.label,
      serverMs: median(own.map((r) => r.serverMs)),
      databaseMs: median(own.map((r) => r.databaseMs)),
      totalMs: median(own.map(total)),
      perSecond: median(own.map((r) => r.perSecond)),
      ratio: theirs ? median(own.map((r, i) => total(r) / total(theirs[i]))) : undefined,
      rounds: own,
    };
  });
  const run = {
    date: new Date().toISOString(),
    node,
    cpus: cpus().length,
    rounds: ROUNDS,
    loadBefore,
    loadAfter: loadAverage(),
    rows,
  };
  const dir = join(BENCH_DIR, "results");
  mkdirSync(dir, { recursive: true });
  const stem = `login-beyond-hash-${run.date.replace(/[:.]/g, "-")}`;
  writeFileSync(join(dir, `${stem}.json`), `${JSON.stringify(run, null, 2)}\n`);
  writeFileSync(join(dir, `${stem}.md`), markdown(run));
  console.log(markdown(run));
  console.log(`written to bench/results/${stem}.json and .md`);
}

await main();
