// The new tables at scale (issue 51), on PostgreSQL (store-sql): four host paths timed through the
// core's HTTP handler in process, first at a small size, then after growing the same database to
// full size: 1,000,000 memberships over 100,000 organizations (a user, a session and a SCIM user
// each; an SSO connection with SCIM, a domain and a SCIM group per organization), 1,000,000 API
// keys and 10,000,000 audit entries.
//
// - permission check: `handler.authenticate(request, "project:read")` (what `requirePermission`
//   calls) for a member whose access token names an active organization;
// - API-key request: `handler.authenticate(request)` with `X-API-Key` (what `requireAuth` calls);
// - audit-log page: GET /organizations/o1/audit-log as its owner, the first page and the page of
//   the first one's cursor (organization 1 holds a tenth of the entries: 1,000 small, 1,000,000 full);
// - SCIM filter: GET /scim/v2/Users?filter=userName eq "…" with an organization's SCIM token.
//
// The actors (20 members, 20 keys, 20 SCIM users) are picked at random over what is seeded at
// each size. At each size, each path's statements are recorded and run again under EXPLAIN
// (ANALYZE, BUFFERS): the database's own time and the pages touched, per path. Then, at full size,
// EXPLAIN (ANALYZE) of every statement the paths sent: a sequential scan of a store table is
// reported. Goal: each full-size median within 15 % of its small-size figure, and no sequential
// scan.
//
//   pnpm bench:scale-tenancy                  (builds, then 13-25 minutes on a shared 2-core VM)
//   SCALE=0.01 node bench/scale-tenancy.mjs   (full size a hundredth: a check of the bench itself)
//
// Env: BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres; a database of its own is
// created and dropped at the end), SCALE (multiplies the full sizes, default 1), SAMPLES (per path
// and size, default 1000, in 10 rounds), WARMUP (calls a path before each measurement, default
// 400). The small size is a tenth of the full one, at most 10,000 memberships (1,000
// organizations), 10,000 API keys and 10,000 audit entries. Writes the table as JSON to
// bench/results/scale-tenancy-<time>.json.
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { handlerRequest, inProcessAuth } from "./lib/handler-request.mjs";
import { explainSeen, tableSizes } from "./lib/scale-checks.mjs";
import {
  core,
  createSqlStores,
  Kysely,
  load1,
  PG_ADMIN,
  PostgresDialect,
  pg,
  RecordingClient,
  seen,
  setRecording,
  summary,
} from "./lib/scale-measure.mjs";
import {
  MEMBERS_PER_ORGANIZATION,
  memberEmail,
  organizationOf,
  scimToken,
  seedApiKeys,
  seedAudit,
  seedMembers,
} from "./lib/scale-tenancy-seed.mjs";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const { createSso } = await import(pathToFileURL(join(ROOT, "packages/sso/dist/index.js")).href);

const SCALE = Number(process.env.SCALE ?? 1);
const SAMPLES = Number(process.env.SAMPLES ?? 1000);
/**
 * Calls of each path before each measurement: the small size is the process's first, and its
 * early rounds should not time code V8 has not optimized yet while the full size, later, runs warm.
 */
const WARMUP = Number(process.env.WARMUP ?? 400);
const ROUNDS = 10;
const PASSWORD = "correct horse battery staple";
/** Full sizes; the small one a tenth of each, at most 10,000 (memberships a multiple of 10). */
const FULL = {
  members: Math.round((1_000_000 * SCALE) / MEMBERS_PER_ORGANIZATION) * MEMBERS_PER_ORGANIZATION,
  apiKeys: Math.round(1_000_000 * SCALE),
  audit: Math.round(10_000_000 * SCALE),
};
const SMALL = Object.fromEntries(
  Object.entries(FULL).map(([name, n]) => [name, Math.min(10_000, Math.round(n / 100) * 10)]),
);
const PATHS = ["permission", "apiKey", "auditFirst", "auditCursor", "scim"];
const LABELS = {
  permission: "permission check (active organization)",
  apiKey: "API-key request",
  auditFirst: "organization audit log, first page",
  auditCursor: "organization audit log, cursor page",
  scim: 'SCIM Users filter=userName eq "…"',
};
const fmt = (n) => n.toLocaleString("en-US");
const describe = (size) =>
  `${fmt(size.members)} memberships over ${fmt(size.members / MEMBERS_PER_ORGANIZATION)} organizations, ${fmt(size.apiKeys)} API keys, ${fmt(size.audit)} audit entries`;

