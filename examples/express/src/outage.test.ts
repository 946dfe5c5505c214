import { createArgon2Hasher } from "@portcullis/core";
import { createExampleAuth, type ExampleAuth, readConfig } from "example-shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canStartPostgres, startPostgresServer } from "../../../packages/store-sql/src/test-databases.js";
import { startExample } from "./test-servers.js";

// DATABASE_URL on a PostgreSQL server this test starts itself (never the machine's shared one),
// stopped mid-test: the 500 codes of docs/errors.md within 1 s, and recovery without a restart.
const JSON_HEADERS = { "content-type": "application/json" };
const FIVE_HUNDREDS = [
  "DATABASE_FAILURE",
  "ACCESS_TOKEN_ALLOWLIST_READING_FAILURE",
  "EMAIL_COOLDOWN_CACHE_FAILURE",
];
const CREDENTIALS = JSON.stringify({ email: "ada@example.test", password: "correct horse battery staple" });

describe.skipIf(!canStartPostgres)("example: express + postgres outage", () => {
  let pg: Awaited<ReturnType<typeof startPostgresServer>>;
  let example: ExampleAuth;
  let app: Awaited<ReturnType<typeof startExample>>;
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${app.baseUrl}/api/auth${path}`, { method: "POST", headers: JSON_HEADERS, ...init });
  beforeAll(async () => {
    pg = await startPostgresServer();
    const env = {
      AUTH_SECRET: "outage-secret-PDmDfWDH7NSICwFw80OMKHhTjloDsL8NTb3WYqbl2mc",
      DATABASE_URL: pg.url,
      LOGIN_ALERTS: "false",
    };
    example = await createExampleAuth(readConfig(env), {
      passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    });
    app = await startExample(example);
  });
  afterAll(async () => {
    await app?.close();
    example?.close();
    await pg?.destroy();
  });

  it("database stopped - every request answers a 500 code within 1 s; back up, it works without a restart", async () => {
    expect((await call("/register", { body: CREDENTIALS })).status).toBe(200);
    const { accessToken } = (await (await call("/login", { body: CREDENTIALS })).json()) as {
      accessToken: string;
    };
    const bearer = { authorization: `Bearer ${accessToken}` };
    await pg.stop();
    for (const [path, init] of [
      ["/me", { method: "GET", headers: bearer }],
      ["/login", { body: CREDENTIALS }],
      ["/password/reset-request", { body: JSON.stringify({ email: "ada@example.test" }) }],
    ] as const) {
      const started = Date.now();
      const response = await call(path, init);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(response.status).toBe(500);
      expect(FIVE_HUNDREDS).toContain(response.headers.get("auth-error-code"));
    }
    await pg.start();
    await expect.poll(async () => (await call("/me", { method: "GET", headers: bearer })).status).toBe(200);
    expect((await call("/login", { body: CREDENTIALS })).status).toBe(200);
  });
});
