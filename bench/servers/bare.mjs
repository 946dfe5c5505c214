// A bare server of one framework (BARE_FRAMEWORK: express | fastify | hono) answering, on each route of the
// BARE_ROUTES JSON ([{ method, path, status, body }]), the same status and JSON the example
// answers; POST bodies are parsed as JSON as the framework does by default. Prints its URL.
import { serve } from "@hono/node-server";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";

const routes = JSON.parse(process.env.BARE_ROUTES ?? "[]");
const framework = process.env.BARE_FRAMEWORK;

if (framework === "express") {
  const app = express();
  app.disable("x-powered-by");
  app.use(express.json());
  for (const { method, path, status, body } of routes) {
    app[method.toLowerCase()](path, (_req, res) => res.status(status).json(body));
  }
  const server = app.listen(0, "127.0.0.1", () =>
    console.log(`bare express on http://127.0.0.1:${server.address().port}`),
  );
} else if (framework === "hono") {
  // On @hono/node-server, as the Hono example; a POST body is read as JSON, as Hono parses it.
  const app = new Hono();
  for (const { method, path, status, body } of routes) {
    app.on(method, path, async (c) => {
      if (method === "POST") await c.req.json().catch(() => undefined);
      return c.json(body, status);
    });
  }
  serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, ({ port }) =>
    console.log(`bare hono on http://127.0.0.1:${port}`),
  );
} else {
  const app = Fastify();
  for (const { method, path, status, body } of routes) {
    app.route({ method, url: path, handler: async (_request, reply) => reply.code(status).send(body) });
  }
  await app.listen({ port: 0, host: "127.0.0.1" });
  console.log(`bare fastify on http://127.0.0.1:${app.server.address().port}`);
}
