// The scale benchmark of issue 33: 1,000,000 users, 5,000,000 sessions (each with its access token
// on the allowlist) and 10,000,000 cooldown and counter rows on PostgreSQL (store-sql) and the same
// keys on Redis (store-redis; its users stay in the PostgreSQL users table, as in the examples'
// DATABASE_URL + REDIS_URL setup). GET /me, login, refresh and the two 429 paths are timed through
// the core's HTTP handler in process, first with 10,000 users (50,000 sessions, 100,000 limit rows),
// then after growing the same database and the same Redis to full size. Then, at full size: EXPLAIN
// of every statement the paths sent (a sequential scan of a store table is reported), and GET /me
// and the reset 429 timed while `stores.sweep()` deletes 1,000,000 expired rows.
//
//   pnpm bench:scale                   (builds, then about 16 minutes on a shared 2-core VM)
//   SCALE=0.01 node bench/scale.mjs    (10,000 users at full size, 1,000 at the small one: a check)
//
// Env: BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres; a database of its own is
// created and dropped at the end), SCALE (default 1), SAMPLES (per path, default 300; logins a
// third of it), SWEEP_ROWS (default 1,000,000 × SCALE). Redis: a redis-server of its own on a free
// port of 127.0.0.1 (`--save '' --appendonly no`), stopped at the end.
import { cpus, loadavg, totalmem } from "node:os";
import { explainSeen, sweepUnderLoad, tableSizes } from "./lib/scale-checks.mjs";
import {
  authOn,
  core,
  createRedisClient,
  createRedisStores,
  createSqlStores,
  FULL_USERS,
  Kysely,
  LABELS,
  load1,
  measure,
  PATHS,
  PG_ADMIN,
  PostgresDialect,
  PREFIX,
  pathsOver,
  pg,
  RecordingClient,
  redisMemory,
  SCALE,
  SMALL_USERS,
  SWEEP_ROWS,
  seen,
  setRecording,
  startRedis,
} from "./lib/scale-measure.mjs";
import { LIMITS_PER_USER, SESSIONS_PER_USER, seedPostgres, seedRedis } from "./lib/scale-seed.mjs";

const PASSWORD = "correct horse battery staple";
const TWIN_PREFIX = "portcullis-scale-twin:";
const fmt = (n) => n.toLocaleString("en-US");
const sizes = (users) =>
  `${fmt(users)} users, ${fmt(users * SESSIONS_PER_USER)} sessions and allowlist rows, ${fmt(users * LIMITS_PER_USER)} cooldown + counter rows`;

async function grow(pool, redisUrl, { from, to, passwordHash, prefix = PREFIX }) {
  const now = Date.now();
  console.log(`\nseeding users ${fmt(from + 1)}..${fmt(to)} (load average ${load1()})`);
  const times = await seedPostgres(pool, { from, to, passwordHash, now });
  times.redis = await seedRedis(redisUrl, { from, to, prefix, now });
  for (const [table, s] of Object.entries(times)) console.log(`  ${table.padEnd(10)} ${s.toFixed(1)} s`);
  return times;
}

/** The table of medians: `small[store]` against `full[store]` (each `{ path: summary }`). */
function printTable(title, pairs) {
  console.log(`\n${title}\n`);
  console.log(
    "| path | store | 10,000 users: median | full size: median | ratio | within 15 %? | full p95 |",
  );
  console.log("|---|---|---:|---:|---:|---|---:|");
  let all = true;
  for (const [store, small, full] of pairs) {
    for (const name of PATHS) {
      const a = small[name].median;
      const b = full[name].median;
      const ok = b <= a * 1.15;
      all &&= ok;
      console.log(
        `| ${LABELS[name]} | ${store} | ${a.toFixed(2)} ms | ${b.toFixed(2)} ms | ${(b / a).toFixed(2)} | ${ok ? "yes" : "NO"} | ${full[name].p95.toFixed(2)} ms |`,
      );
    }
  }
  console.log(`\nevery full-size median within 15 % of its 10,000-user figure: ${all ? "yes" : "NO"}`);
}

/** The core on store-sql over `db`, and on store-redis under `prefix` with the same users. */
function authsOn(db, redis, prefix) {
  const sqlStores = createSqlStores({ db });
  const redisStores = {
    users: sqlStores.users,
    identities: sqlStores.identities,
    passkeys: sqlStores.passkeys,
    ...createRedisStores({ client: redis, keyPrefix: prefix }),
  };
  return { sqlStores, onSql: authOn(sqlStores), onRedis: authOn(redisStores) };
}

