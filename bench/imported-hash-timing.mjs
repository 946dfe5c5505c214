// Imported-hash timing (docs/security.md, "Imported password hashes"): how much longer a failed
// login takes for an account still on an imported hash than for an unknown address (whose dummy
// verify is argon2id with the current parameters). Interleaved logins with a wrong password (so
// no hash is replaced), ROUNDS per case (default 20; the machine is shared, keep it small); prints
// each case's median and its gap to the unknown address.
// Run: pnpm bench:imported-hash-timing   (ROUNDS=50 for steadier figures)
import { pbkdf2Sync, randomBytes, scryptSync } from "node:crypto";
import { hash as argon2Hash } from "@node-rs/argon2";
import bcrypt from "bcryptjs";
import { createArgon2Hasher, createAuth, silentLogger } from "../packages/core/dist/index.js";
import { createMemoryStores } from "../packages/store-memory/dist/index.js";

const ROUNDS = Number(process.env.ROUNDS ?? 20);
const PASSWORD = "correct horse battery staple";
const stores = createMemoryStores({ sweepIntervalMs: 0 });
const auth = createAuth({
  secret: "timing-bench-secret-b7_VG6IOX1vJbj9oysmuAZZphwdJ3T6u7S301d-gsU8",
  stores,
  passwordHasher: createArgon2Hasher(),
  logger: silentLogger,
  email: { enabled: false },
  // Failures are forgotten after 1 s, so the failed logins here never reach the throttle.
  loginThrottle: { freeAttempts: 100, windowSeconds: 1 },
  ipLimits: { enabled: false },
});
await auth.ready();

const b64 = (buffer) => buffer.toString("base64").replace(/=+$/, "");
const djangoSalt = randomBytes(12).toString("base64url");
const scryptSalt = randomBytes(16);
// Better Auth passes its salt's hex text (not the bytes) to scrypt.
const betterAuthSalt = randomBytes(16).toString("hex");
/** The imported kinds at the parameters their systems write by default (or used to). */
const imported = {
  "bcrypt, cost 10": await bcrypt.hash(PASSWORD, 10),
  "bcrypt, cost 12": await bcrypt.hash(PASSWORD, 12),
  "Django PBKDF2, 870,000 iterations": `pbkdf2_sha256$870000$${djangoSalt}$${pbkdf2Sync(PASSWORD, djangoSalt, 870000, 32, "sha256").toString("base64")}`,
  "scrypt, ln=16 r=8 p=1": `$scrypt$ln=16,r=8,p=1$${b64(scryptSalt)}$${b64(scryptSync(PASSWORD, scryptSalt, 32, { N: 2 ** 16, r: 8, p: 1, maxmem: 128 * 2 ** 16 * 8 + 2 ** 20 }))}`,
  "Better Auth scrypt, N=16384 r=16 p=1": `${betterAuthSalt}:${scryptSync(PASSWORD, betterAuthSalt, 64, { N: 16384, r: 16, p: 1, maxmem: 128 * 16384 * 16 + 2 ** 20 }).toString("hex")}`,
  "argon2i, m=4096 t=3 p=1": await argon2Hash(PASSWORD, {
    memoryCost: 4096,
    timeCost: 3,
    parallelism: 1,
    algorithm: 1,
  }),
};

await auth.register({}, { email: "argon2id@example.test", password: PASSWORD });
const base = await stores.users.findByEmail("argon2id@example.test");
const cases = { "unknown address": "nobody@example.test", "argon2id (current)": "argon2id@example.test" };
for (const [index, [name, passwordHash]] of Object.entries(imported).entries()) {
  const email = `imported-${index}@example.test`;
  await stores.users.create({ ...base, id: `imported-${index}`, email, passwordHash });
  cases[name] = email;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const samples = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, email] of Object.entries(cases)) {
    const start = performance.now();
    await auth.login({}, { email, password: `wrong password ${round}` }).catch(() => {});
    samples[name].push(performance.now() - start);
  }
}
const unknown = median(samples["unknown address"]);
console.table(
  Object.entries(samples).map(([name, values]) => ({
    case: name,
    "median ms": median(values).toFixed(1),
    "gap to unknown ms": (median(values) - unknown).toFixed(1),
  })),
);
// Still imported: nothing was rehashed by the failed logins.
for (const email of Object.values(cases).slice(2)) {
  const user = await stores.users.findByEmail(email);
  if (user.passwordHash.startsWith("$argon2id$")) throw new Error(`${email} was rehashed by a failed login`);
}
console.log(`${ROUNDS} interleaved failed logins per case, argon2id default parameters (m=19456, t=2, p=1)`);
