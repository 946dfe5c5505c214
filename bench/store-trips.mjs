// Store round trips per request on store-sql (PostgreSQL) and store-redis: the core's HTTP handler
// driven in process on the bench's paths (GET /me, a host route's permission check with an active
// organization, login, refresh, the reset and verification 429s), every statement the pg driver sends counted (a pg.Client subclass sees each one,
// BEGIN/COMMIT included) and every Redis command seen by `MONITOR` under this run's key prefix
// (commands a Lua script runs show as "lua", apart from the client's own round trips). Then
// `EXPLAIN (ANALYZE, BUFFERS)` of each distinct PostgreSQL statement seen, with the parameters of
// its last call, after filling the tables to `TRIPS_ROWS` users (default 20,000) and ANALYZE.
//
//   node bench/store-trips.mjs            (after `pnpm -r build`)
//
// Env: BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres: a database of its own is
// created and dropped), BENCH_REDIS_URL (default redis://127.0.0.1:6379; keys under
// portcullis-trips:<pid>: are deleted at the end), TRIPS_REQUESTS (per path, default 40),
// TRIPS_PREPARED (default 1: the pool sends named prepared statements, as store-sql's
// `discardTimedOutConnections` sets up; 0: unnamed, each statement planned anew),
// TRIPS_TIMING_CALLS and TRIPS_TIMING_ROUNDS (the joint read's timing: 2,000 calls, 7 rounds).
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { handlerRequest, inProcessAuth } from "./lib/handler-request.mjs";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const fromSql = createRequire(join(ROOT, "packages/store-sql/package.json"));
const fromRedis = createRequire(join(ROOT, "packages/store-redis/package.json"));
const load = (path) => import(pathToFileURL(join(ROOT, path)).href);
const core = await load("packages/core/dist/index.js");
const { createSqlStores, preparePostgresStatements } = await load("packages/store-sql/dist/index.js");
const { createRedisStores, createRedisClient } = await load("packages/store-redis/dist/index.js");
const { createMemoryStores } = await load("packages/store-memory/dist/index.js");
const pg = fromSql("pg");
const { Kysely, PostgresDialect, sql } = await import(pathToFileURL(fromSql.resolve("kysely")).href);
const Redis = fromRedis("ioredis");

const PG_ADMIN = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const REQUESTS = Number(process.env.TRIPS_REQUESTS ?? 40);
const PREPARED = process.env.TRIPS_PREPARED !== "0";
const ROWS = Number(process.env.TRIPS_ROWS ?? 20_000);
const PASSWORD = "correct horse battery staple";
const email = (i) => `user${i}@example.test`;

/** Statements sent to PostgreSQL, in order, while `recording`. */
const seen = [];
let recording = false;
class CountingClient extends pg.Client {
  query(config, values, callback) {
    if (recording && typeof config === "string") seen.push({ text: config, values, named: false });
    else if (recording && config?.text)
      seen.push({ text: config.text, values: config.values ?? values, named: Boolean(config.name) });
    return super.query(config, values, callback);
  }
}

const request = handlerRequest;

