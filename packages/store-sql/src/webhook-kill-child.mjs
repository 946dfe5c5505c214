// The child process of the webhook kill tests (webhook-faults.test.ts here and in store-redis): the
// built packages, an auth on the stores of `store` (PostgreSQL tables under a prefix, or Redis
// under a key prefix with the users in memory) with its webhook worker running. It makes `calls`
// calls one after another, printing "done <index> <code>" as each answers, then "calls done", then
// goes on with a call every `paceMs` as a live server would, until the test kills it (SIGKILL).
// The calls are those of test-webhooks.ts's `causeEvent`: an even index registers, an odd one
// signs in to an unknown address; the user agent marks the call, so its audit entry can be found.
import { createArgon2Hasher, createAuth, silentLogger } from "@portcullis/core";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { createSqlStores } from "../dist/index.js";

const config = JSON.parse(process.argv[2] ?? "{}");
const PASSWORD = "correct horse battery staple";

async function openStores(store) {
  if (store.kind === "redis") {
    const { createRedisClient, createRedisStores } = await import("../../store-redis/dist/index.js");
    const { createMemoryUserStore } = await import("../../store-memory/dist/index.js");
    const client = createRedisClient(store.url, { logger: silentLogger });
    await new Promise((resolve) => client.once("ready", resolve));
    return { users: createMemoryUserStore(), ...createRedisStores({ client, keyPrefix: store.keyPrefix }) };
  }
  const pool = new pg.Pool({ connectionString: store.url, max: 5 });
  pool.on("error", () => {});
  return createSqlStores({
    db: new Kysely({ dialect: new PostgresDialect({ pool }) }),
    tablePrefix: store.tablePrefix,
  });
}

const auth = createAuth({
  secret: config.secret,
  stores: await openStores(config.store),
  appOrigin: "https://app.example.test",
  logger: silentLogger,
  mailer: { send: async () => {} },
  email: { loginAlerts: false },
  passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
  webhooks: { allowPrivateNetworks: true, ...config.webhooks },
});
await auth.ready();

async function call(index) {
  const request = { request: { userAgent: `${config.tag} call ${index}` } };
  const email = `${config.tag}-${index}@example.test`;
  const answer =
    index % 2 === 0
      ? auth.register(request, { email, password: PASSWORD })
      : auth.login(request, { email, password: PASSWORD });
  const code = await answer.then(
    () => "OK",
    (error) => error.code ?? String(error),
  );
  process.stdout.write(`done ${index} ${code}\n`);
}

let index = 0;
while (index < config.calls) await call(index++);
process.stdout.write("calls done\n");
for (;;) {
  await new Promise((resolve) => setTimeout(resolve, config.paceMs));
  await call(index++);
}
