import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "@portcullis/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteKeys, testPrefix, useRedis } from "../../../packages/store-redis/src/test-redis.js";
import { postgresDatabase, usePostgres } from "../../../packages/store-sql/src/test-databases.js";

// The built example (dist/server.js) started under Bun and under Deno, both installed from the npm
// registry as this example's dev dependencies, then driven over HTTP on 127.0.0.1. Run `pnpm -r
// build` first. Skipped without the build or the binaries, except in CI (CI=true), where they fail.
const SERVER = fileURLToPath(new URL("../dist/server.js", import.meta.url));
const NATIVE = fileURLToPath(new URL("../dist/native-serve.js", import.meta.url));
const bin = (name: string) => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));
const RUNTIMES = [
  { name: "bun", label: "Bun", command: bin("bun"), args: (entry: string) => [entry] },
  {
    name: "deno",
    label: "Deno",
    command: bin("deno"),
    args: (entry: string) => ["run", "--allow-all", entry],
  },
];
const CI = process.env.CI === "true";
const PASSWORD = "correct horse battery staple";

/** Starts the example under `runtime` on a free port; resolves once it says where it listens. */
async function start(
  runtime: (typeof RUNTIMES)[number],
  env: Record<string, string>,
  entry = SERVER,
  banner = "Portcullis Hono example on",
) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(runtime.command, runtime.args(entry), {
    env: {
      ...process.env,
      NODE_ENV: "development",
      HOST: "127.0.0.1",
      PORT: String(port),
      AUTH_SECRET: randomBytes(48).toString("base64url"),
      LOGIN_ALERTS: "false",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group: `.bin/deno` and `.bin/bun` are shell shims that start the runtime as
    // their child, so a signal to the shim alone left the server running after the test.
    detached: true,
  });
  /** Signals the shim and the runtime it started (the whole group). */
  const signal = (name: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, name);
    } catch {
      // The group is gone already.
    }
  };
  const output: string[] = [];
  child.stdout?.on("data", (chunk) => output.push(String(chunk)));
  child.stderr?.on("data", (chunk) => output.push(String(chunk)));
  const started = Date.now();
  while (!output.join("").includes(`${banner} ${base}`)) {
    if (child.exitCode !== null || Date.now() - started > 20_000) {
      signal("SIGKILL");
      throw new Error(`${runtime.name} did not start the example:\n${output.join("")}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  /** Whether something still accepts connections on the server's port. */
  const listening = () =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
  const stop = async () => {
    const exited = child.exitCode === null ? new Promise((resolve) => child.once("exit", resolve)) : null;
    signal("SIGTERM");
    if (exited) await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    // The group, not only the shim: the runtime it started may outlive it.
    signal("SIGKILL");
    for (let waited = 0; (await listening()) && waited < 2_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (await listening()) throw new Error(`${runtime.name} still answers on ${base} after its stop`);
  };
  return { base, output, stop };
}

/** A JSON call: status, `auth-error-code`, body. */
async function call(
  base: string,
  method: string,
  path: string,
  init: { body?: unknown; bearer?: string } = {},
) {
  const headers: Record<string, string> = {};
  if (init.body !== undefined) headers["content-type"] = "application/json";
  if (init.bearer) headers.authorization = `Bearer ${init.bearer}`;
  const reply = await fetch(`${base}${path}`, {
    method,
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await reply.text();
  return {
    status: reply.status,
    code: reply.headers.get("auth-error-code"),
    retryAfter: reply.headers.get("retry-after"),
    cookies: reply.headers.getSetCookie().map((cookie) => cookie.split("=")[0]),
    body: (text.startsWith("{") ? JSON.parse(text) : text) as Record<string, unknown>,
  };
}

/** register, login, /me, the host route, the sessions list, refresh, logout, a 429, the outbox. */
async function smoke(base: string) {
  const email = `runtime-${randomBytes(4).toString("hex")}@example.test`;
  expect((await fetch(`${base}/`)).status).toBe(200);
  expect(
    (await call(base, "POST", "/api/auth/register", { body: { email, password: PASSWORD } })).body,
  ).toEqual({
    success: true,
  });
  const login = await call(base, "POST", "/api/auth/login", { body: { email, password: PASSWORD } });
  expect(login.status).toBe(200);
  expect(login.cookies).toEqual([
    "access_token",
    "refresh_token",
    "two_factor_authentication_token",
    "device_token",
  ]);
  const { accessToken, refreshToken } = login.body as unknown as {
    accessToken: string;
    refreshToken: string;
  };
  expect((await call(base, "GET", "/api/auth/me", { bearer: accessToken })).body).toMatchObject({ email });
  expect((await call(base, "GET", "/api/hello", { bearer: accessToken })).status).toBe(200);
  expect((await call(base, "GET", "/api/hello")).code).toBe("AUTHENTICATION_REQUIRED");
  const sessions = await call(base, "GET", "/api/auth/sessions", { bearer: accessToken });
  expect(sessions.body.sessions).toMatchObject([{ ip: "127.0.0.1", current: true }]);
  const refreshed = await call(base, "POST", "/api/auth/refresh", { bearer: refreshToken });
  expect(refreshed.status).toBe(200);
  const renewed = (refreshed.body as unknown as { accessToken: string }).accessToken;
  expect((await call(base, "POST", "/api/auth/logout", { bearer: renewed })).status).toBe(200);
  expect((await call(base, "GET", "/api/auth/me", { bearer: renewed })).code).toBe("ACCESS_TOKEN_INVALID");
  const first = await call(base, "POST", "/api/auth/password/reset-request", { body: { email } });
  expect(first.status).toBe(200);
  const second = await call(base, "POST", "/api/auth/password/reset-request", { body: { email } });
  expect([second.status, second.code, second.retryAfter]).toEqual([429, "EMAIL_COOLDOWN_ACTIVE", "60"]);
  const outbox = await call(base, "GET", "/dev/outbox");
  expect((outbox.body as unknown as { emails: { to: string; kind: string }[] }).emails[0]).toMatchObject({
    to: email,
    kind: "password-reset",
  });
}

describe.each(RUNTIMES)("example-hono on $name", (runtime) => {
  const ready = existsSync(SERVER) && existsSync(NATIVE) && existsSync(runtime.command);
  if (!ready && CI) throw new Error(`${runtime.name}: the build or ${runtime.command} is missing`);
  let dir: string;
  let postgres: Awaited<ReturnType<typeof usePostgres>> | undefined;
  let redis: Awaited<ReturnType<typeof useRedis>> | undefined;
  let database: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  const keyPrefix = testPrefix();
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), `portcullis-${runtime.name}-`));
  });
  afterAll(async () => {
    await database?.drop();
    if (redis) {
      const client = new Redis(redis.url);
      await deleteKeys(client, keyPrefix);
      client.disconnect();
    }
    await Promise.all([postgres?.stop(), redis?.stop()]);
    await rm(dir, { recursive: true, force: true });
  });

  const run = async (env: Record<string, string>) => {
    const server = await start(runtime, env);
    try {
      // The example says which runtime runs it (process.versions.bun / .deno).
      expect(server.output.join("")).toContain(`Runtime: ${runtime.label} `);
      await smoke(server.base);
    } catch (error) {
      throw new Error(`${runtime.name} output:\n${server.output.join("")}`, { cause: error });
    } finally {
      await server.stop();
    }
  };

  it.skipIf(!ready)(
    `${runtime.name} - memory stores: register, login, /me, refresh, logout, a 429`,
    () => run({}),
    60_000,
  );

  it.skipIf(!ready)(
    `${runtime.name} - SQLite through libsql: the same smoke`,
    () => run({ DATABASE_URL: `sqlite:${join(dir, "example.db")}` }),
    60_000,
  );

  it.skipIf(!ready)(
    `${runtime.name} - PostgreSQL through pg and Redis through ioredis: the same smoke`,
    async () => {
      [postgres, redis] = await Promise.all([usePostgres(), useRedis()]);
      database = await postgresDatabase(postgres.url);
      await run({ DATABASE_URL: database.url, REDIS_URL: redis.url, REDIS_KEY_PREFIX: keyPrefix });
    },
    90_000,
  );

  it.skipIf(!ready)(
    `${runtime.name} - the handler given as it is to ${runtime.label}.serve: the client IP from the runtime's second argument`,
    async () => {
      const server = await start(runtime, {}, NATIVE, "Native server on");
      try {
        const email = "native@example.test";
        await call(server.base, "POST", "/api/auth/register", { body: { email, password: PASSWORD } });
        const login = await call(server.base, "POST", "/api/auth/login", {
          body: { email, password: PASSWORD },
        });
        const { accessToken } = login.body as unknown as { accessToken: string };
        const sessions = await call(server.base, "GET", "/api/auth/sessions", { bearer: accessToken });
        expect(sessions.body.sessions).toMatchObject([{ ip: "127.0.0.1", current: true }]);
        expect((await fetch(`${server.base}/elsewhere`)).status).toBe(404);
      } catch (error) {
        throw new Error(`${runtime.name} output:\n${server.output.join("")}`, { cause: error });
      } finally {
        await server.stop();
      }
    },
    60_000,
  );
});
