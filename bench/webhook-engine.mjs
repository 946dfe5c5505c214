// What one webhook delivery costs, apart from any sign-in (issue 47): the engine of one
// `createAuth` on PostgreSQL (store-sql, a database created here and dropped at the end) with the
// deployment's endpoint for every event, pointing at a receiver in a child process that answers
// 200 at once (a bare `node:http` server: no signature check, so its figure is the least a
// receiver pays). Each round first records N audit entries with the engine idle (`deliver:
// false`; an admin's lock and unlock of one user, N/2 times each), then runs `deliverNow()`,
// which sends all N in order, and reports per message: this process's CPU (user + system, every
// thread) and its main thread's, the database backends' CPU, the receiver's CPU, and the wall
// time. The recording phase's CPU per event is printed beside it, for scale.
//
//   pnpm --filter portcullis-bench webhook-engine   (builds what it needs)
//   pnpm -r --filter "@portcullis/*" build && node bench/webhook-engine.mjs   (from the root)
//
// Env: WE_MESSAGES (N, default 2,000), WE_ROUNDS (default 3; the first runs cold),
// BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres).
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { postgresBackendsCpu } from "./lib/cpu-per-request-measure.mjs";
import { processCpuS, threadCpuS } from "./lib/cpu-split.mjs";
import { prepareSqlDatabases } from "./lib/rows-services.mjs";
import { ROOT } from "./lib/servers.mjs";

const MESSAGES = Number(process.env.WE_MESSAGES ?? 2000);
const ROUNDS = Number(process.env.WE_ROUNDS ?? 3);
const RECEIVER = fileURLToPath(new URL("./lib/bare-receiver.mjs", import.meta.url));
const ADMIN = "admin@example.test";
const PASSWORD = "correct horse battery staple";
const fromRoot = (path) => import(pathToFileURL(join(ROOT, path)).href);

/** The CPU ms of the PostgreSQL backends serving `database`, summed. */
const backendsMs = (database) => {
  let seconds = 0;
  for (const cpu of postgresBackendsCpu(database).values()) seconds += cpu;
  return seconds * 1000;
};

const core = await fromRoot("packages/core/dist/index.js");
const sql = await fromRoot("packages/store-sql/dist/index.js");
const fromSql = createRequire(join(ROOT, "packages/store-sql/package.json"));
const pg = fromSql("pg");
const { Kysely, PostgresDialect } = await import(pathToFileURL(fromSql.resolve("kysely")).href);

const databases = prepareSqlDatabases({ sqlite: false, postgres: [`webhook_engine_${process.pid}`] });
const url = Object.values(databases.urls)[0];
if (!url) throw new Error("no PostgreSQL database could be created (BENCH_PG_URL)");
const database = new URL(url).pathname.slice(1);
const receiver = fork(RECEIVER);
const pool = sql.discardTimedOutConnections(
  new pg.Pool({ connectionString: url, max: 10, ...sql.postgresPoolOptions() }),
);
const db = new Kysely({ dialect: new PostgresDialect({ pool }) });
try {
  const port = await new Promise((resolve) => receiver.once("message", resolve));
  const stores = sql.createSqlStores({ db });
  await stores.migrate();
  const auth = core.createAuth({
    secret: randomBytes(48).toString("base64"),
    stores,
    logger: core.silentLogger,
    email: { enabled: false },
    passwordHasher: core.createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    admin: { authorize: (_principal, user) => user.email === ADMIN },
    webhooks: { allowPrivateNetworks: true, deliver: false },
  });
  await auth.ready();
  await auth.host.createUser({}, { email: ADMIN, password: PASSWORD, emailVerified: true });
  const target = await auth.host.createUser({}, { email: "target@example.test", password: PASSWORD });
  const { accessToken } = await auth.login({}, { email: ADMIN, password: PASSWORD });
  const principal = await auth.authenticate({ token: accessToken });
  const { stepUpToken } = await auth.stepUp({ principal }, { password: PASSWORD });
  await auth.webhooks.create(
    { principal, stepUpToken },
    { url: `http://127.0.0.1:${port}/hook`, events: ["*"] },
  );
  await auth.webhooks.deliverNow();
  const main = () => threadCpuS(process.pid).main * 1000;
  const receiverMs = () => processCpuS(receiver.pid) * 1000;
  const rows = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const recordStart = { cpu: process.cpuUsage(), db: backendsMs(database) };
    for (let i = 0; i < MESSAGES / 2; i++) {
      await auth.host.lockUser({ actor: "bench" }, { userId: target.id });
      await auth.host.unlockUser({ actor: "bench" }, target.id);
    }
    await auth.idle();
    const recorded = process.cpuUsage(recordStart.cpu);
    const recordDb = backendsMs(database) - recordStart.db;
    const start = { cpu: process.cpuUsage(), main: main(), db: backendsMs(database), receiver: receiverMs() };
    const wall = performance.now();
    await auth.webhooks.deliverNow();
    const used = process.cpuUsage(start.cpu);
    const per = (ms) => ((ms * 1000) / MESSAGES).toFixed(0);
    rows.push({
      round,
      "process µs/msg": ((used.user + used.system) / MESSAGES).toFixed(0),
      "main thread µs/msg": per(main() - start.main),
      "database µs/msg": per(backendsMs(database) - start.db),
      "receiver µs/msg": per(receiverMs() - start.receiver),
      "wall µs/msg": per(performance.now() - wall),
      "recording: process + database µs/event": `${((recorded.user + recorded.system) / MESSAGES).toFixed(0)} + ${per(recordDb)}`,
    });
  }
  console.log(`webhook-engine: ${MESSAGES} messages per round, Node ${process.version}`);
  console.table(rows);
} finally {
  receiver.kill();
  await db.destroy();
  databases.drop();
}
