// Better Auth on Express, for the comparison column: email and password with argon2id at the same
// parameters as Portcullis (m=19456, t=2, p=1), rate limiter off, emails dropped. Its database is
// the memory adapter, or with DATABASE_URL a PostgreSQL database through a `pg` Pool of 10
// connections (the pool size of the examples), whose tables Better Auth's own migration API
// (`getMigrations`) creates before the seed. Copied into bench/.peer (where better-auth is
// installed) and run from there. Seeds SEED_FILE's users through its own sign-up, then prints its URL.
//
// With BETTER_AUTH_ENTERPRISE=1 (the OAuth and SCIM rows of bench/cpu-per-request.mjs, on a server
// of their own) it also has its OAuth 2.1 provider (@better-auth/oauth-provider, with the JWT
// plugin it needs) and its SCIM plugin (@better-auth/scim), and beside Better Auth's routes:
//
// - GET /api/projects: the resource server's route, verifying an access token issued for
//   `<baseURL>/api` with `verifyBearerToken` (better-auth/oauth2) against the provider's JWKS
//   (fetched once and cached), audience, issuer and the scope projects:read checked.
// - GET /bench/oauth-client: the confidential client made at start (`adminCreateOAuthClient`,
//   consent skipped, so an authorization with a session answers a code at once), and the SCIM
//   connection's bearer token.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { hash, verify } from "@node-rs/argon2";
import { betterAuth } from "better-auth";
import { memoryAdapter } from "better-auth/adapters/memory";
import { getAuthTables } from "better-auth/db";
import { getMigrations } from "better-auth/db/migration";
import { toNodeHandler } from "better-auth/node";
import express from "express";

const ARGON2 = { memoryCost: 19456, timeCost: 2, parallelism: 1, algorithm: 2 };
const ENTERPRISE = process.env.BETTER_AUTH_ENTERPRISE === "1";
const REDIRECT_URI = "https://rp.bench.test/callback";
const SCIM_TOKEN = `scim-${randomBytes(24).toString("base64url")}`;

/**
 * The memory adapter (a table for every model of `plugins`), or a `pg` Pool on DATABASE_URL
 * (Better Auth's built-in Kysely adapter).
 */
async function database(plugins) {
  if (!process.env.DATABASE_URL) {
    if (plugins.length === 0) return memoryAdapter({ user: [], session: [], account: [], verification: [] });
    const tables = Object.values(getAuthTables({ plugins })).map((table) => [table.modelName, []]);
    return memoryAdapter(Object.fromEntries(tables));
  }
  const { default: pg } = await import("pg");
  return new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
}

/** The OAuth provider (with the JWT plugin) and SCIM plugins, for the resource `<baseURL>/api`. */
async function enterprisePlugins(baseURL) {
  const { oauthProvider } = await import("@better-auth/oauth-provider");
  const { scim } = await import("@better-auth/scim");
  const { jwt } = await import("better-auth/plugins");
  return [
    jwt({ jwt: { issuer: `${baseURL}/api/auth` } }),
    oauthProvider({
      loginPage: "/login",
      consentPage: "/consent",
      resources: [`${baseURL}/api`],
      enforcePerClientResources: false,
      scopes: ["openid", "profile", "email", "offline_access", "projects:read"],
    }),
    scim({
      connections: [
        { id: "bench", credentials: [{ type: "bearer", id: "bench-primary", token: SCIM_TOKEN }] },
      ],
    }),
  ];
}

/** The OAuth client (made with the session of the seed's first user) and the two routes of the OAuth and SCIM rows. */
async function enterpriseRoutes(app, auth, baseURL, seed) {
  const { verifyBearerToken } = await import("better-auth/oauth2");
  const resource = `${baseURL}/api`;
  const signedIn = await auth.api.signInEmail({
    body: { email: seed[0].email, password: seed[0].password },
    returnHeaders: true,
  });
  const cookie = signedIn.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const client = await auth.api.adminCreateOAuthClient({
    headers: new Headers({ cookie }),
    body: {
      client_name: "Bench App",
      redirect_uris: [REDIRECT_URI],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "client_secret_basic",
      scope: "openid offline_access projects:read",
      skip_consent: true,
    },
  });
  app.get("/bench/oauth-client", (_req, res) => {
    res.json({
      clientId: client.client_id,
      clientSecret: client.client_secret,
      redirectUri: REDIRECT_URI,
      scimToken: SCIM_TOKEN,
      resource,
    });
  });
  const verifyOptions = { audience: resource, issuer: `${baseURL}/api/auth` };
  app.get("/api/projects", async (req, res) => {
    const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
    if (!token) return res.status(401).json({ error: "invalid_token" });
    try {
      const payload = await verifyBearerToken(token, {
        verifyOptions,
        requiredScopes: ["projects:read"],
        jwksUrl: `${baseURL}/api/auth/jwks`,
      });
      res.json({
        userId: payload.sub ?? null,
        clientId: payload.azp ?? payload.client_id,
        scopes: payload.scope,
      });
    } catch {
      res.status(401).json({ error: "invalid_token" });
    }
  });
}

const app = express();
app.disable("x-powered-by");
const server = app.listen(0, "127.0.0.1");
await new Promise((resolve) => server.once("listening", resolve));
const baseURL = `http://127.0.0.1:${server.address().port}`;
const plugins = ENTERPRISE ? await enterprisePlugins(baseURL) : [];
const options = {
  baseURL,
  secret: process.env.AUTH_SECRET,
  database: await database(plugins),
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
  ...(ENTERPRISE ? { plugins } : {}),
};
if (process.env.DATABASE_URL) await (await getMigrations(options)).runMigrations();
const auth = betterAuth(options);
app.all("/api/auth/*splat", toNodeHandler(auth));
const seed = JSON.parse(readFileSync(process.env.SEED_FILE, "utf8"));
for (const user of seed) {
  await auth.api.signUpEmail({ body: { email: user.email, password: user.password, name: user.email } });
}
if (ENTERPRISE) await enterpriseRoutes(app, auth, baseURL, seed);
process.once("SIGINT", async () => {
  server.close();
  if (process.env.DATABASE_URL) await options.database.end();
  process.exit(0);
});
console.log(`better-auth on ${baseURL}`);
