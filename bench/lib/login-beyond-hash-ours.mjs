// bench/login-beyond-hash.mjs's child for Portcullis: createAuth on store-sql (PostgreSQL at
// DATABASE_URL, a pg Pool of 10 with store-sql's prepared statements), through the Fetch
// adapter (a WHATWG Request in, a Response out, as Better Auth's handler), the hash a trivial
// stand-in. LBH_AUDIT=0 leaves the audit log out of the stores (the activity log stays).
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { measureLogins, plainHash, plainVerify } from "./login-windows.mjs";
import { ROOT } from "./servers.mjs";

const fromSql = createRequire(join(ROOT, "packages/store-sql/package.json"));
const load = (path) => import(pathToFileURL(join(ROOT, path)).href);
const core = await load("packages/core/dist/index.js");
const { createSqlStores, preparePostgresStatements } = await load("packages/store-sql/dist/index.js");
const { createFetchHandler } = await load("packages/adapter-fetch/dist/index.js");
const pg = fromSql("pg");
const { Kysely, PostgresDialect } = await import(pathToFileURL(fromSql.resolve("kysely")).href);

const USERS = 200;
const PASSWORD = "correct horse battery staple";
const ORIGIN = "http://localhost:3000";
const HEADERS = {
  "content-type": "application/json",
  origin: ORIGIN,
  "user-agent":
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
};

const url = process.env.DATABASE_URL;
const pool = new pg.Pool({ connectionString: url, max: 10 });
pool.on("error", () => {});
preparePostgresStatements(pool);
const db = new Kysely({ dialect: new PostgresDialect({ pool }) });
const stores = createSqlStores({ db });
await stores.migrate();
const { auditLog, ...withoutAudit } = stores;
const auth = core.createAuth({
  secret: process.env.AUTH_SECRET,
  stores: process.env.LBH_AUDIT === "0" ? withoutAudit : stores,
  appOrigin: ORIGIN,
  mailer: { send: async () => {} },
  logger: core.silentLogger,
  email: { loginAlerts: false },
  passwordHasher: { hash: plainHash, verify: plainVerify, needsRehash: () => false },
});
const handle = createFetchHandler(auth);
const client = { remoteAddress: "127.0.0.1" };
const post = async (path, body, status) => {
  const request = new Request(`${ORIGIN}/api/auth${path}`, {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify(body),
  });
  const response = await handle(request, client);
  if (response.status !== status) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  await response.text();
};
for (let i = 0; i < USERS; i++)
  await post("/register", { email: `user${i}@example.test`, password: PASSWORD }, 200);
let next = 0;
await measureLogins(process.env.LBH_LABEL, new URL(url).pathname.slice(1), () =>
  post("/login", { email: `user${next++ % USERS}@example.test`, password: PASSWORD }, 200),
);
await auth.idle();
await db.destroy();
