// A host's first install, as the docs list it: `npm install` of the packed tarballs (core,
// adapter-express, store-sql, store-memory) and of express, kysely, libsql and pg from the registry
// into a fresh app, on Node 20 and on Node 22, each npm run by that Node (npm prefers the versions
// whose `engines` fit the running Node: kysely 0.29 declares Node 22). Then a small server, written
// as a host would, registers and signs in over HTTP on SQLite, PostgreSQL and the memory stores.
// Node 22: PORTCULLIS_NODE22 (.ci/run sets it), else `node@22` from the npm registry, installed
// once per run. Needs the packages built (`pnpm test` builds first), the npm registry and PostgreSQL
// (PG_URL, 127.0.0.1:5432 or Debian's server binaries; see packages/store-sql/src/test-databases.ts).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { freePort } from "@portcullis/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresDatabase, usePostgres } from "../../packages/store-sql/src/test-databases.js";
import { packPackages, plainEnv, run } from "./pack.js";

const PACKAGES = ["core", "adapter-express", "store-sql", "store-memory"] as const;
/**
 * What the docs list besides our packages (kysely is chosen per Node, see the legs), and what a
 * TypeScript host adds.
 */
const APP_DEPENDENCIES = [
  "express@5.3.0",
  "libsql@0.5.29",
  "pg@8.23.1",
  "typescript@5.9.3",
  "@types/node@22",
];
const MINUTES = 60_000;

/** The server a host writes (README, docs/stores.md): createAuth on store-sql, the Express router. */
const SERVER = `import { createAuthRouter } from "@portcullis/adapter-express";
import { createArgon2Hasher, createAuth } from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import { createSqliteDialect, createSqlStores, discardTimedOutConnections, postgresPoolOptions } from "@portcullis/store-sql";
import express from "express";
import { Kysely, PostgresDialect } from "kysely";
import Database from "libsql";
import pg from "pg";

const url = process.env.DATABASE_URL ?? "";
const port = Number(process.env.PORT);
let db;
if (url.startsWith("sqlite:")) {
  const database = new Database(url.slice("sqlite:".length));
  database.pragma("journal_mode = WAL");
  db = new Kysely({ dialect: createSqliteDialect({ database }) });
} else if (url.startsWith("postgres")) {
  const pool = discardTimedOutConnections(new pg.Pool({ connectionString: url, ...postgresPoolOptions() }));
  db = new Kysely({ dialect: new PostgresDialect({ pool }) });
}
let stores = createMemoryStores();
if (db) {
  stores = createSqlStores({ db });
  await stores.migrate();
}

const auth = createAuth({
  secret: process.env.AUTH_SECRET,
  stores,
  mailer: { send: async (email) => console.log(\`To \${email.to}: \${email.subject}\`) },
  appOrigin: \`http://127.0.0.1:\${port}\`,
  // The one change for the test: cheaper argon2id parameters than the defaults.
  passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
});
await auth.ready();

const app = express();
app.use(createAuthRouter(auth));
const server = app.listen(port, "127.0.0.1", () => console.log("listening"));
process.on("SIGTERM", () => server.close(() => (db ? db.destroy() : Promise.resolve()).then(() => process.exit(0))));
`;

/**
 * store-sql's declarations with the leg's kysely, strict: they must resolve (kysely 0.28 has no
 * `kysely/migration`), and not to any (which is what skipLibCheck, on in most hosts' tsconfig, makes
 * of a declaration that imports a module that is not there).
 */
const TYPES = `import { createSqlMigrator, createSqlStores } from "@portcullis/store-sql";
import { Kysely, SqliteDialect } from "kysely";
import Database from "libsql";

const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(":memory:") }) });
const { results } = await createSqlMigrator(db).migrateToLatest();
export const names: string[] = (results ?? []).map((result) => result.migrationName);
// @ts-expect-error: a number is not a list of results (were the types \`any\`, this would compile)
export const wrong: number = results;
export const stores = createSqlStores({ db });
`;

interface Leg {
  name: string;
  /** The kysely range the app installs: each end of store-sql's peer range on one Node. */
  kysely: "0.28" | "0.29";
  node(): Promise<string>;
}

let work: string;
let tarballs: Record<string, string> = {};
let postgres: { url: string; stop(): Promise<void> };
let node22: Promise<string> | undefined;

/** Node 22: PORTCULLIS_NODE22, else the `node` npm package into the work folder, once. */
function nodeTwentyTwo(): Promise<string> {
  if (process.env.PORTCULLIS_NODE22) return Promise.resolve(process.env.PORTCULLIS_NODE22);
  node22 ??= (async () => {
    const prefix = join(work, "node22");
    await run(
      "npm",
      ["install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", "--loglevel=error", "node@22"],
      {
        env: plainEnv(),
      },
    );
    return join(prefix, "node_modules", ".bin", "node");
  })();
  return node22;
}

const major = (version: string) => Number(/^v(\d+)/.exec(version)?.[1]);
const current = major(process.version);
const LEGS: Leg[] = [
  {
    name: `Node ${current}`,
    kysely: current < 22 ? "0.28" : "0.29",
    node: async () => process.execPath,
  },
];
if (current < 22) LEGS.push({ name: "Node 22", kysely: "0.29", node: nodeTwentyTwo });

/** npm's own CLI, to run it with another Node than the one on PATH. */
async function npmCli(): Promise<string> {
  const root = (await run("npm", ["root", "-g"], { env: plainEnv() })).stdout.trim();
  const cli = join(root, "npm", "bin", "npm-cli.js");
  if (!existsSync(cli)) throw new Error(`npm's CLI is not at ${cli}`);
  return cli;
}