/** The core on `stores` with organizations, API keys, the audit log and SSO with SCIM on. */
function authOn(stores) {
  return inProcessAuth(core, {
    secret: "scale-tenancy-secret-yAEoUyHUyQNxa_NIrlTvpITTjFXcXZF8WX0iqYt",
    stores,
    // Cheap argon2id: logins only set the actors up, they are not timed.
    passwordHasher: core.createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    organizations: { permissions: ["project:read"], memberPermissions: ["project:read"] },
    // Every timed request must pass: the key's counter is still kept, in blocks.
    apiKeys: { requestsPerMinute: 1_000_000 },
    sso: createSso({
      store: stores.sso,
      scim: stores.scim,
      resolveTxt: async () => [],
    }),
  });
}

/** A request of `handlerRequest`'s with `headers` added. */
const requestWith = (method, path, options, headers) => {
  const req = handlerRequest(method, path, options);
  req.headers = { ...req.headers, ...headers };
  return req;
};

/** A seeded member number in [1, members] from a small LCG, so runs repeat; not an owner when asked. */
function picker(seed) {
  let state = seed;
  return (members, { owner = true } = {}) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    const m = 1 + (state % members);
    return !owner && m % MEMBERS_PER_ORGANIZATION === 1 ? m + 1 : m;
  };
}

/** Member m signed in, with its organization active: its access token. */
async function activeMemberToken(send, m) {
  const login = await send(
    handlerRequest("POST", "/login", { body: { email: memberEmail(m), password: PASSWORD } }),
    200,
  );
  const activated = await send(
    handlerRequest("POST", `/organizations/o${organizationOf(m)}/activate`, { token: login.accessToken }),
    200,
  );
  return activated.accessToken;
}

/** A user key of member m, created through the API (step-up, then POST /api-keys). */
async function apiKeyOf(send, m) {
  const login = await send(
    handlerRequest("POST", "/login", { body: { email: memberEmail(m), password: PASSWORD } }),
    200,
  );
  const token = login.accessToken;
  const { stepUpToken } = await send(
    handlerRequest("POST", "/step-up", { token, body: { password: PASSWORD } }),
    200,
  );
  const created = await send(
    requestWith("POST", "/api-keys", { token, body: { name: "bench" } }, { "x-step-up-token": stepUpToken }),
    201,
  );
  return created.key;
}

/** The five paths over `members` seeded members: 20 actors of each, taken in turn. */
async function pathsOver({ handler, send }, members, seed) {
  const pick = picker(seed);
  const turn = (list) => {
    let k = 0;
    return () => list[k++ % list.length];
  };
  const tokens = [];
  const keys = [];
  const scimUsers = [];
  for (let k = 0; k < 20; k++) {
    tokens.push(await activeMemberToken(send, pick(members, { owner: false })));
    keys.push(await apiKeyOf(send, pick(members)));
    scimUsers.push(pick(members));
  }
  const owner = await activeMemberToken(send, 1);
  const auditPath = "/organizations/o1/audit-log";
  const firstPage = await send(handlerRequest("GET", auditPath, { token: owner }), 200);
  if (firstPage.items.length !== 50 || !firstPage.nextCursor)
    throw new Error(`organization 1: no second page: ${JSON.stringify(firstPage).slice(0, 600)}`);
  const cursorPath = `${auditPath}?cursor=${encodeURIComponent(firstPage.nextCursor)}`;
  const nextToken = turn(tokens);
  const nextKey = turn(keys);
  const nextScim = turn(scimUsers);
  return {
    permission: async () => {
      const found = await handler.authenticate(
        handlerRequest("GET", "/projects", { token: nextToken() }),
        "project:read",
      );
      if (!found.organization)
        throw new Error(`permission check: ${found.response?.status} ${found.response?.body}`);
    },
    apiKey: async () => {
      const found = await handler.authenticate(requestWith("GET", "/orders", {}, { "x-api-key": nextKey() }));
      if (!found.principal?.apiKey)
        throw new Error(`API key: ${found.response?.status} ${found.response?.body}`);
    },
    auditFirst: () => send(handlerRequest("GET", auditPath, { token: owner }), 200),
    auditCursor: () => send(handlerRequest("GET", cursorPath, { token: owner }), 200),
    scim: async () => {
      const m = nextScim();
      const filter = encodeURIComponent(`userName eq "${memberEmail(m)}"`);
      const req = requestWith(
        "GET",
        `/scim/v2/Users?filter=${filter}`,
        {},
        {
          authorization: `Bearer ${scimToken(organizationOf(m))}`,
          accept: "application/scim+json",
        },
      );
      const found = await send(req, 200);
      if (found.totalResults !== 1) throw new Error(`SCIM filter for member ${m}: ${JSON.stringify(found)}`);
    },
  };
}

