// Organizations on the authenticated path: GET /api/projects (requirePermission "project:read"
// with an active organization: the JWT verify, the allowlist read and the membership read) beside
// GET /api/auth/me (the JWT verify and the joint allowlist-and-user read), on the Express example
// with memory stores and on PostgreSQL (a database of its own, created through psql at
// BENCH_PG_URL, default the local server, dropped at the end). Rounds alternate the two routes;
// the ratio is the median of the rounds, measured in this one run. Goal: at least 0.9.
//
//   pnpm --filter portcullis-bench exec node organizations.mjs   (the examples built)
//
// Env: ORG_ROUNDS (default 5), ORG_SECONDS (window, default 4), ORG_STORES (memory,postgres).
import { spawnSync } from "node:child_process";
import { load, post, startExample, writeSeedFile } from "./lib/servers.mjs";

const ROUNDS = Number(process.env.ORG_ROUNDS ?? 5);
const SECONDS = Number(process.env.ORG_SECONDS ?? 4);
const STORES = (process.env.ORG_STORES ?? "memory,postgres").split(",");
const PG_ADMIN = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const psql = (text) =>
  spawnSync("psql", [PG_ADMIN, "-v", "ON_ERROR_STOP=1", "-c", text], { encoding: "utf8" });

/** A signed-in member whose session has an organization active: its access token. */
async function activeMember(base) {
  const login = await post(`${base}/api/auth/login`, {
    email: "user0@example.test",
    password: "correct horse battery staple",
  });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${JSON.stringify(login.body)}`);
  const bearer = { authorization: `Bearer ${login.body.accessToken}` };
  const created = await post(
    `${base}/api/auth/organizations`,
    { name: "Bench", slug: `bench-${process.pid}` },
    bearer,
  );
  if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  const activated = await post(
    `${base}/api/auth/organizations/${created.body.organization.id}/activate`,
    undefined,
    bearer,
  );
  if (activated.status !== 200)
    throw new Error(`activate: ${activated.status} ${JSON.stringify(activated.body)}`);
  return activated.body.accessToken;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const seedFile = writeSeedFile(5);
const rows = [];
let database;
for (const kind of STORES) {
  const env = {};
  if (kind === "postgres") {
    database = `portcullis_org_bench_${process.pid}`;
    if (psql(`CREATE DATABASE ${database}`).status !== 0) throw new Error(`psql at ${PG_ADMIN} failed`);
    const url = new URL(PG_ADMIN);
    url.pathname = `/${database}`;
    env.DATABASE_URL = url.toString();
  }
  const server = await startExample("express", { seedFile, env });
  try {
    const token = await activeMember(server.url);
    const headers = { authorization: `Bearer ${token}` };
    const scenarios = {
      me: { path: "/api/auth/me", method: "GET", headers, status: 200 },
      projects: { path: "/api/projects", method: "GET", headers, status: 200 },
    };
    const rps = { me: [], projects: [] };
    let unexpected = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? ["me", "projects"] : ["projects", "me"];
      for (const name of order) {
        const result = await load(server.url, scenarios[name], {
          durationS: SECONDS,
          warmupS: round === 0 ? 2 : 0,
        });
        rps[name].push(result.rps);
        unexpected += result.unexpected + result.errors;
      }
    }
    rows.push({
      stores: kind,
      "GET /me req/s": Math.round(median(rps.me)),
      "GET /api/projects req/s": Math.round(median(rps.projects)),
      ratio: (median(rps.projects) / median(rps.me)).toFixed(2),
      unexpected,
    });
  } finally {
    await server.stop();
    if (database) psql(`DROP DATABASE IF EXISTS ${database}`);
    database = undefined;
  }
}
console.table(rows);