/** An Auth on `stores` with users 0..(9+REQUESTS) registered (cheap argon2id: the hash is not what is counted). */
async function prepare(stores) {
  const { handler, send } = inProcessAuth(core, {
    secret: "trips-secret-yAEoUyHUyQNxa_NIrlTvpITTjFXcXZF8WX0iqYtPlFY",
    stores,
    passwordHasher: core.createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    email: { cooldownSeconds: 3600 },
    loginThrottle: { freeAttempts: 100 },
    organizations: { permissions: ["project:read"], memberPermissions: ["project:read"] },
  });
  const users = 11 + REQUESTS;
  const tokens = [];
  for (let i = 0; i < users; i++) {
    const user = { email: email(i), password: PASSWORD };
    await send(request("POST", "/register", { body: user }), 201).catch(() =>
      send(request("POST", "/register", { body: user }), 200),
    );
    if (i < 10) tokens.push(await send(request("POST", "/login", { body: user }), 200));
  }
  await send(request("POST", "/password/reset-request", { body: { email: email(1) } }), 200);
  // Registering sent the verification email: user 2 is in its cooldown already.
  await send(request("POST", "/email/verification/send", { token: tokens[2].accessToken }));
  let loginUser = 10;
  let refreshToken = tokens[3].refreshToken;
  // User 4 owns an organization made active: its token names it (the permission check's path).
  const owner = tokens[4].accessToken;
  const { organization } = await send(
    request("POST", "/organizations", {
      token: owner,
      body: { name: "Trips", slug: `trips-${process.pid}` },
    }),
    201,
  );
  const activated = await send(
    request("POST", `/organizations/${organization.id}/activate`, { token: owner }),
    200,
  );
  return {
    me: () => send(request("GET", "/me", { token: tokens[0].accessToken }), 200),
    // A host route's guard: `handler.authenticate(request, permission)` (adapters' requirePermission).
    permission: async () => {
      const checked = await handler.authenticate(
        request("GET", "/projects", { token: activated.accessToken }),
        "project:read",
      );
      if (checked.response)
        throw new Error(`permission: ${checked.response.status} ${checked.response.body}`);
    },
    login: () =>
      send(request("POST", "/login", { body: { email: email(loginUser++), password: PASSWORD } }), 200),
    refresh: async () => {
      const answer = await send(request("POST", "/refresh", { token: refreshToken }), 200);
      refreshToken = answer.refreshToken;
    },
    reset429: () => send(request("POST", "/password/reset-request", { body: { email: email(1) } }), 429),
    verification429: () =>
      send(request("POST", "/email/verification/send", { token: tokens[2].accessToken }), 429),
  };
}

const PATHS = ["me", "permission", "login", "refresh", "reset429", "verification429"];

/** A statement's shape: parameters and the table prefix left out, whitespace folded. */
const shape = (text) => text.replace(/\s+/g, " ").trim();

async function postgres() {
  const database = `portcullis_trips_${process.pid}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  await admin.query(`create database ${database}`);
  const url = new URL(PG_ADMIN);
  url.pathname = `/${database}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 10, Client: CountingClient });
  pool.on("error", () => {});
  if (PREPARED) preparePostgresStatements(pool);
  const db = new Kysely({ dialect: new PostgresDialect({ pool }) });
  try {
    const stores = createSqlStores({ db });
    await stores.migrate();
    const paths = await prepare(stores);
    const result = {};
    const statements = new Map();
    for (const name of PATHS) {
      await paths[name]();
      seen.length = 0;
      recording = true;
      for (let i = 0; i < REQUESTS; i++) await paths[name]();
      recording = false;
      const kinds = {};
      for (const { text, values } of seen) {
        const key = shape(text);
        kinds[key] = (kinds[key] ?? 0) + 1;
        statements.set(key, { text, values, path: name });
      }
      const named = seen.filter((statement) => statement.named).length / REQUESTS;
      result[name] = { perRequest: seen.length / REQUESTS, named, kinds };
    }
    // Fill the tables so the planner has a choice, then EXPLAIN ANALYZE each statement seen.
    await fill(db);
    const plans = [];
    for (const [key, { text, values, path }] of statements) {
      if (/^(begin|start transaction|commit|rollback|savepoint|release)/i.test(key)) continue;
      const client = await pool.connect();
      try {
        // Inside a transaction rolled back, so writes leave nothing; an insert of a key taken
        // since is shown with its plan alone.
        const explain = async (options) => {
          await client.query("begin");
          try {
            return (await client.query(`explain (${options}) ${text}`, values)).rows;
          } finally {
            await client.query("rollback");
          }
        };
        const rows = await explain("analyze, buffers, costs off, summary on").catch(() =>
          explain("costs off"),
        );
        const lines = rows.map((row) => row["QUERY PLAN"]);
        plans.push({ path, statement: key, plan: lines });
      } finally {
        client.release();
      }
    }
    const timing = await jointReadTiming(url.toString(), stores);
    return { result, plans, timing };
  } finally {
    await db.destroy();
    await admin.query(`drop database if exists ${database} with (force)`);
    await admin.end();
  }
}

