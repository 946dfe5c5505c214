// HTTP benchmark: requests/s of a protected host route (one JWT verify + one allowlist lookup)
// against the same route unprotected, on Express, on Fastify and on Hono (@hono/node-server,
// through the Fetch adapter), and login against one argon2id
// verify. Real default argon2 parameters; memory stores; autocannon on loopback, 10 connections,
// in the same process as the servers (2 cores here): read the ratios, not the absolute numbers.
// Run: pnpm bench:http
import { serve } from "@hono/node-server";
import autocannon from "autocannon";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { createAuthRouter, requireAuth } from "../packages/adapter-express/dist/index.js";
import { portcullis } from "../packages/adapter-fastify/dist/index.js";
import { authenticateRequest, createFetchHandler } from "../packages/adapter-fetch/dist/index.js";
import { createArgon2Hasher, createAuth, silentLogger } from "../packages/core/dist/index.js";
import { createMemoryStores } from "../packages/store-memory/dist/index.js";

const DURATION_S = 5;
const PASSWORD = "correct horse battery staple";

const makeAuth = async () => {
  const auth = createAuth({
    secret: "http-bench-secret-pHFopsAWn44QuNBpC_I-heE60NnP-LtWbnyQG0j3l-w",
    stores: createMemoryStores({ sweepIntervalMs: 0 }),
    logger: silentLogger,
    email: { enabled: false },
    loginThrottle: { freeAttempts: 100 },
  });
  await auth.ready();
  await auth.register({}, { email: "bench@example.test", password: PASSWORD });
  const login = await auth.login({}, { email: "bench@example.test", password: PASSWORD });
  return { auth, accessToken: login.accessToken };
};

const run = (url, options = {}) =>
  new Promise((resolve, reject) =>
    autocannon({ url, connections: 10, duration: DURATION_S, ...options }, (error, result) =>
      error ? reject(error) : resolve(result),
    ),
  );

const rows = [];

{
  const { auth, accessToken } = await makeAuth();
  const app = express();
  app.use(createAuthRouter(auth));
  app.get("/bare", (_req, res) => res.json({ ok: true }));
  app.get("/protected", requireAuth(auth), (req, res) => res.json({ ok: true, user: req.auth.userId }));
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  const bare = await run(`${base}/bare`);
  const guarded = await run(`${base}/protected`, { headers: { authorization: `Bearer ${accessToken}` } });
  rows.push({
    framework: "express",
    "bare req/s": Math.round(bare.requests.average),
    "protected req/s": Math.round(guarded.requests.average),
    ratio: (guarded.requests.average / bare.requests.average).toFixed(2),
    non2xx: guarded.non2xx,
  });
  server.close();
}
{
  const { auth, accessToken } = await makeAuth();
  const app = Fastify();
  await app.register(portcullis, { auth });
  app.get("/bare", async () => ({ ok: true }));
  app.get("/protected", { preHandler: app.portcullisAuthenticate }, async (request) => ({
    ok: true,
    user: request.auth.userId,
  }));
  await app.listen({ port: 0, host: "127.0.0.1" });
  const base = `http://127.0.0.1:${app.server.address().port}`;
  const bare = await run(`${base}/bare`);
  const guarded = await run(`${base}/protected`, { headers: { authorization: `Bearer ${accessToken}` } });
  rows.push({
    framework: "fastify",
    "bare req/s": Math.round(bare.requests.average),
    "protected req/s": Math.round(guarded.requests.average),
    ratio: (guarded.requests.average / bare.requests.average).toFixed(2),
    non2xx: guarded.non2xx,
  });

  const hasher = createArgon2Hasher();
  const hash = await hasher.hash(PASSWORD);
  const verifies = [];
  for (let i = 0; i < 40; i++) {
    const start = performance.now();
    await hasher.verify(hash, PASSWORD);
    verifies.push(performance.now() - start);
  }
  verifies.sort((a, b) => a - b);
  const login = await run(`${base}/api/auth/login`, {
    method: "POST",
    connections: 2,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "bench@example.test", password: PASSWORD }),
  });
  console.log(
    `login (fastify, 2 connections): ${Math.round(login.requests.average)} req/s, median latency ${login.latency.p50} ms; one argon2id verify: ${verifies[20].toFixed(1)} ms (median of 40)`,
  );
  await app.close();
}
{
  const { auth, accessToken } = await makeAuth();
  const app = new Hono();
  const handler = createFetchHandler(auth);
  const client = (c) => ({ remoteAddress: c.env.incoming.socket.remoteAddress });
  app.all("/api/auth/*", (c) => handler(c.req.raw, client(c)));
  app.get("/bare", (c) => c.json({ ok: true }));
  app.get("/protected", async (c) => {
    const result = await authenticateRequest(auth, c.req.raw, client(c));
    return result.response ?? c.json({ ok: true, user: result.principal.userId });
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  if (!server.listening) await new Promise((resolve) => server.once("listening", resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  const bare = await run(`${base}/bare`);
  const guarded = await run(`${base}/protected`, { headers: { authorization: `Bearer ${accessToken}` } });
  rows.push({
    framework: "hono",
    "bare req/s": Math.round(bare.requests.average),
    "protected req/s": Math.round(guarded.requests.average),
    ratio: (guarded.requests.average / bare.requests.average).toFixed(2),
    non2xx: guarded.non2xx,
  });
  server.close();
}
console.table(rows);
console.log(
  `autocannon, 10 connections, ${DURATION_S} s per figure; protected = one JWT verify + one allowlist lookup (memory store).`,
);
