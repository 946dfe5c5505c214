// The store-memory goal: 1,000,000 cooldown keys and 100,000 sessions (each with its allowlist
// entry) under 300 MB of RSS growth, and back near the start after they expire and a sweep runs.
// Run with --expose-gc; prints one JSON line.
import { createMemoryStores } from "@portcullis/store-memory";

const COOLDOWNS = 1_000_000;
const SESSIONS = 100_000;
let now = Date.UTC(2026, 0, 1);
const clock = { now: () => now };
const stores = createMemoryStores({ clock, sweepIntervalMs: 0 });
const MB = 2 ** 20;
/** RSS and the V8 heap in use, after two full collections. */
const measure = () => {
  globalThis.gc?.();
  globalThis.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss: rss / MB, heap: heapUsed / MB };
};
const start = measure();
for (let i = 0; i < COOLDOWNS; i++)
  await stores.cooldowns.acquire(`email:password-reset:user${i}@example.test`, 60_000);
const ttls = { sessionTtlMs: 3_600_000, accessTokenTtlMs: 900_000 };
for (let i = 0; i < SESSIONS; i++) {
  const id = `session-${i}-${"x".repeat(16)}`;
  const userId = `user-${i % 1000}`;
  const jti = `jti-${i}-${"z".repeat(16)}`;
  await stores.allowlist.allowAccessToken(jti, { userId, sessionId: id }, ttls.accessTokenTtlMs);
  await stores.sessions.createSession(
    {
      id,
      userId,
      refreshTokenHash: `hash-${i}-${"y".repeat(32)}`,
      accessTokenJti: jti,
      browser: "Firefox 140",
      os: "Linux",
      ip: "203.0.113.7",
      createdAt: now,
      lastActiveAt: now,
    },
    ttls.sessionTtlMs,
  );
}
const full = measure();
now += ttls.sessionTtlMs + 1;
const swept = stores.sweep();
const after = measure();
// What the store still holds is the heap's residual; RSS also keeps pages the allocator has not
// handed back to the OS yet, which varies from run to run.
console.log(
  JSON.stringify({
    startMb: start.rss,
    fullMb: full.rss,
    growthMb: full.rss - start.rss,
    afterSweepMb: after.rss,
    residualMb: after.rss - start.rss,
    heapGrowthMb: full.heap - start.heap,
    heapResidualMb: after.heap - start.heap,
    swept,
    held: stores.cooldowns.size() + stores.sessions.size() + stores.allowlist.size(),
  }),
);
