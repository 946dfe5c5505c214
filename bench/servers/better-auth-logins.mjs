// bench/login-beyond-hash.mjs's child for Better Auth (copied into bench/.peer, where it is
// installed, and run from there): email and password on PostgreSQL at DATABASE_URL through a pg
// Pool of 10 (its built-in Kysely adapter, its tables made by its own `getMigrations`), rate
// limiter off, the hash the same trivial stand-in as Portcullis's child; sign-in through
// `auth.handler` (a WHATWG Request in, a Response out).
import { betterAuth } from "better-auth";
import { getMigrations } from "better-auth/db/migration";
import pg from "pg";
import { measureLogins, plainHash, plainVerify } from "../lib/login-windows.mjs";

const USERS = 200;
const PASSWORD = "correct horse battery staple";
const ORIGIN = "http://localhost:3000";
const HEADERS = {
  "content-type": "application/json",
  origin: ORIGIN,
  "user-agent":
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  "x-forwarded-for": "127.0.0.1",
};

const url = process.env.DATABASE_URL;
const pool = new pg.Pool({ connectionString: url, max: 10 });
pool.on("error", () => {});
const options = {
  baseURL: ORIGIN,
  secret: process.env.AUTH_SECRET,
  database: pool,
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
  emailAndPassword: {
    enabled: true,
    password: { hash: plainHash, verify: ({ hash, password }) => plainVerify(hash, password) },
  },
};
await (await getMigrations(options)).runMigrations();
const auth = betterAuth(options);
for (let i = 0; i < USERS; i++)
  await auth.api.signUpEmail({
    body: { email: `user${i}@example.test`, password: PASSWORD, name: `user${i}` },
  });
let next = 0;
await measureLogins(process.env.LBH_LABEL, new URL(url).pathname.slice(1), async () => {
  const body = JSON.stringify({ email: `user${next++ % USERS}@example.test`, password: PASSWORD });
  const response = await auth.handler(
    new Request(`${ORIGIN}/api/auth/sign-in/email`, { method: "POST", headers: HEADERS, body }),
  );
  if (response.status !== 200) throw new Error(`sign-in/email: ${response.status} ${await response.text()}`);
  await response.text();
});
await pool.end();
