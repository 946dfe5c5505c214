// Better Auth on Express, for the comparison column: memory adapter, email and password with
// argon2id at the same parameters as Portcullis (m=19456, t=2, p=1), rate limiter off, emails
// dropped. Copied into bench/.peer (where better-auth is installed) and run from there.
// Seeds SEED_FILE's users through its own sign-up, then prints its URL.
import { readFileSync } from "node:fs";
import { hash, verify } from "@node-rs/argon2";
import { betterAuth } from "better-auth";
import { memoryAdapter } from "better-auth/adapters/memory";
import { toNodeHandler } from "better-auth/node";
import express from "express";

const ARGON2 = { memoryCost: 19456, timeCost: 2, parallelism: 1, algorithm: 2 };
const db = { user: [], session: [], account: [], verification: [] };
const app = express();
app.disable("x-powered-by");
const server = app.listen(0, "127.0.0.1");
await new Promise((resolve) => server.once("listening", resolve));
const baseURL = `http://127.0.0.1:${server.address().port}`;
const auth = betterAuth({
  baseURL,
  secret: process.env.AUTH_SECRET,
  database: memoryAdapter(db),
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
});
app.all("/api/auth/*splat", toNodeHandler(auth));
for (const user of JSON.parse(readFileSync(process.env.SEED_FILE, "utf8"))) {
  await auth.api.signUpEmail({ body: { email: user.email, password: user.password, name: user.email } });
}
console.log(`better-auth on ${baseURL}`);
