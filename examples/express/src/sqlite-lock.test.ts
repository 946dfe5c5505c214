import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { createArgon2Hasher } from "@portcullis/core";
import { createExampleAuth, type ExampleAuth, readConfig } from "example-shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lockSqliteFile } from "../../../packages/store-sql/src/test-databases.js";
import { startExample } from "./test-servers.js";

// DATABASE_URL on a SQLite file whose write lock another process holds for 2 s while a login
// needs to write: the login waits without blocking the event loop (the example keeps serving
// requests that need no database) and succeeds once the lock is gone.
const LOCK_MS = 2_000;
const JSON_HEADERS = { "content-type": "application/json" };
const CREDENTIALS = JSON.stringify({ email: "ada@example.test", password: "correct horse battery staple" });

describe("example: express + a locked sqlite file", () => {
  let dir: string;
  let file: string;
  let example: ExampleAuth;
  let app: Awaited<ReturnType<typeof startExample>>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "portcullis-example-sqlite-lock-"));
    file = join(dir, "auth.db");
    example = await createExampleAuth(
      readConfig({
        AUTH_SECRET: "sqlitelock-secret-Q7mZp2VxK9rT4wN8bY3cH6jL1dF5gS0aE2uR9oI4kW",
        DATABASE_URL: `sqlite:${file}`,
        LOGIN_ALERTS: "false",
      }),
      { passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }) },
    );
    app = await startExample(example);
  });
  afterAll(async () => {
    await app?.close();
    example?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("login - waits for another process's write lock asynchronously: other requests answer meanwhile, the login lands after", async () => {
    const register = await fetch(`${app.baseUrl}/api/auth/register`, {
      method: "POST",
      headers: JSON_HEADERS,
      body: CREDENTIALS,
    });
    expect(register.status).toBe(200);

    const lock = await lockSqliteFile(file, LOCK_MS);
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const started = Date.now();
    const login = fetch(`${app.baseUrl}/api/auth/login`, {
      method: "POST",
      headers: JSON_HEADERS,
      body: CREDENTIALS,
    }).then((response) => ({ status: response.status, ms: Date.now() - started }));
    // A request that needs no database, every 100 ms while the login waits. Blocking the event
    // loop on the lock would hold every one of them for the lock's whole 2 s; the bounds below are
    // half of that, so a loaded machine (CI beside other work) does not fail a correct wait.
    const pages: { ms: number; loginPending: boolean }[] = [];
    let loginPending = true;
    void login.finally(() => {
      loginPending = false;
    });
    while (Date.now() - started < LOCK_MS - 200) {
      const before = Date.now();
      expect((await fetch(`${app.baseUrl}/style.css`)).status).toBe(200);
      pages.push({ ms: Date.now() - before, loginPending });
      await sleep(100);
    }
    const { status, ms } = await login;
    await lock.released;
    delay.disable();

    expect(status).toBe(200);
    expect(ms).toBeGreaterThanOrEqual(LOCK_MS - 300);
    expect(pages.filter((page) => page.loginPending).length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...pages.map((page) => page.ms))).toBeLessThan(LOCK_MS / 2);
    expect(delay.max / 1e6).toBeLessThan(LOCK_MS / 2);
  });
});
