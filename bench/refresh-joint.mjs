// A refresh with the stores' `joint` (the rotation and its allowlist writes in one step) against
// the same stores without it (the separate calls), measured in one process: `auth.refresh`, 10
// chains of refreshes at once (each with its own session), windows of the two sides alternating
// (A B, then B A) for BENCH_ROUNDS rounds. REFRESH_STORE=redis (the default): Redis sessions and
// allowlist on a redis-server this script starts (2 round trips against 4), memory users; per side
// also redis-server's CPU per refresh (from /proc) and the Redis commands per refresh, sent (a
// script is one round trip) and run (INFO commandstats). REFRESH_STORE=memory: the memory stores
// (3 store calls against 5). Per side: refreshes per second and this process's CPU per refresh.
// Ratios are joint / separate, the median of the rounds' pairs.
// Run: pnpm --filter portcullis-bench refresh-joint   (Redis: needs redis-server on PATH)
// Env: REFRESH_STORE (redis), BENCH_ROUNDS (5), REFRESH_SECONDS (window, 3), REFRESH_CHAINS (10).
import { readFileSync } from "node:fs";
import { createArgon2Hasher, createAuth, silentLogger } from "../packages/core/dist/index.js";
import { createMemoryStores } from "../packages/store-memory/dist/index.js";
import { createRedisStores } from "../packages/store-redis/dist/index.js";
import { startOwnRedis } from "./lib/own-redis.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.REFRESH_SECONDS ?? 3);
const CHAINS = Number(process.env.REFRESH_CHAINS ?? 10);
const PASSWORD = "correct horse battery staple";
const ON_REDIS = (process.env.REFRESH_STORE ?? "redis") === "redis";

const redis = ON_REDIS ? await startOwnRedis() : undefined;
const client = redis?.client;

/** redis-server's CPU time so far (user + system), in ms, from /proc (clock ticks of 10 ms); 0 without it. */
const redisCpuMs = () => {
  if (!redis) return 0;
  const fields = readFileSync(`/proc/${redis.server.pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

/** One side: an auth on the memory stores, or memory users and this Redis's stores, with or without `joint`. */
async function side(name, withJoint) {
  const memory = createMemoryStores({ sweepIntervalMs: 0 });
  const { joint, ...separate } = ON_REDIS
    ? { ...createRedisStores({ client, keyPrefix: `bench-refresh:${name}:` }), users: memory.users }
    : memory;
  const auth = createAuth({
    secret: "bench-refresh-secret-yAEoUyHUyQNxa_NIrlTvpITTjFXcXZF8WX0iqYtPlFY",
    stores: { ...separate, ...(withJoint ? { joint } : {}), identities: memory.identities },
    logger: silentLogger,
    // Cheap hashing: only the sign-ins that start the chains hash; the refreshes measured do not.
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    email: { enabled: false },
  });
  const tokens = [];
  for (let i = 0; i < CHAINS; i++) {
    const email = `${name}-${i}@example.test`;
    await auth.register({}, { email, password: PASSWORD });
    tokens.push((await auth.login({}, { email, password: PASSWORD })).refreshToken);
  }
  /** Refreshes for `ms` on every chain at once: the count. */
  const run = async (ms) => {
    const until = Date.now() + ms;
    let count = 0;
    await Promise.all(
      tokens.map(async (_, i) => {
        while (Date.now() < until) {
          tokens[i] = (await auth.refresh({ token: tokens[i] })).refreshToken;
          count++;
        }
      }),
    );
    return count;
  };
  return { name, run };
}

/** One measured window of `s`: refreshes per second, and CPU per refresh here and in Redis (ms). */
async function window(s) {
  const cpu = process.cpuUsage();
  const redisBefore = redisCpuMs();
  const started = performance.now();
  const count = await s.run(SECONDS * 1000);
  const elapsed = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return {
    perSecond: (count * 1000) / elapsed,
    cpuMs: (used.user + used.system) / 1000 / count,
    redisMs: (redisCpuMs() - redisBefore) / count,
  };
}

/** Commands this process sent, by name (a Lua script is one: its EVALSHA), counted as ioredis sends them. */
const sent = new Map();
if (client) {
  const send = client.sendCommand.bind(client);
  client.sendCommand = (command, stream) => {
    sent.set(command.name, (sent.get(command.name) ?? 0) + 1);
    return send(command, stream);
  };
}

/**
 * Per refresh of `s`: the commands sent (round trips; a script is one) and the commands Redis ran
 * (INFO commandstats: a script's own commands counted too), each "name count".
 */
async function commandsPerRefresh(s) {
  await client.config("RESETSTAT");
  sent.clear();
  const count = await s.run(500);
  const ran = await client.info("commandstats");
  const perRefresh = (pairs) =>
    pairs
      .filter(([command]) => !["info", "config"].includes(command))
      .map(([command, calls]) => `${command} ${(Number(calls) / count).toFixed(2)}`)
      .join(", ");
  return {
    sent: perRefresh([...sent]),
    ran: perRefresh([...ran.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)].map(([, c, n]) => [c, n])),
  };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
try {
  const joint = await side("joint", true);
  const separate = await side("separate", false);
  for (const s of [joint, separate]) await s.run(1000); // warm: scripts loaded, code optimized
  if (client)
    for (const s of [joint, separate]) {
      const { sent, ran } = await commandsPerRefresh(s);
      console.log(`${s.name}: per refresh, sent ${sent}; run by Redis ${ran}`);
    }
  const rows = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? [joint, separate] : [separate, joint];
    const measured = {};
    for (const s of order) measured[s.name] = await window(s);
    rows.push(measured);
    const f = (m) => `${m.perSecond.toFixed(0)}/s, ${m.cpuMs.toFixed(3)} + ${m.redisMs.toFixed(3)} ms`;
    console.log(`round ${round + 1}: joint ${f(measured.joint)} · separate ${f(measured.separate)}`);
  }
  const ratio = (key) => median(rows.map((r) => r.joint[key] / r.separate[key])).toFixed(2);
  const mid = (name, key) => median(rows.map((r) => r[name][key])).toFixed(key === "perSecond" ? 0 : 3);
  console.log(
    `\n| side | refreshes/s | CPU per refresh (this process) | redis-server CPU per refresh |\n|---|---:|---:|---:|\n` +
      `| joint (${ON_REDIS ? "2 round trips" : "3 store calls"}) | ${mid("joint", "perSecond")} | ${mid("joint", "cpuMs")} ms | ${ON_REDIS ? `${mid("joint", "redisMs")} ms` : "–"} |\n` +
      `| separate (${ON_REDIS ? 4 : 5}) | ${mid("separate", "perSecond")} | ${mid("separate", "cpuMs")} ms | ${ON_REDIS ? `${mid("separate", "redisMs")} ms` : "–"} |\n` +
      `| joint / separate | ${ratio("perSecond")} | ${ratio("cpuMs")} | ${ON_REDIS ? ratio("redisMs") : "–"} |`,
  );
  console.log(
    `\n${ON_REDIS ? "Redis" : "memory"}: ${ROUNDS} rounds of ${SECONDS} s windows, ${CHAINS} chains, Node ${process.version}`,
  );
} finally {
  redis?.stop();
}
