// The baseline of bench/cpu-per-request.mjs: a bare Express or Fastify server (BARE_FRAMEWORK)
// whose routes only read a header and answer JSON (issue 51's "a route that only reads a header
// and answers JSON"). BARE_ROUTES is a JSON list of { path, header, body }: a GET on `path`
// answers 200 and `body` (the JSON the example answers on the route it stands beside, so both
// write the same bytes) when the request carries `header`, else 401. Prints its URL.
import express from "express";
import Fastify from "fastify";

const routes = JSON.parse(process.env.BARE_ROUTES ?? "[]");

if (process.env.BARE_FRAMEWORK === "express") {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  for (const { path, header, body } of routes) {
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
      return body;
    });
  }
  await app.listen({ port: 0, host: "127.0.0.1" });
  console.log(`bare fastify on http://127.0.0.1:${app.server.address().port}`);
}
