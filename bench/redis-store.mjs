// store-redis benchmark: Redis commands per cooldown acquire, per attempt-counter hit and per
// authenticated request (from INFO commandstats on a redis-server this script starts itself), and
// operations per second against the memory store. Run: pnpm bench:redis   (needs redis-server on PATH)
import { createArgon2Hasher, createAuth, silentLogger } from "../packages/core/dist/index.js";
import { createMemoryStores } from "../packages/store-memory/dist/index.js";
import { createRedisStores } from "../packages/store-redis/dist/index.js";
import { startOwnRedis } from "./lib/own-redis.mjs";

const { client, stop } = await startOwnRedis();

/** Calls per command name since the last RESETSTAT; commands a Lua script runs count too. */
const commandCalls = async () => {
  const info = await client.info("commandstats");
  return [...info.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)]
    .filter(([, name]) => !["info", "config"].includes(name))
    .map(([, name, calls]) => [name, Number(calls)]);
};
const commandsPer = async (label, n, run) => {
  await run(0); // warm: loads scripts
  await client.config("RESETSTAT");
  for (let i = 1; i <= n; i++) await run(i);
  const calls = await commandCalls();
  const breakdown = calls.map(([name, count]) => `${name} ${(count / n).toFixed(2)}`).join(", ");
  // A Lua script is one round trip (evalsha); the commands it runs inside show up in the breakdown too.
  console.log(`${label}, Redis commands per operation: ${breakdown}`);
};
const opsPerSecond = async (run, { total = 20_000, concurrency = 50 } = {}) => {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await run(next++);
    }),
  );
  return Math.round(total / ((performance.now() - started) / 1000));
};

const makeAuth = (stores) =>
  createAuth({
    secret: "bench-secret-BXxwyWEK8C2hRsytFMDjfGkRCy75Tcpix15e6koVF7Y",
    stores,
    email: { enabled: false },
    logger: silentLogger,
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
  });

try {
  const memory = createMemoryStores({ sweepIntervalMs: 0 });
  const redis = { users: memory.users, ...createRedisStores({ client, keyPrefix: "bench:" }) };
  const results = [];
  for (const [name, stores] of [
    ["memory", memory],
    ["redis", redis],
  ]) {
    const auth = makeAuth(stores);
    await auth.register({}, { email: `${name}@example.test`, password: "correct horse battery staple" });
    const { accessToken } = await auth.login(
      {},
      {
        email: `${name}@example.test`,
        password: "correct horse battery staple",
      },
    );
    if (name === "redis") {
      await commandsPer("cooldown acquire", 1_000, (i) => stores.cooldowns.acquire(`count:${i}`, 60_000));
      await commandsPer("attempt counter hit", 1_000, (i) => stores.cooldowns.hit(`hits:${i % 10}`, 60_000));
      await commandsPer("authenticated request (authenticate)", 1_000, () =>
        auth.authenticate({ token: accessToken }),
      );
    }
    results.push({
      store: name,
      "cooldown acquires/s": await opsPerSecond((i) => stores.cooldowns.acquire(`${name}:${i}`, 60_000)),
      "authenticate/s": await opsPerSecond(() => auth.authenticate({ token: accessToken })),
    });
  }
  console.table(results);
  console.log("50 operations in flight, 20,000 per figure; Redis on loopback, one connection.");
} finally {
  stop();
}