/** Starts server.mjs with `node` and waits for its "listening"; returns its origin and a stop. */
async function startServer(node: string, dir: string, env: Record<string, string>) {
  const port = await freePort();
  const child = spawn(node, ["server.mjs"], {
    cwd: dir,
    env: plainEnv({
      ...env,
      PORT: String(port),
      AUTH_SECRET: "install-test-secret-hBKrzSpwEgJzleEj30gYV21G28DZNr79lWWAI6DloAA",
    }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server.mjs did not listen within 30 s:\n${output}`)),
      30_000,
    );
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("listening")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server.mjs exited (${code}):\n${output}`));
    });
  });
  return {
    origin: `http://127.0.0.1:${port}`,
    output: () => output,
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

async function post(origin: string, path: string, body: unknown) {
  const response = await fetch(`${origin}/api/auth${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", origin },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "portcullis-install-"));
  await mkdir(join(work, "tarballs"));
  [tarballs, postgres] = await Promise.all([packPackages(PACKAGES, join(work, "tarballs")), usePostgres()]);
}, 5 * MINUTES);

afterAll(async () => {
  await postgres?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe.each(LEGS)("fresh app on $name", (leg) => {
  let dir: string;
  let node: string;

  beforeAll(async () => {
    node = await leg.node();
    dir = join(work, `app-${leg.name.replace(/\W+/g, "-")}`);
    await mkdir(dir);
    await writeFile(
      join(dir, "package.json"),
      JSON.stringify({ name: "host-app", private: true, type: "module" }),
    );
    await writeFile(join(dir, "server.mjs"), SERVER);
    await writeFile(join(dir, "types.ts"), TYPES);
  }, 5 * MINUTES);

  it(
    `npm install - the tarballs, express, kysely ${leg.kysely}, libsql and pg install with no peer dependency warning`,
    async () => {
      const started = Date.now();
      const { stderr } = await run(
        node,
        [
          await npmCli(),
          "install",
          "--no-audit",
          "--no-fund",
          "--loglevel=warn",
          ...PACKAGES.map((pkg) => tarballs[pkg] ?? ""),
          ...APP_DEPENDENCIES,
          `kysely@${leg.kysely}`,
        ],
        {
          cwd: dir,
          maxBuffer: 64 * 1024 * 1024,
          // npm runs install scripts with the `node` of PATH: this leg's.
          env: plainEnv({ PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ""}` }),
        },
      );
      console.log(`${leg.name}: npm install in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      const nodeVersion = (await run(node, ["--version"])).stdout.trim();
      expect(major(nodeVersion)).toBe(leg.name === "Node 22" ? 22 : current);
      expect(stderr).not.toMatch(/peer|ERESOLVE/i);
      const kysely = JSON.parse(
        await readFile(join(dir, "node_modules", "kysely", "package.json"), "utf8"),
      ) as {
        version: string;
      };
      expect(kysely.version.startsWith(`${leg.kysely}.`), kysely.version).toBe(true);
      if (stderr.trim()) console.log(`${leg.name}: npm's warnings:\n${stderr.trim()}`);
    },
    5 * MINUTES,
  );

  it(
    `tsc - store-sql's declarations type-check with kysely ${leg.kysely}, strict, and are not any`,
    async () => {
      const tsc = await run(
        node,
        [
          join(dir, "node_modules", "typescript", "bin", "tsc"),
          "--noEmit",
          "--strict",
          "--skipLibCheck",
          "--module",
          "nodenext",
          "--moduleResolution",
          "nodenext",
          "--target",
          "es2023",
          "--types",
          "node",
          "types.ts",
        ],
        { cwd: dir },
      ).then(
        ({ stdout, stderr }) => `${stdout}${stderr}`,
        (error: { stdout?: string; stderr?: string; message?: string }) =>
          `${error.stdout ?? ""}${error.stderr ?? ""}` || String(error.message),
      );
      expect(tsc).toBe("");
    },
    2 * MINUTES,
  );

  it.each(["sqlite", "postgres", "memory"] as const)(
    "POST /register, /login - 200 with tokens, the wrong password 401 INVALID_CREDENTIALS, on %s",
    async (database) => {
      const created = database === "postgres" ? await postgresDatabase(postgres.url) : null;
      const url = {
        sqlite: `sqlite:${join(dir, "auth.db")}`,
        postgres: created?.url ?? "",
        memory: "",
      }[database];
      const server = await startServer(node, dir, { DATABASE_URL: url });
      try {
        const account = { email: `ada-${database}@example.test`, password: "correct horse battery staple" };
        const registered = await post(server.origin, "/register", account);
        expect(registered.status, server.output()).toBe(200);
        const login = await post(server.origin, "/login", account);
        expect(login.status, server.output()).toBe(200);
        expect(login.body.accessToken).toEqual(expect.any(String));
        expect(login.body.refreshToken).toEqual(expect.any(String));
        const me = await fetch(`${server.origin}/api/auth/me`, {
          headers: { authorization: `Bearer ${login.body.accessToken}` },
        });
        expect(me.status).toBe(200);
        expect(((await me.json()) as { email: string }).email).toBe(account.email);
        const wrong = await post(server.origin, "/login", {
          ...account,
          password: "not the password at all",
        });
        expect(wrong.status).toBe(401);
        expect(wrong.body.code).toBe("INVALID_CREDENTIALS");
      } finally {
        await server.stop();
        await created?.drop();
      }
    },
    2 * MINUTES,
  );
});
