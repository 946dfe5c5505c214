// The child process of reset-kill.test.ts: the built packages, default argon2 parameters, and
// every reset of `tokens` fired at once, then SIGKILL `killAfterMs` later on its own clock (so a
// busy test runner reading its output late does not move the kill point). Prints "fired" when all
// resets are started and "done <index> <OK|code>" as each one answers; never exits by itself.
// With `redis` ({ url, keyPrefix }), the sessions, single-use tokens and cooldowns are on Redis
// (the built @portcullis/store-redis) and only the users in SQL: the examples' REDIS_URL shape.
import { createAuth, silentLogger } from "@portcullis/core";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import Database from "libsql";
import pg from "pg";
import { createSqlStores } from "../dist/index.js";

const config = JSON.parse(process.argv[2] ?? "{}");
const db =
  config.dialect === "sqlite"
    ? new Kysely({ dialect: new SqliteDialect({ database: new Database(config.file, { timeout: 5_000 }) }) })
    : new Kysely({
        dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: config.url, max: 10 }) }),
      });
const stores = createSqlStores({ db, tablePrefix: config.prefix });
let redisStores;
if (config.redis) {
  const { createRedisClient, createRedisStores } = await import("../../store-redis/dist/index.js");
  const client = createRedisClient(config.redis.url, { logger: silentLogger });
  await new Promise((resolve) => client.once("ready", resolve));
  redisStores = createRedisStores({ client, keyPrefix: config.redis.keyPrefix });
}
const auth = createAuth({
  secret: config.secret,
  stores: redisStores ? { users: stores.users, ...redisStores } : stores,
  appOrigin: "https://app.example.test",
  logger: silentLogger,
  mailer: { send: async () => {} },
  email: { enabled: true, loginAlerts: false },
});
await auth.ready();
// One statement first, so the pool is connected before the clock of the test starts.
await stores.users.findById("warm-up");
if (redisStores) await redisStores.sessions.listSessions("warm-up");
const resets = config.tokens.map((token, index) =>
  auth.resetPassword({ token }, { newPassword: config.newPassword }).then(
    () => process.stdout.write(`done ${index} OK\n`),
    (error) => process.stdout.write(`done ${index} ${error.code ?? error}\n`),
  ),
);
setTimeout(() => process.kill(process.pid, "SIGKILL"), config.killAfterMs);
process.stdout.write("fired\n");
await Promise.all(resets);
process.stdout.write("all done\n");
// Stay up until the kill, like a server would.
setInterval(() => {}, 1_000);
