// What `pnpm bench` measures: the servers it can start and the rows it can print, each row in one
// group of BENCH_ONLY. A run starts only the servers its selected rows name.

/** The groups of BENCH_ONLY (a comma list; every group when unset or empty). */
export const GROUPS = ["memory-stores", "login", "sql", "redis", "better-auth", "node20", "memory-footprint"];

/** The selected groups, in GROUPS order; throws on a name that is not a group. */
export function selectedGroups(only = process.env.BENCH_ONLY ?? "") {
  const names = only
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !GROUPS.includes(name));
  if (unknown.length > 0)
    throw new Error(`BENCH_ONLY: no group ${unknown.join(", ")} (groups: ${GROUPS.join(", ")})`);
  return names.length === 0 ? [...GROUPS] : GROUPS.filter((group) => names.includes(group));
}

/**
 * Every server by key. kind: an example (`framework`, with `database`: a key of the SQL databases,
 * or `redis`), a bare server of `framework`, or Better Auth (memory, or `database`). node: "22"
 * (the servers' Node, chooseServerNode) or "20" (chooseNode20).
 */
export const SERVERS = {
  express: { kind: "example", framework: "express", node: "22" },
  fastify: { kind: "example", framework: "fastify", node: "22" },
  hono: { kind: "example", framework: "hono", node: "22" },
  fastifyRedis: { kind: "example", framework: "fastify", node: "22", redis: true },
  expressSqlite: { kind: "example", framework: "express", node: "22", database: "sqlite" },
  expressPostgres: { kind: "example", framework: "express", node: "22", database: "express" },
  fastifyPostgres: { kind: "example", framework: "fastify", node: "22", database: "fastify" },
  fastifyNode20: { kind: "example", framework: "fastify", node: "20" },
  betterAuth: { kind: "better-auth", node: "22" },
  betterAuthPostgres: { kind: "better-auth", node: "22", database: "better_auth" },
  bareExpress: { kind: "bare", framework: "express", node: "22" },
  bareFastify: { kind: "bare", framework: "fastify", node: "22" },
  bareHono: { kind: "bare", framework: "hono", node: "22" },
  bareFastifyNode20: { kind: "bare", framework: "fastify", node: "20" },
};

const PG = "store-sql (PostgreSQL)";
const BA_PG = "better-auth on PostgreSQL";
/** A row of scenario `scenario` on `ours` against `base` (a server key, or "raw": argon2id in this process). */
const r = (group, scenario, framework, ours, base, baseName, goal) => ({
  group,
  scenario,
  framework,
  ours,
  base,
  baseName,
  goal,
});

/** The Fastify 429 rows, on the servers' Node (22) and on Node 20, after GET /me on the same servers. */
const cooldownRows = (scenario, node22) => [
  r("memory-stores", scenario, "express", "express", "bareExpress", "bare", 0.6),
  r("memory-stores", scenario, `fastify (Node ${node22})`, "fastify", "bareFastify", "bare", 0.75),
  r("memory-stores", scenario, "hono", "hono", "bareHono", "bare"),
  r("node20", scenario, "fastify (Node 20)", "fastifyNode20", "bareFastifyNode20", "bare", 0.6),
  r("better-auth", `${scenario}:ba`, "express", "express", "betterAuth", "better-auth"),
];

/** Every row in the order it is measured and printed; `node22` names the servers' Node major. */
export const rowPlan = (node22) => [
  r("memory-stores", "me", "express", "express", "bareExpress", "bare", 0.8),
  r("memory-stores", "me", "fastify", "fastify", "bareFastify", "bare", 0.6),
  r("memory-stores", "me", "hono", "hono", "bareHono", "bare"),
  r("sql", "me", "express + store-sql (SQLite)", "expressSqlite", "bareExpress", "bare"),
  r("sql", "me", `express + ${PG}`, "expressPostgres", "bareExpress", "bare", 0.6),
  r("sql", "me", `fastify + ${PG}`, "fastifyPostgres", "bareFastify", "bare", 0.5),
  r("redis", "me", "fastify + store-redis", "fastifyRedis", "bareFastify", "bare", 0.55),
  // No goal: the Node 20 servers take the GET /me traffic the Node 22 ones take before their 429 rows.
  r("node20", "me", "fastify (Node 20)", "fastifyNode20", "bareFastifyNode20", "bare"),
  r("better-auth", "me:ba", "express", "express", "betterAuth", "better-auth"),
  r("better-auth", "me:ba", `express + ${PG}`, "expressPostgres", "betterAuthPostgres", BA_PG, 3),
  ...cooldownRows("reset", node22),
  ...cooldownRows("verification", node22),
  r("login", "login", "express", "express", "raw", "raw argon2id", 0.9),
  r("login", "login", "fastify", "fastify", "raw", "raw argon2id", 0.9),
  r("login", "login", "hono", "hono", "raw", "raw argon2id"),
  r("sql", "login", "express + store-sql (SQLite)", "expressSqlite", "raw", "raw argon2id"),
  r("sql", "login", `express + ${PG}`, "expressPostgres", "raw", "raw argon2id", 0.85),
  r("better-auth", "login:ba-self", "express", "betterAuth", "raw", "raw argon2id"),
  r("better-auth", "login:ba", `express + ${PG}`, "expressPostgres", "betterAuthPostgres", BA_PG, 1.3),
];

/** The printed scenario of a row's scenario key. */
export const SCENARIO_LABELS = {
  me: "GET /me (bearer)",
  reset: "reset-request in cooldown (429)",
  verification: "verification send in cooldown (429)",
  login: "login, right password",
  "me:ba": "GET /me (bearer): Better Auth equivalent",
  "reset:ba": "reset-request in cooldown (429): Better Auth equivalent",
  "verification:ba": "verification send in cooldown (429): Better Auth equivalent",
  "login:ba-self": "login, right password: Better Auth",
  "login:ba": "login, right password: Better Auth equivalent",
};