/**
 * Times each path: `WARMUP` calls each, then `SAMPLES` sequential calls in `ROUNDS` rounds whose path
 * order turns, so a noisy moment of the shared machine falls on every path a little rather than
 * on one path entirely. Resolves to `{ path: summary }`.
 */
async function measure(paths, label) {
  const times = Object.fromEntries(PATHS.map((name) => [name, []]));
  for (const name of PATHS) for (let k = 0; k < WARMUP; k++) await paths[name]();
  for (let round = 0; round < ROUNDS; round++) {
    for (let p = 0; p < PATHS.length; p++) {
      const name = PATHS[(p + round) % PATHS.length];
      for (let k = 0; k < Math.ceil(SAMPLES / ROUNDS); k++) {
        const t0 = performance.now();
        await paths[name]();
        times[name].push(performance.now() - t0);
      }
    }
  }
  console.log(`\n${label} (load average ${load1()})`);
  const result = Object.fromEntries(PATHS.map((name) => [name, summary(times[name])]));
  for (const name of PATHS) {
    const { median, p95, max, n } = result[name];
    console.log(
      `  ${LABELS[name].padEnd(42)} median ${median.toFixed(2)} ms  p95 ${p95.toFixed(2)} ms  max ${max.toFixed(2)} ms  (n=${n})`,
    );
  }
  return result;
}

/** Seeds the rows between `from` and `to` (sizes); resolves to seconds by table. */
async function grow(pool, from, to, { passwordHash, now }) {
  console.log(`\nseeding up to ${describe(to)} (load average ${load1()})`);
  const times = await seedMembers(pool, { from: from.members, to: to.members, passwordHash, now });
  times.api_keys = await seedApiKeys(pool, { from: from.apiKeys, to: to.apiKeys, members: to.members, now });
  const organizations = to.members / MEMBERS_PER_ORGANIZATION;
  const audit = await seedAudit(pool, {
    count: to.audit - from.audit,
    organizations,
    members: to.members,
    now,
  });
  times.audit_log = audit.entries;
  times.audit_heads = audit.heads;
  const t0 = performance.now();
  await pool.query("analyze");
  times.analyze = (performance.now() - t0) / 1000;
  for (const [table, s] of Object.entries(times)) console.log(`  ${table.padEnd(20)} ${s.toFixed(1)} s`);
  return times;
}

/**
 * One call of each path with the statements sent recorded (`seen`, emptied first), background
 * work waited for: resolves to each statement's shape and the paths that sent it.
 */
async function recordStatements(app, paths) {
  seen.clear();
  const pathsOf = new Map();
  for (const name of PATHS) {
    const before = new Map(seen);
    setRecording(name);
    await paths[name]();
    await app.auth.idle?.();
    setRecording(undefined);
    // The recorder stores a new entry for every statement sent: a changed entry was sent just now.
    for (const [shape, entry] of seen)
      if (before.get(shape) !== entry) pathsOf.set(shape, [...(pathsOf.get(shape) ?? []), name]);
  }
  return pathsOf;
}

/**
 * What each path costs the database itself: every statement recorded run `reps` times under
 * `EXPLAIN (ANALYZE, BUFFERS)` in a transaction rolled back; per statement the median of planning
 * + execution time and of the pages its plan touched (the root node's shared buffers, hit + read),
 * summed over the path's statements. No Node CPU is in either, and the pages do not depend on the
 * machine's load at all: a B-tree grown a level deeper, or a plan that reads more rows, shows
 * there. Resolves to `{ path: { ms, pages } }`.
 */
async function databaseCosts(pool, pathsOf, reps = 21) {
  const byPath = Object.fromEntries(PATHS.map((name) => [name, { ms: 0, pages: 0 }]));
  const client = await pool.connect();
  try {
    for (const [shape, paths] of pathsOf) {
      const { text, values } = seen.get(shape);
      const times = [];
      const pages = [];
      for (let k = 0; k < reps; k++) {
        await client.query("begin");
        const { rows } = await client.query(
          `explain (analyze, buffers, timing off, summary on) ${text}`,
          values,
        );
        await client.query("rollback");
        const lines = rows.map((row) => row["QUERY PLAN"]);
        const time = (name) => Number(lines.find((line) => line.startsWith(name))?.split(/: | ms/)[1] ?? 0);
        times.push(time("Planning Time") + time("Execution Time"));
        // The first Buffers line is the root node's, its children's included; planning's comes last.
        const buffers = lines.find((line) => /^\s+Buffers: shared/.test(line)) ?? "";
        const count = (name) => Number(buffers.match(new RegExp(`\\b${name}=(\\d+)`))?.[1] ?? 0);
        pages.push(count("hit") + count("read"));
      }
      for (const name of paths) {
        byPath[name].ms += summary(times).median;
        byPath[name].pages += summary(pages).median;
      }
    }
  } finally {
    client.release();
  }
  return byPath;
}

