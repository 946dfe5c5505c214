// Login timing (security.md A2): 300 interleaved logins per case — unknown address, wrong password,
// account without a password — with the default argon2id parameters; prints the median of each
// and the largest gap against the target (< 5 ms and < 10 % of one hash verify). Then the cost of
// a throttled login (security.md A7: counted and refused before argon2, target < 5 ms).
// Run: pnpm bench:login-timing
import { createArgon2Hasher, createAuth, silentLogger } from "../packages/core/dist/index.js";
import { createMemoryStores } from "../packages/store-memory/dist/index.js";

const ROUNDS = 300;
const stores = createMemoryStores({ sweepIntervalMs: 0 });
const hasher = createArgon2Hasher();
const auth = createAuth({
  secret: "timing-bench-secret-b7_VG6IOX1vJbj9oysmuAZZphwdJ3T6u7S301d-gsU8",
  stores,
  passwordHasher: hasher,
  logger: silentLogger,
  email: { enabled: false },
  // Failures are forgotten after 1 s, so the 900 failed logins here never reach the throttle.
  loginThrottle: { freeAttempts: 100, windowSeconds: 1 },
});
await auth.ready();
await auth.register({}, { email: "known@example.test", password: "correct horse battery staple" });
const known = await stores.users.findByEmail("known@example.test");
await stores.users.create({
  ...known,
  id: "social-user",
  email: "social@example.test",
  passwordHash: null,
  identityProviders: ["github"],
});

const hashSample = [];
const knownHash = known.passwordHash;
for (let i = 0; i < 30; i++) {
  const start = performance.now();
  await hasher.verify(knownHash, "wrong password");
  hashSample.push(performance.now() - start);
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const verifyMs = median(hashSample);

const cases = {
  "unknown address": "nobody@example.test",
  "wrong password": "known@example.test",
  "no password": "social@example.test",
};
const samples = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, email] of Object.entries(cases)) {
    const start = performance.now();
    await auth.login({}, { email, password: `wrong password ${round}` }).catch(() => {});
    samples[name].push(performance.now() - start);
  }
}
const medians = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]));
console.table(Object.entries(medians).map(([name, ms]) => ({ case: name, "median ms": ms.toFixed(2) })));
const gap = Math.max(...Object.values(medians)) - Math.min(...Object.values(medians));
console.log(`one argon2id verify (m=19456, t=2, p=1): ${verifyMs.toFixed(2)} ms`);
console.log(
  `largest gap between medians: ${gap.toFixed(2)} ms (target < 5 ms and < ${(verifyMs * 0.1).toFixed(2)} ms): ${gap < 5 && gap < verifyMs * 0.1 ? "OK" : "MISSED"}`,
);

// A throttled attempt: the default budget (5), spent by a burst; then 300 timed refusals.
const throttled = createAuth({
  secret: "timing-bench-secret-b7_VG6IOX1vJbj9oysmuAZZphwdJ3T6u7S301d-gsU8",
  stores,
  passwordHasher: hasher,
  logger: silentLogger,
  email: { enabled: false },
});
await Promise.all(
  Array.from({ length: 10 }, () =>
    throttled.login({}, { email: "known@example.test", password: "wrong password" }).catch(() => {}),
  ),
);
const refused = [];
for (let round = 0; round < ROUNDS; round++) {
  const start = performance.now();
  const code = await throttled
    .login({}, { email: "known@example.test", password: "correct horse battery staple" })
    .then(
      () => "OK",
      (error) => error.code,
    );
  refused.push(performance.now() - start);
  if (code !== "LOGIN_THROTTLED") throw new Error(`expected LOGIN_THROTTLED, got ${code}`);
}
const sorted = [...refused].sort((a, b) => a - b);
const p99 = sorted[Math.floor(sorted.length * 0.99)];
console.log(
  `throttled login: median ${median(refused).toFixed(3)} ms, p99 ${p99.toFixed(3)} ms (target < 5 ms): ${p99 < 5 ? "OK" : "MISSED"}`,
);
