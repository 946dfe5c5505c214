import { setTimeout as sleep } from "node:timers/promises";
import { createArgon2Hasher } from "@portcullis/core";
import { createExampleAuth, type ExampleAuth, readConfig } from "example-shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  canStartPostgres,
  postgresClient,
  startPostgresServer,
} from "../../../packages/store-sql/src/test-databases.js";
import { startExample } from "./test-servers.js";

// DATABASE_URL on a PostgreSQL server this test starts itself. Another connection holds an ACCESS
// EXCLUSIVE lock on the sessions table for 15 s while requests keep coming: PostgreSQL cancels each
// waiting statement at the 500 ms lock timeout, so every request answers within it, requests that do
// not need the table still succeed, no pool connection stays busy afterwards, and no session
// insert that answered a 500 lands once the lock is gone.
const JSON_HEADERS = { "content-type": "application/json" };
const LOCK_MS = 15_000;
/** The example's lock timeout (500 ms) plus the request's own work. */
const ANSWER_WITHIN_MS = 1_500;
const FIVE_HUNDREDS = ["DATABASE_FAILURE"];
const CREDENTIALS = JSON.stringify({ email: "ada@example.test", password: "correct horse battery staple" });

describe.skipIf(!canStartPostgres)("example: express + postgres table lock", () => {
  let server: Awaited<ReturnType<typeof startPostgresServer>>;
  let example: ExampleAuth;
  let app: Awaited<ReturnType<typeof startExample>>;
  let admin: Awaited<ReturnType<typeof postgresClient>>;
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${app.baseUrl}/api/auth${path}`, { method: "POST", headers: JSON_HEADERS, ...init });
  const count = async (table: string) =>
    Number((await admin.query(`select count(*) as n from ${table}`)).rows[0].n);

  beforeAll(async () => {
    server = await startPostgresServer();
    example = await createExampleAuth(
      readConfig({
        AUTH_SECRET: "pglock-secret-vR3kQ8zLmW2xN7bT5yJ0cH4fD9gS6aE1uP8oI3qK2wZ",
        DATABASE_URL: server.url,
        LOGIN_ALERTS: "false",
      }),
      { passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }) },
    );
    app = await startExample(example);
    admin = await postgresClient(server.url);
  }, 60_000);
  afterAll(async () => {
    await admin?.end().catch(() => {});
    await app?.close();
    example?.close();
    await server?.destroy();
  });

  it("sessions table locked 15 s - every request answers within the lock timeout, no connection stays busy, no write lands after its 500", async () => {
    expect((await call("/register", { body: CREDENTIALS })).status).toBe(200);
    const login = await call("/login", { body: CREDENTIALS });
    const { accessToken } = (await login.json()) as { accessToken: string };
    const bearer = { authorization: `Bearer ${accessToken}` };
    const sessionsBefore = await count("portcullis_sessions");

    await admin.query("begin");
    await admin.query("lock table portcullis_sessions in access exclusive mode");
    const lockedUntil = Date.now() + LOCK_MS;
    const timed = async (name: string, path: string, init: RequestInit) => {
      const started = Date.now();
      const response = await call(path, init);
      return {
        name,
        ms: Date.now() - started,
        status: response.status,
        code: response.headers.get("auth-error-code"),
      };
    };
    const pending: Promise<Awaited<ReturnType<typeof timed>>>[] = [];
    for (let wave = 0; Date.now() < lockedUntil - ANSWER_WITHIN_MS; wave++) {
      pending.push(
        timed("login", "/login", { body: CREDENTIALS }),
        timed("me", "/me", { method: "GET", headers: bearer }),
        timed("reset", "/password/reset-request", {
          body: JSON.stringify({ email: `nobody-${wave}@example.test` }),
        }),
      );
      await sleep(1_000);
    }
    const results = await Promise.all(pending);
    const stillLocked = Date.now() < lockedUntil;
    await sleep(Math.max(0, lockedUntil - Date.now()));
    await admin.query("commit");

    for (const name of ["login", "me", "reset"]) {
      const times = results.filter((r) => r.name === name).map((r) => r.ms);
      const statuses = [...new Set(results.filter((r) => r.name === name).map((r) => r.status))];
      console.info(`table locked: ${name}`, {
        count: times.length,
        statuses,
        minMs: Math.min(...times),
        maxMs: Math.max(...times),
      });
    }
    expect(stillLocked).toBe(true);
    expect(results.length).toBeGreaterThanOrEqual(30);
    for (const result of results) expect(result.ms, result.name).toBeLessThan(ANSWER_WITHIN_MS);
    for (const result of results.filter((r) => r.name === "login")) {
      expect(result.status, result.name).toBe(500);
      expect(FIVE_HUNDREDS).toContain(result.code);
    }
    // The reset request reads users and writes tokens and cooldowns, and /me reads the access-token
    // allowlist (its own table): other tables keep working.
    for (const result of results.filter((r) => r.name !== "login"))
      expect(result.status, result.name).toBe(200);

    // After the lock: none of the app's connections is still running a statement...
    const busy = await admin.query(
      "select count(*) as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and state <> 'idle'",
    );
    expect(Number(busy.rows[0].n)).toBe(0);
    // ...and no login that answered 500 left a session behind.
    await sleep(500);
    expect(await count("portcullis_sessions")).toBe(sessionsBefore);

    // The pool serves at once: ten concurrent reads, then a login that does land.
    const started = Date.now();
    const reads = await Promise.all(
      Array.from({ length: 10 }, () => call("/me", { method: "GET", headers: bearer })),
    );
    expect(reads.map((response) => response.status)).toEqual(Array(10).fill(200));
    expect(Date.now() - started).toBeLessThan(1_000);
    expect((await call("/login", { body: CREDENTIALS })).status).toBe(200);
    expect(await count("portcullis_sessions")).toBe(sessionsBefore + 1);
  }, 60_000);
});
