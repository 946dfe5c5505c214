import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { referenceTotp } from "@portcullis/testing";
import { createExampleAuth, type ExampleAuth, readConfig } from "example-shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startExample } from "./test-servers.js";

// Coming over from another system as a user does it: `portcullis import` (the built command of
// @portcullis/import) moves a JSON-lines export into a SQLite file, then the example, started on that
// file with the AUTH_SECRET the import sealed the TOTP secrets with, signs everyone in over HTTP with
// the old password, the old authenticator app's code and an old recovery code.
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = join(ROOT, "packages/import/dist/cli.js");
const SECRET = "imported-accounts-example-secret-R7tK2mQ9xW4vB8nL3pZ6cY1s";
const TOTP_SECRET = "KRUGKIDROVUWG2ZAMJZG653OEBTG66BAJJ2W24DT";
const PASSWORD = "correct horse battery staple";
/** bcryptjs's hash of PASSWORD at cost 4, as an old system stored it. */
const BCRYPT = "$2b$04$Gr8vaGQ2iTIM1SyDUpWHyOnJ4J3ATKV.MuiDEuV0FWWvePefVdXky";

const lines = () => [
  JSON.stringify({
    id: 1,
    email: "Ada@Example.test",
    emailVerified: true,
    passwordHash: BCRYPT,
  }),
  JSON.stringify({
    id: 2,
    email: "grace@example.test",
    emailVerified: true,
    passwordHash: BCRYPT,
    totpSecret: TOTP_SECRET,
    recoveryCodes: ["q7w8e-9r2t3", "y4u6i-7o8p9"],
  }),
];

describe("accounts imported by `portcullis import` sign in to the example", () => {
  let dir = "";
  let example: ExampleAuth | undefined;
  let server: { baseUrl: string; close(): Promise<void> } | undefined;

  beforeAll(async () => {
    await run(process.execPath, ["scripts/build-changed.mjs", "packages/import"], { cwd: ROOT });
    dir = await mkdtemp(join(tmpdir(), "portcullis-imported-accounts-"));
    await writeFile(join(dir, "users.jsonl"), lines().join("\n"));
    const database = `sqlite:${join(dir, "app.db")}`;
    const args = ["import", "--from", "jsonl", "--source", join(dir, "users.jsonl"), "--target", database];
    const imported = await run(process.execPath, [CLI, ...args], {
      env: { ...process.env, AUTH_SECRET: SECRET, AUTH_TWO_FACTOR_KEY: "" },
    });
    expect(imported.stdout).toContain("imported 2 accounts");
    example = await createExampleAuth(
      readConfig({
        DATABASE_URL: database,
        REDIS_URL: "",
        AUTH_SECRET: SECRET,
        APP_ORIGIN: "http://localhost:3000",
      }),
    );
    server = await startExample(example);
  }, 300_000);
  afterAll(async () => {
    await server?.close();
    example?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${server?.baseUrl}/api/auth${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const passwordStep = async (email: string, password: string) => {
    const login = await post("/login", { email, password });
    expect(login.status).toBe(200);
    return login.body;
  };

  it("import - the old password signs in, and the account's hash becomes argon2id", async () => {
    const login = await passwordStep("ada@example.test", PASSWORD);
    expect(login).toMatchObject({ twoFactorRequired: false, user: { email: "ada@example.test" } });
    const ada = await example?.stores.users.findByEmail("ada@example.test");
    expect(ada?.passwordHash).toMatch(/^\$argon2id\$/);
    expect((await post("/login", { email: "ada@example.test", password: "wrong" })).status).toBe(401);
  });

  it("import - the old TOTP app's code and an old recovery code pass the second factor", async () => {
    const first = await passwordStep("grace@example.test", PASSWORD);
    expect(first).toMatchObject({ twoFactorRequired: true, twoFactorMethods: ["totp"] });
    const token = { "x-two-factor-authentication-token": String(first.twoFactorAuthenticationToken) };
    const done = await post("/2fa/login", { code: referenceTotp(TOTP_SECRET, Date.now()) }, token);
    expect(done).toMatchObject({ status: 200, body: { twoFactorRequired: false } });
    const second = await passwordStep("grace@example.test", PASSWORD);
    const recovered = await post(
      "/2fa/recover",
      { code: "Q7W8E-9R2T3" },
      { "x-two-factor-authentication-token": String(second.twoFactorAuthenticationToken) },
    );
    expect(recovered).toMatchObject({ status: 200, body: { twoFactorRequired: false } });
  });
});
