import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createArgon2Hasher } from "@portcullis/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readConfig } from "./config.js";
import { createExampleAuth, type ExampleAuth } from "./setup.js";

export interface ExampleSuiteOptions {
  name: string;
  /** Starts the example's app in-process on 127.0.0.1 with a free port. */
  start(example: ExampleAuth): Promise<{ baseUrl: string; close(): Promise<void> }>;
  /** The built entry (`dist/server.js`), started as its own process by the last test. */
  serverEntry: string;
  /** Extra environment for the app and the built server, e.g. `DATABASE_URL` (a function: read when the suite starts). */
  env?: () => Record<string, string>;
}

const SEED = [
  { email: "ada@example.test", password: "correct horse battery staple", name: "Ada", emailVerified: true },
  { email: "grace@example.test", identityProviders: ["github"] },
];

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** What both example servers must do, checked the same way for each. */
export function runExampleSuite(options: ExampleSuiteOptions): void {
  describe(`example: ${options.name}`, () => {
    let seedFile: string;
    let example: ExampleAuth;
    let server: { baseUrl: string; close(): Promise<void> };

    beforeAll(async () => {
      seedFile = join(await mkdtemp(join(tmpdir(), "portcullis-seed-")), "seed.json");
      await writeFile(seedFile, JSON.stringify(SEED));
      const config = readConfig({
        SEED_FILE: seedFile,
        AUTH_SECRET: "example-suite-secret-Yksyq5mdQI5Y6ZiHw75wji4SovKgMvgDOJIchAW0JjM",
        APP_ORIGIN: "http://localhost:3000",
        ...options.env?.(),
      });
      example = await createExampleAuth(config, {
        passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
      });
      server = await options.start(example);
    });
    afterAll(async () => {
      await server?.close();
      example?.close();
    });

    it("ui - serves the page, its script and its styles", async () => {
      const page = await fetch(`${server.baseUrl}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/text\/html/);
      expect(await page.text()).toContain('<form id="login"');
      const qr = await fetch(`${server.baseUrl}/ui/qr`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ text: "otpauth://totp/Example:ada?secret=JBSWY3DPEHPK3PXP" }),
      });
      expect(qr.headers.get("content-type")).toMatch(/image\/svg\+xml/);
      expect(await qr.text()).toContain("<svg");
      expect((await fetch(`${server.baseUrl}/app.js`)).headers.get("content-type")).toMatch(/javascript/);
      expect((await fetch(`${server.baseUrl}/style.css`)).status).toBe(200);
      const icon = await fetch(`${server.baseUrl}/favicon.ico`);
      expect(icon.status).toBe(200);
      expect(icon.headers.get("content-type")).toMatch(/image\/svg\+xml/);
    });

    it("api reference - GET /docs/api loads the local Scalar script on the example's OpenAPI document, no other host", async () => {
      const page = await fetch(`${server.baseUrl}/docs/api`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/text\/html/);
      const html = await page.text();
      expect(html).toContain('<script src="/docs/api/scalar.js"></script>');
      expect(html).toContain('"url":"/api/auth/openapi.json"');
      expect(html).toContain('"withDefaultFonts":false');
      // Nothing from the internet: no URL with a scheme (nor a protocol-relative one) in the page.
      expect(html).not.toMatch(/https?:|["'(]\/\//);
      const script = await fetch(`${server.baseUrl}/docs/api/scalar.js`);
      expect(script.status).toBe(200);
      expect(script.headers.get("content-type")).toMatch(/javascript/);
      expect(await script.text()).toContain("createApiReference");
      const spec = await fetch(`${server.baseUrl}/api/auth/openapi.json`);
      expect(spec.status).toBe(200);
      expect(((await spec.json()) as { openapi: string }).openapi).toBe("3.1.0");
    });

    it("seed - a seeded user logs in and reaches the protected host route; without a token it is 401", async () => {
      const denied = await fetch(`${server.baseUrl}/api/hello`);
      expect(denied.status).toBe(401);
      expect(denied.headers.get("auth-error-code")).toBe("AUTHENTICATION_REQUIRED");
      const login = await fetch(`${server.baseUrl}/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "ADA@example.test", password: "correct horse battery staple" }),
      });
      expect(login.status).toBe(200);
      const { accessToken, user } = (await login.json()) as {
        accessToken: string;
        user: { id: string; emailVerified: boolean };
      };
      expect(user.emailVerified).toBe(true);
      const hello = await fetch(`${server.baseUrl}/api/hello`, {
        headers: { authorization: `Bearer ${accessToken}` },
      });
      expect(await hello.json()).toMatchObject({ message: `Hello, user ${user.id}` });
    });

    it("api keys - a user's key reaches /api/hello; an organization's key with project:read reads projects, may not write; deleted, 401", async () => {
      const call = async (
        path: string,
        init: { method?: string; token?: string; step?: string; body?: unknown },
      ) => {
        const headers: Record<string, string> =
          init.body === undefined ? {} : { "content-type": "application/json" };
        if (init.token) headers.authorization = `Bearer ${init.token}`;
        if (init.step) headers["x-step-up-token"] = init.step;
        const response = await fetch(`${server.baseUrl}${path}`, {
          method: init.method ?? "GET",
          headers,
          ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      };
      const password = "correct horse battery staple";
      const login = await call("/api/auth/login", {
        method: "POST",
        body: { email: "ada@example.test", password },
      });
      const token = login.body.accessToken as string;
      const userId = (login.body.user as { id: string }).id;
      const stepUp = await call("/api/auth/step-up", { method: "POST", token, body: { password } });
      const step = stepUp.body.stepUpToken as string;
      const created = await call("/api/auth/api-keys", { method: "POST", token, step, body: { name: "CI" } });
      expect(created.status).toBe(201);
      const userKey = created.body.key as string;
      const hello = await fetch(`${server.baseUrl}/api/hello`, { headers: { "x-api-key": userKey } });
      expect(hello.status).toBe(200);
      expect(await hello.json()).toMatchObject({ message: `Hello, user ${userId}` });

      const org = await call("/api/auth/organizations", {
        method: "POST",
        token,
        body: { name: `Keys ${options.name}` },
      });
      const organizationId = (org.body.organization as { id: string }).id;
      const orgKey = await call("/api/auth/api-keys", {
        method: "POST",
        token,
        step,
        body: { name: "Deploy", organizationId, permissions: ["project:read"] },
      });
      expect(orgKey.status).toBe(201);
      const read = await call("/api/projects", { token: orgKey.body.key as string });
      expect(read).toEqual({ status: 200, body: { organizationId } });
      const write = await call("/api/projects", { method: "POST", token: orgKey.body.key as string });
      expect([write.status, write.body.code]).toEqual([403, "PERMISSION_DENIED"]);

      const id = (created.body.apiKey as { id: string }).id;
      expect((await call(`/api/auth/api-keys/${id}`, { method: "DELETE", token })).status).toBe(200);
      const after = await fetch(`${server.baseUrl}/api/hello`, { headers: { "x-api-key": userKey } });
      expect(after.status).toBe(401);
      expect(after.headers.get("auth-error-code")).toBe("API_KEY_INVALID");
    });

    it("outbox - lists sent emails newest first as JSON and shows each as a page", async () => {
      await fetch(`${server.baseUrl}/api/auth/password/reset-request`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "nobody-here@example.test" }),
      });
      await fetch(`${server.baseUrl}/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "grace@example.test", password: "anything at all" }),
      });
      await expect
        .poll(
          async () =>
            ((await (await fetch(`${server.baseUrl}/dev/outbox`)).json()) as { emails: unknown[] }).emails
              .length,
        )
        .toBeGreaterThanOrEqual(2);
      const { emails } = (await (await fetch(`${server.baseUrl}/dev/outbox`)).json()) as {
        emails: { id: string; kind: string; url: string }[];
      };
      expect(emails[0]?.kind).toBe("identity-provider-information");
      expect(Number(emails[0]?.id)).toBeGreaterThan(Number(emails[1]?.id));
      const page = await fetch(`${server.baseUrl}${emails[0]?.url}`);
      expect(page.headers.get("content-type")).toMatch(/text\/html/);
      expect(await page.text()).toContain("http://localhost:3000/forgot-password");
      expect((await fetch(`${server.baseUrl}/dev/outbox/999999`)).status).toBe(404);
      const browser = await fetch(`${server.baseUrl}/dev/outbox`, {
        headers: { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" },
      });
      expect(browser.headers.get("content-type")).toMatch(/text\/html/);
      const list = await browser.text();
      expect(list).toContain(`<a href="${emails[0]?.url}">`);
      expect(list.indexOf(`href="${emails[0]?.url}"`)).toBeLessThan(list.indexOf(`href="${emails[1]?.url}"`));
    });

    it("email sign-in - the emailed link's page signs nobody in on GET; its button's POST signs in", async () => {
      const requested = await fetch(`${server.baseUrl}/api/auth/email-sign-in/request`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "ada@example.test" }),
      });
      expect(requested.status).toBe(200);
      const email = example.outbox?.list().find((entry) => entry.kind === "email-sign-in");
      const href = /href="([^"]+\?token=[^"]+)"/.exec(email?.html ?? "")?.[1]?.replace(/&amp;/g, "&") ?? "";
      const link = new URL(href);
      expect(`${link.origin}${link.pathname}`).toBe("http://localhost:3000/sign-in/email");
      expect(email?.text).toMatch(/^\d{6}$/m);

      // What a mail scanner does: open the link. A page with a button; no cookie, nobody signed in.
      const page = await fetch(`${server.baseUrl}${link.pathname}${link.search}`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/text\/html/);
      expect(page.headers.getSetCookie()).toEqual([]);
      const html = await page.text();
      expect(html).toContain('<meta name="referrer" content="no-referrer">');
      const form = /<form id="email-sign-in" data-endpoint="([^"]+)"><button type="submit"[^>]*>/.exec(html);
      const endpoint = form?.[1] ?? "";
      expect(endpoint).toBe("/api/auth/email-sign-in");
      const scriptPath = /<script src="([^"]+)"><\/script>/.exec(html)?.[1] ?? "";
      const script = await (await fetch(`${server.baseUrl}${scriptPath}`)).text();
      expect(script).toContain("JSON.stringify({ token })");
      expect(script).toContain('method: "POST"');

      // The button's POST, as the script sends it, signs in; the token works once.
      const post = () =>
        fetch(`${server.baseUrl}${endpoint}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ token: link.searchParams.get("token") }),
        });
      const signedIn = await post();
      expect(signedIn.status).toBe(200);
      const access = signedIn.headers.getSetCookie().find((cookie) => cookie.startsWith("access_token=ey"));
      expect(access).toBeDefined();
      const me = await fetch(`${server.baseUrl}/api/auth/me`, {
        headers: { cookie: (access ?? "").split(";")[0] ?? "" },
      });
      expect(await me.json()).toMatchObject({ email: "ada@example.test" });
      expect((await post()).headers.get("auth-error-code")).toBe("EMAIL_SIGN_IN_INVALID");
    });

    it.skipIf(!existsSync(options.serverEntry))(
      "start - the built server answers on PORT (within 30 s, for a loaded machine)",
      async () => {
        const port = await freePort();
        const child = spawn(process.execPath, [options.serverEntry], {
          env: {
            ...process.env,
            PORT: String(port),
            HOST: "127.0.0.1",
            NODE_ENV: "development",
            SEED_FILE: seedFile,
            ...options.env?.(),
          },
          stdio: ["ignore", "pipe", "pipe"],
        });
        try {
          const started = Date.now();
          let status = 0;
          while (Date.now() - started < 30_000 && status !== 200) {
            status = await fetch(`http://127.0.0.1:${port}/`).then(
              (r) => r.status,
              () => 0,
            );
            if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
          }
          expect(status).toBe(200);
        } finally {
          child.kill("SIGTERM");
        }
      },
      40_000,
    );
  });
}