async function run({ pool, db, twinPool, twinDb, redis, redisUrl }) {
  const passwordHash = await core.createArgon2Hasher().hash(PASSWORD);
  console.log(`password hash shared by every seeded user: ${passwordHash.slice(0, 32)}…`);
  const main = authsOn(db, redis, PREFIX);
  const twin = authsOn(twinDb, redis, TWIN_PREFIX);
  await main.sqlStores.migrate();
  await twin.sqlStores.migrate();
  await grow(pool, redisUrl, { from: 0, to: SMALL_USERS, passwordHash });
  const small = await measure(
    {
      PostgreSQL: await pathsOver(main.onSql.send, SMALL_USERS, 1),
      Redis: await pathsOver(main.onRedis.send, SMALL_USERS, 2),
    },
    `at ${sizes(SMALL_USERS)}`,
  );
  await grow(pool, redisUrl, { from: SMALL_USERS, to: FULL_USERS, passwordHash });
  await tableSizes(pool, 26);
  const memory = await redisMemory(redis);
  console.log(
    `  Redis: ${fmt(memory.keys)} keys, used_memory ${memory.used}, rss ${memory.rss}, peak ${memory.peak}`,
  );
  console.log(
    "\nthe twin: a second database and Redis prefix at 10,000 users, measured beside the full size",
  );
  await grow(twinPool, redisUrl, { from: 0, to: SMALL_USERS, passwordHash, prefix: TWIN_PREFIX });
  const pgFull = await pathsOver(main.onSql.send, FULL_USERS, 3);
  for (const name of PATHS) {
    setRecording(name);
    await pgFull[name]();
    setRecording(undefined);
  }
  const full = await measure(
    {
      PostgreSQL: pgFull,
      Redis: await pathsOver(main.onRedis.send, FULL_USERS, 4),
      "PostgreSQL twin (10,000)": await pathsOver(twin.onSql.send, SMALL_USERS, 5),
      "Redis twin (10,000)": await pathsOver(twin.onRedis.send, SMALL_USERS, 6),
    },
    `at ${sizes(FULL_USERS)}, beside the twin at 10,000 users`,
  );
  printTable("Same database, grown: 10,000 users first, full size minutes later", [
    ["PostgreSQL", small.PostgreSQL, full.PostgreSQL],
    ["Redis", small.Redis, full.Redis],
  ]);
  printTable("Paired: full size and the 10,000-user twin in alternating rounds of one measurement", [
    ["PostgreSQL", full["PostgreSQL twin (10,000)"], full.PostgreSQL],
    ["Redis", full["Redis twin (10,000)"], full.Redis],
  ]);
  await explainSeen(pool, seen);
  await sweepUnderLoad({ pool, stores: main.sqlStores, paths: pgFull, rows: SWEEP_ROWS });
  for (const auth of [main.onSql, main.onRedis, twin.onSql, twin.onRedis]) await auth.auth.idle?.();
}

console.log(
  `scale benchmark, SCALE=${SCALE}: ${cpus().length} × ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, load average ${loadavg()
    .map((n) => n.toFixed(2))
    .join(" ")}`,
);
const database = `portcullis_bench_scale_${process.pid}`;
const admin = new pg.Client({ connectionString: PG_ADMIN });
await admin.connect();
const openDatabase = async (name, Client) => {
  await admin.query(`create database ${name}`);
  const url = new URL(PG_ADMIN);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.href, max: 10, Client });
  pool.on("error", () => {});
  return { pool, db: new Kysely({ dialect: new PostgresDialect({ pool }) }) };
};
const { pool, db } = await openDatabase(database, RecordingClient);
const { pool: twinPool, db: twinDb } = await openDatabase(`${database}_twin`, pg.Client);
let server;
let redis;
const started = performance.now();
try {
  server = await startRedis();
  redis = createRedisClient(server.url);
  await run({ pool, db, twinPool, twinDb, redis, redisUrl: server.url });
  console.log(`\ntotal ${((performance.now() - started) / 60_000).toFixed(1)} min`);
} finally {
  redis?.disconnect();
  server?.child.kill("SIGTERM");
  await db.destroy();
  await twinDb.destroy();
  await admin.query(`drop database if exists ${database} with (force)`);
  await admin.query(`drop database if exists ${database}_twin with (force)`);
  await admin.end();
}
