import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, postgresDatabase, usePostgres } from "../../../packages/store-sql/src/test-databases.js";

const ENTRIES = ["express", "fastify"].map(
  (name) => new URL(`../../${name}/dist/server.js`, import.meta.url).pathname,
);
const built = ENTRIES.every((entry) => existsSync(entry));
const JSON_HEADERS = { "content-type": "application/json" };

describe("two example instances sharing one PostgreSQL, without Redis", () => {
  let server: Awaited<ReturnType<typeof usePostgres>>;
  let database: Awaited<ReturnType<typeof postgresDatabase>>;
  const children: ChildProcess[] = [];
  const bases: string[] = [];

  beforeAll(async () => {
    if (!built) return;
    server = await usePostgres();
    database = await postgresDatabase(server.url);
    const seedFile = join(await mkdtemp(join(tmpdir(), "portcullis-multi-pg-")), "seed.json");
    await writeFile(
      seedFile,
      JSON.stringify([{ email: "ada@example.test", password: "correct horse battery staple" }]),
    );
    for (const entry of ENTRIES) {
      const port = await freePort();
      const child = spawn(process.execPath, [entry], {
        env: {
          ...process.env,
          PORT: String(port),
          HOST: "127.0.0.1",
          NODE_ENV: "development",
          AUTH_SECRET: "multi-instance-secret-0123456789abcdef",
          DATABASE_URL: database.url,
          REDIS_URL: "",
          SEED_FILE: seedFile,
          LOGIN_ALERTS: "false",
        },
        stdio: ["ignore", "ignore", "inherit"],
      });
      children.push(child);
      bases.push(`http://127.0.0.1:${port}`);
    }
    for (const base of bases) {
      const deadline = Date.now() + 15_000;
      while (
        (await fetch(`${base}/`).then(
          (r) => r.status,
          () => 0,
        )) !== 200
      ) {
        if (Date.now() > deadline) throw new Error(`${base} did not start`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }, 30_000);

  afterAll(async () => {
    await Promise.all(
      children.map((child) => new Promise((resolve) => child.once("exit", resolve).kill("SIGTERM"))),
    );
    await database?.drop();
    await server?.stop();
  });

  it.skipIf(!built)(
    "reset - 50 concurrent requests for one address, spread over both instances, send exactly one email",
    async () => {
      const statuses = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          fetch(`${bases[i % 2]}/api/auth/password/reset-request`, {
            method: "POST",
            headers: JSON_HEADERS,
            body: JSON.stringify({ email: i % 3 === 0 ? " ADA@example.test" : "ada@example.test" }),
          }).then((response) => response.status),
        ),
      );
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      expect(statuses.filter((status) => status === 429)).toHaveLength(49);
      const outboxes = await Promise.all(
        bases.map((base) =>
          fetch(`${base}/dev/outbox`).then((r) => r.json() as Promise<{ emails: { kind: string }[] }>),
        ),
      );
      expect(
        outboxes.flatMap((outbox) => outbox.emails).filter((email) => email.kind === "password-reset"),
      ).toHaveLength(1);
    },
  );

  it.skipIf(!built)(
    "logout - on one instance, the access token is rejected on the other at once",
    async () => {
      const [a = "", b = ""] = bases;
      const login = await fetch(`${a}/api/auth/login`, {
        method: "POST",
        headers: JSON_HEADERS,
        body: JSON.stringify({ email: "ada@example.test", password: "correct horse battery staple" }),
      });
      const { accessToken } = (await login.json()) as { accessToken: string };
      const auth = { authorization: `Bearer ${accessToken}` };
      expect((await fetch(`${b}/api/hello`, { headers: auth })).status).toBe(200);
      expect((await fetch(`${a}/api/auth/logout`, { method: "POST", headers: auth })).status).toBe(200);
      const after = await fetch(`${b}/api/hello`, { headers: auth });
      expect(after.status).toBe(401);
      expect(after.headers.get("auth-error-code")).toBe("ACCESS_TOKEN_INVALID");
    },
  );
});