/**
 * µs per joint read (the allowlist row and its user, GET /me's one statement), sequential, on a
 * pool of one connection: unnamed and built each call (the stores before issue 33's change),
 * named and built, named and compiled once (the store now). Rounds alternate the order; the
 * median of each variant's rounds is reported.
 */
async function jointReadTiming(url, stores) {
  const CALLS = Number(process.env.TRIPS_TIMING_CALLS ?? 2_000);
  const ROUNDS = Number(process.env.TRIPS_TIMING_ROUNDS ?? 7);
  const user = await stores.users.findByEmail(email(0));
  await stores.allowlist.allowAccessToken("timing-jti", { userId: user.id, sessionId: "s" }, 3_600_000);
  const open = (prepared) => {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    // pool.end() resolves before its connections have closed: the final DROP DATABASE … WITH
    // (FORCE) may still end one, which a pool without a listener throws from (it crashed 2 runs of 4).
    pool.on("error", () => {});
    if (prepared) preparePostgresStatements(pool);
    const db = new Kysely({ dialect: new PostgresDialect({ pool }) });
    return { db, stores: createSqlStores({ db }) };
  };
  const built = (db) =>
    db
      .selectFrom("portcullis_access_tokens as a")
      .leftJoin("portcullis_users as u", "u.id", "a.user_id")
      .selectAll("u")
      .select(["a.user_id as allowed_user_id", "a.session_id as allowed_session_id"])
      .where("a.jti", "=", "timing-jti")
      .where("a.expires_at", ">", Date.now())
      .executeTakeFirst();
  const unnamed = open(false);
  const named = open(true);
  const variants = {
    "unnamed, built each call": () => built(unnamed.db),
    "named, built each call": () => built(named.db),
    "named, compiled once (store-sql now)": () =>
      named.stores.joint.findAllowedAccessTokenWithUser("timing-jti"),
    "named, with the membership (permission check)": () =>
      named.stores.joint.findAllowedAccessTokenWithMembership("timing-jti", "timing-org"),
  };
  const figures = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  try {
    for (const run of Object.values(variants)) for (let i = 0; i < 200; i++) await run();
    for (let round = 0; round < ROUNDS; round++) {
      const order = Object.entries(variants);
      for (const [name, run] of round % 2 ? order.reverse() : order) {
        const started = process.hrtime.bigint();
        for (let i = 0; i < CALLS; i++) await run();
        figures[name].push(Number(process.hrtime.bigint() - started) / 1_000 / CALLS);
      }
    }
  } finally {
    await unnamed.db.destroy();
    await named.db.destroy();
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return Object.entries(figures).map(([name, values]) => ({
    name,
    median: median(values),
    rounds: values.map((value) => Math.round(value)),
  }));
}

/** ROWS users, as many sessions and allowlist rows, 2 × ROWS cooldown and counter rows, then ANALYZE. */
async function fill(db) {
  const now = Date.now();
  await sql`insert into portcullis_users (id, email, email_verified, identity_providers, two_factor_methods, recovery_code_hashes, created_at)
    select 'fill' || g, 'fill' || g || '@example.test', false, '[]', '[]', '[]', ${now} from generate_series(1, ${ROWS}) g`.execute(
    db,
  );
  await sql`insert into portcullis_sessions (id, user_id, created_at, last_active_at, refresh_token_hash, previous_refresh_token_hashes, access_token_jti, access_token_expires_at, expires_at)
    select 'fs' || g, 'fill' || g, ${now}, ${now}, 'rh' || g, '[]', 'fj' || g, ${now + 900_000}, ${now + 86_400_000} from generate_series(1, ${ROWS}) g`.execute(
    db,
  );
  await sql`insert into portcullis_access_tokens (jti, user_id, session_id, expires_at)
    select 'fa' || g, 'fill' || g, 'fs' || g, ${now + 900_000} from generate_series(1, ${ROWS}) g`.execute(
    db,
  );
  for (const table of ["portcullis_cooldowns"]) {
    await sql`insert into ${sql.table(table)} (id, holder, expires_at)
      select 'fill:' || g, 'h', ${now + 3_600_000} from generate_series(1, ${2 * ROWS}) g`.execute(db);
  }
  await sql`insert into portcullis_counters (id, hits, expires_at)
    select 'fill:' || g, 1, ${now + 3_600_000} from generate_series(1, ${2 * ROWS}) g`.execute(db);
  await sql`insert into portcullis_tokens (purpose, token_hash, user_id, expires_at, delete_at)
    select 'password-reset', 'th' || g, 'fill' || g, ${now + 3_600_000}, ${now + 3_600_000} from generate_series(1, ${ROWS}) g`.execute(
    db,
  );
  await sql`analyze`.execute(db);
}

async function redis() {
  const keyPrefix = `portcullis-trips:${process.pid}:`;
  const client = createRedisClient(REDIS_URL);
  const monitor = new Redis(REDIS_URL);
  const commands = [];
  let recordingRedis = false;
  const watch = await monitor.monitor();
  watch.on("monitor", (_time, args, source) => {
    if (!recordingRedis || !args.some((arg) => String(arg).includes(keyPrefix))) return;
    commands.push({ command: String(args[0]).toUpperCase(), lua: source === "lua" });
  });
  try {
    const memory = createMemoryStores({ sweepIntervalMs: 0 });
    const stores = {
      users: memory.users,
      identities: memory.identities,
      organizations: memory.organizations,
      ...createRedisStores({ client, keyPrefix }),
    };
    const paths = await prepare(stores);
    const result = {};
    for (const name of PATHS) {
      await paths[name]();
      await new Promise((resolve) => setTimeout(resolve, 100));
      commands.length = 0;
      recordingRedis = true;
      for (let i = 0; i < REQUESTS; i++) await paths[name]();
      await new Promise((resolve) => setTimeout(resolve, 200));
      recordingRedis = false;
      const kinds = {};
      for (const { command, lua } of commands) {
        const key = lua ? `lua: ${command}` : command;
        kinds[key] = (kinds[key] ?? 0) + 1;
      }
      const trips = commands.filter((c) => !c.lua).length / REQUESTS;
      result[name] = { perRequest: trips, inScripts: commands.filter((c) => c.lua).length / REQUESTS, kinds };
    }
    return result;
  } finally {
    watch.disconnect();
    let cursor = "0";
    do {
      const [next, keys] = await client.scan(cursor, "MATCH", `${keyPrefix}*`, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) await client.del(...keys);
    } while (cursor !== "0");
    client.disconnect();
    monitor.disconnect();
  }
}

const per = (kinds) =>
  Object.entries(kinds)
    .map(([key, n]) => `${(n / REQUESTS).toFixed(2)} × ${key.length > 160 ? `${key.slice(0, 157)}...` : key}`)
    .join("\n    ");

const { result: pgResult, plans, timing } = await postgres();
console.log(
  `## PostgreSQL (store-sql): statements per request (prepared statements ${PREPARED ? "on" : "off"})\n`,
);
for (const name of PATHS) {
  const { perRequest, named, kinds } = pgResult[name];
  console.log(`${name}: ${perRequest.toFixed(2)}, of them named ${named.toFixed(2)}\n    ${per(kinds)}`);
}
console.log(
  `\n## EXPLAIN ANALYZE (${ROWS} users, sessions, allowlist rows; ${2 * ROWS} cooldowns, counters)\n`,
);
for (const { path, statement, plan } of plans) {
  console.log(`[${path}] ${statement}\n    ${plan.join("\n    ")}\n`);
}
console.log("## Joint read (GET /me's statement), µs per call, one connection, sequential\n");
for (const { name, median, rounds } of timing)
  console.log(`${name}: ${median.toFixed(1)} µs (rounds ${rounds.join(", ")})`);
const redisResult = await redis();
console.log("## Redis (store-redis; users in memory): round trips per request (MONITOR)\n");
for (const name of PATHS) {
  const r = redisResult[name];
  console.log(
    `${name}: ${r.perRequest.toFixed(2)} round trips, ${r.inScripts.toFixed(2)} commands inside scripts\n    ${per(r.kinds)}`,
  );
}
