// Better Auth on Express, for the comparison column: email and password with argon2id at the same
// parameters as Portcullis (m=19456, t=2, p=1), rate limiter off, emails dropped. Its database is
// the memory adapter, or with DATABASE_URL a PostgreSQL database through a `pg` Pool of 10
// connections (the pool size of the examples), whose tables Better Auth's own migration API
// (`getMigrations`) creates before the seed. Copied into bench/.peer (where better-auth is
// installed) and run from there. Seeds SEED_FILE's users through its own sign-up, then prints its URL.
import { readFileSync } from "node:fs";
import { hash, verify } from "@node-rs/argon2";
import { betterAuth } from "better-auth";
import { memoryAdapter } from "better-auth/adapters/memory";
import { getMigrations } from "better-auth/db/migration";
import { toNodeHandler } from "better-auth/node";
import express from "express";

const ARGON2 = { memoryCost: 19456, timeCost: 2, parallelism: 1, algorithm: 2 };

/** The memory adapter, or a `pg` Pool on DATABASE_URL (Better Auth's built-in Kysely adapter). */
async function database() {
  if (!process.env.DATABASE_URL)
    return memoryAdapter({ user: [], session: [], account: [], verification: [] });
  const { default: pg } = await import("pg");
  return new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
}

const app = express();
app.disable("x-powered-by");
const server = app.listen(0, "127.0.0.1");
await new Promise((resolve) => server.once("listening", resolve));
const baseURL = `http://127.0.0.1:${server.address().port}`;
const options = {
  baseURL,
  secret: process.env.AUTH_SECRET,
  database: await database(),
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
  emailAndPassword: {
    enabled: true,
    password: {
      hash: (password) => hash(password, ARGON2),
      verify: ({ hash: hashed, password }) => verify(hashed, password),
    },
    sendResetPassword: async () => {},
  },
  emailVerification: { sendVerificationEmail: async () => {} },
};
if (process.env.DATABASE_URL) await (await getMigrations(options)).runMigrations();
const auth = betterAuth(options);
app.all("/api/auth/*splat", toNodeHandler(auth));
for (const user of JSON.parse(readFileSync(process.env.SEED_FILE, "utf8"))) {
  await auth.api.signUpEmail({ body: { email: user.email, password: user.password, name: user.email } });
}
process.once("SIGINT", async () => {
  server.close();
  if (process.env.DATABASE_URL) await options.database.end();
  process.exit(0);
});
console.log(`better-auth on ${baseURL}`);
