// The baseline of bench/cpu-per-request.mjs: a bare Express or Fastify server (BARE_FRAMEWORK)
// whose routes only read a header and answer JSON (issue 51's "a route that only reads a header
// and answers JSON"). BARE_ROUTES is a JSON list of { path, header, body }: a GET on `path`
// answers 200 and `body` (the JSON the example answers on the route it stands beside, so both
// write the same bytes) when the request carries `header`, else 401. Prints its URL.
// With BARE_REDIS_URL, each answer first reads one key of that Redis through ioredis (a value the
// size of an allowlist entry, commands of one turn pipelined into one write): the floor of a route
// that makes the one store round trip a revocable token needs, and nothing else.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import express from "express";
import Fastify from "fastify";

// The repository's root (not from servers.mjs, which would load autocannon into the bare server).
const ROOT = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

const routes = JSON.parse(process.env.BARE_ROUTES ?? "[]");

/** The one read of a request, with BARE_REDIS_URL; without it, none (the handlers stay synchronous). */
const storeRead = await (async () => {
  if (!process.env.BARE_REDIS_URL) return undefined;
  const Redis = createRequire(join(ROOT, "packages/store-redis/package.json"))("ioredis");
  const redis = new Redis(process.env.BARE_REDIS_URL, { enableAutoPipelining: true });
  const key = `cpu-per-request-bare:${process.pid}`;
  await redis.set(
    key,
    JSON.stringify({ sessionId: "s".repeat(22), expiresAt: Date.now() + 3_600_000 }).padEnd(200),
  );
  // startProcess stops the server with SIGINT: the key goes with it.
  process.once("SIGINT", async () => {
    await redis.del(key);
    process.exit(0);
  });
  return async () => {
    if ((await redis.get(key)) === null) throw new Error("the bare route's key is gone");
  };
})();

if (process.env.BARE_FRAMEWORK === "express") {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  for (const { path, header, body } of routes) {
    if (storeRead)
      app.get(path, async (req, res) => {
        if (!req.headers[header]) return res.status(401).json({ error: "missing header" });
        await storeRead();
        res.json(body);
      });
    else
      app.get(path, (req, res) => {
        if (!req.headers[header]) return res.status(401).json({ error: "missing header" });
        res.json(body);
      });
  }
  const server = app.listen(0, "127.0.0.1", () =>
    console.log(`bare express on http://127.0.0.1:${server.address().port}`),
  );
} else {
  const app = Fastify();
  for (const { path, header, body } of routes) {
    app.get(path, async (request, reply) => {
      if (!request.headers[header]) return reply.code(401).send({ error: "missing header" });
      if (storeRead) await storeRead();
      return body;
    });
  }
  await app.listen({ port: 0, host: "127.0.0.1" });
  console.log(`bare fastify on http://127.0.0.1:${app.server.address().port}`);
}