/** The table of the run: small against full medians, the ratio, the goal, the sequential scans. */
function tableOf({ small, full, smallDb, fullDb, flagged, pathsOf }) {
  const rows = PATHS.map((name) => {
    const ratio = full[name].median / small[name].median;
    const seq = flagged
      .filter((f) => pathsOf.get(f.shape)?.includes(name))
      .flatMap((f) => f.seq.map((line) => line.trim()));
    const statements = [...pathsOf.values()].filter((paths) => paths.includes(name)).length;
    return {
      path: LABELS[name],
      small: small[name],
      full: full[name],
      ratio,
      within15: ratio <= 1.15,
      statements,
      database: { small: smallDb[name], full: fullDb[name] },
      seqScans: [...new Set(seq)],
    };
  });
  console.log(
    "\n| path | small: median (p95) | full: median (p95) | ratio | within 15 %? | statements | database ms small → full | pages small → full | seq scans |",
  );
  console.log("|---|---:|---:|---:|---|---:|---:|---:|---|");
  for (const row of rows) {
    const cell = ({ median, p95 }) => `${median.toFixed(2)} ms (${p95.toFixed(2)})`;
    const { small: a, full: b } = row.database;
    const db = `${row.statements} | ${a.ms.toFixed(3)} → ${b.ms.toFixed(3)} | ${a.pages} → ${b.pages}`;
    console.log(
      `| ${row.path} | ${cell(row.small)} | ${cell(row.full)} | ${row.ratio.toFixed(2)} | ${row.within15 ? "yes" : "NO"} | ${db} | ${row.seqScans.join("; ") || "none"} |`,
    );
  }
  return rows;
}

async function run(pool, db) {
  const stores = createSqlStores({ db });
  await stores.migrate();
  const app = authOn(stores);
  const passwordHash = await core.createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }).hash(PASSWORD);
  const now = Date.now();
  const none = { members: 0, apiKeys: 0, audit: 0 };
  const seeding = { small: await grow(pool, none, SMALL, { passwordHash, now }) };
  const smallPaths = await pathsOver(app, SMALL.members, 1);
  const smallDb = await databaseCosts(pool, await recordStatements(app, smallPaths));
  const small = await measure(smallPaths, `at ${describe(SMALL)}`);
  seeding.full = await grow(pool, SMALL, FULL, { passwordHash, now });
  const tables = await tableSizes(pool);
  const fullPaths = await pathsOver(app, FULL.members, 2);
  const pathsOf = await recordStatements(app, fullPaths);
  const fullDb = await databaseCosts(pool, pathsOf);
  const full = await measure(fullPaths, `at ${describe(FULL)}`);
  const flagged = await explainSeen(pool, seen);
  const rows = tableOf({ small, full, smallDb, fullDb, flagged, pathsOf });
  await app.auth.idle?.();
  const statements = [...pathsOf].map(([shape, paths]) => ({ paths, shape }));
  return { seeding, tables, rows, statements, flagged };
}

const machine = `${cpus().length} × ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
console.log(
  `tenancy scale benchmark, SCALE=${SCALE}, ${SAMPLES} samples a path: ${machine}, load average ${loadavg()
    .map((n) => n.toFixed(2))
    .join(" ")}`,
);
const database = `portcullis_bench_tenancy_${process.pid}`;
const admin = new pg.Client({ connectionString: PG_ADMIN });
await admin.connect();
await admin.query(`create database ${database}`);
const url = new URL(PG_ADMIN);
url.pathname = `/${database}`;
const pool = new pg.Pool({ connectionString: url.href, max: 10, Client: RecordingClient });
pool.on("error", () => {});
const db = new Kysely({ dialect: new PostgresDialect({ pool }) });
const started = performance.now();
try {
  const result = await run(pool, db);
  const minutes = (performance.now() - started) / 60_000;
  console.log(`\ntotal ${minutes.toFixed(1)} min`);
  const out = join(ROOT, "bench/results");
  mkdirSync(out, { recursive: true });
  const file = join(out, `scale-tenancy-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  const report = {
    scale: SCALE,
    samples: SAMPLES,
    machine,
    sizes: { small: SMALL, full: FULL },
    minutes,
    ...result,
  };
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`written to ${file}`);
} finally {
  await db.destroy();
  await admin.query(`drop database if exists ${database} with (force)`);
  await admin.end();
}
