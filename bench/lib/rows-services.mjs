// What the benchmark's servers need besides themselves: Redis under a key prefix of the run,
// PostgreSQL databases and a SQLite file of the run (dropped at the end), and Better Auth
// installed with npm into the ignored bench/.peer (never a workspace dependency).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRedisClient } from "@portcullis/store-redis";
import { BENCH_DIR } from "./servers.mjs";

const log = (...args) => console.error("[bench]", ...args);
export const BETTER_AUTH = "1.7.25";
export const PEER = join(BENCH_DIR, ".peer");
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
export const REDIS_PREFIX = `portcullis-bench:${process.pid}:`;
/** Better Auth's OAuth 2.1 provider and SCIM plugins (their newest releases; BETTER_AUTH_ENTERPRISE of servers/better-auth.mjs). */
const BETTER_AUTH_PLUGINS = "1.7.5";
const PEER_VERSIONS = {
  "better-auth": BETTER_AUTH,
  "@better-auth/oauth-provider": BETTER_AUTH_PLUGINS,
  "@better-auth/scim": BETTER_AUTH_PLUGINS,
  "@node-rs/argon2": "2.2.1",
  express: "5.3.0",
  pg: "8.23.1",
};

/**
 * Better Auth, its plugins and their peers (pg for its PostgreSQL server), installed into
 * bench/.peer on first run. The plugins' newest releases name better-auth ^1.7.5 but pin
 * @better-auth/utils 0.4.2 as a peer, which better-auth 1.7.25 has at 0.5.1: the install leaves
 * peers to the packages listed here (`--legacy-peer-deps`); the servers check that each route
 * they use answers before a window.
 */
export function installBetterAuth() {
  const version = (name) => {
    const path = join(PEER, "node_modules", name, "package.json");
    return existsSync(path) ? JSON.parse(readFileSync(path, "utf8")).version : undefined;
  };
  const wanted = Object.entries(PEER_VERSIONS);
  if (wanted.every(([name, wantedVersion]) => version(name) === wantedVersion)) return true;
  mkdirSync(PEER, { recursive: true });
  writeFileSync(join(PEER, "package.json"), '{ "name": "bench-peer", "private": true, "type": "module" }\n');
  log(`installing better-auth@${BETTER_AUTH}, its OAuth provider and SCIM plugins and pg into bench/.peer`);
  const packages = wanted.map(([name, wantedVersion]) => `${name}@${wantedVersion}`);
  const args = ["install", "--no-audit", "--no-fund", "--no-save", "--legacy-peer-deps", ...packages];
  return spawnSync("npm", args, { cwd: PEER, stdio: "inherit" }).status === 0;
}

const readyRedis = async () => {
  const client = createRedisClient(REDIS_URL);
  await new Promise((resolve, reject) => {
    client.once("ready", resolve);
    setTimeout(() => reject(new Error("Redis did not answer")), 2000).unref();
  }).catch((error) => {
    client.disconnect();
    throw error;
  });
  return client;
};

export async function redisAvailable() {
  let client;
  try {
    client = await readyRedis();
    await client.ping();
    return true;
  } catch {
    return false;
  } finally {
    client?.disconnect();
  }
}

/** Deletes the run's keys (under REDIS_PREFIX, nothing else); answers how many. */
export async function deleteRedisKeys() {
  const client = await readyRedis();
  let cursor = "0";
  let deleted = 0;
  do {
    const [next, keys] = await client.scan(cursor, "MATCH", `${REDIS_PREFIX}*`, "COUNT", 1000);
    cursor = next;
    if (keys.length > 0) deleted += await client.del(...keys);
  } while (cursor !== "0");
  client.disconnect();
  return deleted;
}

/**
 * The SQL databases of the run: a SQLite file, and when `psql` reaches PostgreSQL (`BENCH_PG_URL`,
 * default the local server) one database per name of `postgres` (`portcullis_bench_<pid>_<name>`).
 * Answers `{ urls, drop() }`: urls by name (sqlite, and each PostgreSQL name that was created).
 */
export function prepareSqlDatabases({ sqlite, postgres }) {
  const dir = join(BENCH_DIR, ".tmp", `sql-${process.pid}`);
  const urls = {};
  if (sqlite) {
    mkdirSync(dir, { recursive: true });
    urls.sqlite = `sqlite:${join(dir, "bench.db")}`;
  }
  const admin = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const psql = (sqlText) =>
    spawnSync("psql", [admin, "-v", "ON_ERROR_STOP=1", "-c", sqlText], { encoding: "utf8" });
  const created = [];
  for (const name of postgres) {
    const database = `portcullis_bench_${process.pid}_${name.toLowerCase()}`;
    const result = psql(`CREATE DATABASE ${database}`);
    if (result.status !== 0) {
      log(`no PostgreSQL database ${database} through psql at ${admin}: its rows are left out`);
      continue;
    }
    created.push(database);
    const url = new URL(admin);
    url.pathname = `/${database}`;
    urls[name] = url.toString();
  }
  return {
    urls,
    drop() {
      // WITH (FORCE): a connection a stopped server left behind does not keep the database.
      for (const database of created) psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      rmSync(dir, { recursive: true, force: true });
      return created;
    },
  };
}
