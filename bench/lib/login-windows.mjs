// A login's CPU beyond the hash, measured in the process that signs in (bench/login-beyond-hash.mjs
// runs one such child per contestant): `login()` at CONNECTIONS at once, after a warm-up, over
// WINDOWS windows of LOGINS each; per window the CPU this process used (JavaScript, the driver,
// its other threads) and the CPU of the PostgreSQL backends serving `database`, per login. The
// children hash with a trivial stand-in (the same for every contestant), so all of it is work
// beyond the hash. Prints one JSON line: the windows and their medians.
import { postgresBackendsCpu } from "./cpu-per-request-measure.mjs";

const CONNECTIONS = 10;
const WARMUP = Number(process.env.LBH_WARMUP ?? 1_000);
const LOGINS = Number(process.env.LBH_LOGINS ?? 3_000);
const WINDOWS = Number(process.env.LBH_WINDOWS ?? 3);

/** A stand-in for the password hash that costs next to nothing: what is measured is everything else. */
export const PLAIN_PREFIX = "plain$";
export const plainHash = async (password) => `${PLAIN_PREFIX}${password}`;
export const plainVerify = async (hash, password) => hash === `${PLAIN_PREFIX}${password}`;

/** `count` calls of `login`, CONNECTIONS at a time. */
async function run(login, count) {
  let started = 0;
  const worker = async () => {
    while (started < count) {
      started += 1;
      await login();
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Measures `login` on `database` and prints the result line (`label` names the contestant). */
export async function measureLogins(label, database, login) {
  await run(login, WARMUP);
  const windows = [];
  for (let i = 0; i < WINDOWS; i++) {
    const backends = postgresBackendsCpu(database);
    const cpu = process.cpuUsage();
    const started = performance.now();
    await run(login, LOGINS);
    const used = process.cpuUsage(cpu);
    let databaseS = 0;
    for (const [pid, after] of postgresBackendsCpu(database)) databaseS += after - (backends.get(pid) ?? 0);
    windows.push({
      serverMs: (used.user + used.system) / 1000 / LOGINS,
      databaseMs: (databaseS * 1000) / LOGINS,
      perSecond: (LOGINS * 1000) / (performance.now() - started),
    });
  }
  const of = (key) => median(windows.map((window) => window[key]));
  const result = {
    label,
    serverMs: of("serverMs"),
    databaseMs: of("databaseMs"),
    perSecond: of("perSecond"),
    windows,
  };
  console.log(JSON.stringify(result));
}
