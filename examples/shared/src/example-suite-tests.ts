import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { freePort } from "@portcullis/testing";
import { expect } from "vitest";
import type { ExampleFixture, ExampleTestBody, ExampleTests } from "./example-suite-fixture.js";
import { OAUTH_PROJECTS_TESTS } from "./example-suite-oauth.js";

const PASSWORD = "correct horse battery staple";

/** A JSON request to the app, with a bearer token and a step-up token when given: its status and JSON body. */
async function call(
  f: ExampleFixture,
  path: string,
  init: { method?: string; token?: string; step?: string; body?: unknown },
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> =
    init.body === undefined ? {} : { "content-type": "application/json" };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.step) headers["x-step-up-token"] = init.step;
  const response = await f.fetch(path, {
    method: init.method ?? "GET",
    headers,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The emails in the dev outbox, newest first. */
const outboxEmails = async (f: ExampleFixture) =>
  ((await (await f.fetch("/dev/outbox")).json()) as { emails: { id: string; kind: string; url: string }[] })
    .emails;

/** The status of `GET /` on `port`, polled until 200 or 30 s have passed (0 while nothing answers). */
async function statusWithin30Seconds(port: number): Promise<number> {
  const started = Date.now();
  let status = 0;
  while (Date.now() - started < 30_000 && status !== 200) {
    status = await fetch(`http://127.0.0.1:${port}/`).then(
      (r) => r.status,
      () => 0,
    );
    if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return status;
}

/** The built server (`serverEntry`) as its own process, on `port`, seeded like the suite's app. */
async function startTest(f: ExampleFixture): Promise<void> {
  const port = await freePort();
  const child = spawn(process.execPath, [f.options.serverEntry], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      NODE_ENV: "development",
      SEED_FILE: f.seedFile,
      ...f.options.env?.(),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  try {
    expect(await statusWithin30Seconds(port)).toBe(200);
  } finally {
    child.kill("SIGTERM");
  }
}

/** The API-key test's first half: a user's key, made after a step-up, reaches /api/hello. */
async function userKeyReachesHello(f: ExampleFixture) {
  const login = await call(f, "/api/auth/login", {
    method: "POST",
    body: { email: "ada@example.test", password: PASSWORD },
  });
  const token = login.body.accessToken as string;
  const userId = (login.body.user as { id: string }).id;
  const stepUp = await call(f, "/api/auth/step-up", { method: "POST", token, body: { password: PASSWORD } });
  const step = stepUp.body.stepUpToken as string;
  const created = await call(f, "/api/auth/api-keys", { method: "POST", token, step, body: { name: "CI" } });
  expect(created.status).toBe(201);
  const userKey = created.body.key as string;
  const hello = await f.fetch("/api/hello", { headers: { "x-api-key": userKey } });
  expect(hello.status).toBe(200);
  expect(await hello.json()).toMatchObject({ message: `Hello, user ${userId}` });
  return { token, step, userKey, keyId: (created.body.apiKey as { id: string }).id };
}

/** The API-key test's second half: an organization's key with project:read reads projects, may not write. */
async function organizationKeyReadsOnly(f: ExampleFixture, token: string, step: string): Promise<void> {
  const org = await call(f, "/api/auth/organizations", {
    method: "POST",
    token,
    body: { name: `Keys ${f.options.name}` },
  });
  const organizationId = (org.body.organization as { id: string }).id;
  const orgKey = await call(f, "/api/auth/api-keys", {
    method: "POST",
    token,
    step,
    body: { name: "Deploy", organizationId, permissions: ["project:read"] },
  });
  expect(orgKey.status).toBe(201);
  const read = await call(f, "/api/projects", { token: orgKey.body.key as string });
  expect(read).toEqual({ status: 200, body: { organizationId } });
  const write = await call(f, "/api/projects", { method: "POST", token: orgKey.body.key as string });
  expect([write.status, write.body.code]).toEqual([403, "PERMISSION_DENIED"]);
}

/** The emailed sign-in link to the outbox's latest email-sign-in email, checked to open /sign-in/email. */
function emailedSignInLink(f: ExampleFixture): URL {
  const email = f.example.outbox?.list().find((entry) => entry.kind === "email-sign-in");
  const href = /href="([^"]+\?token=[^"]+)"/.exec(email?.html ?? "")?.[1]?.replace(/&amp;/g, "&") ?? "";
  const link = new URL(href);
  expect(`${link.origin}${link.pathname}`).toBe("http://localhost:3000/sign-in/email");
  expect(email?.text).toMatch(/^\d{6}$/m);
  return link;
}

/**
 * What a mail scanner does: open the link. A page with a button; no cookie, nobody signed in.
 * Returns the endpoint the page's button posts to.
 */
async function openSignInLinkAsScanner(f: ExampleFixture, link: URL): Promise<string> {
  const page = await f.fetch(`${link.pathname}${link.search}`);
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toMatch(/text\/html/);
  expect(page.headers.getSetCookie()).toEqual([]);
  const html = await page.text();
  expect(html).toContain('<meta name="referrer" content="no-referrer">');
  const form = /<form id="email-sign-in" data-endpoint="([^"]+)"><button type="submit"[^>]*>/.exec(html);
  const endpoint = form?.[1] ?? "";
  expect(endpoint).toBe("/api/auth/email-sign-in");
  const scriptPath = /<script src="([^"]+)"><\/script>/.exec(html)?.[1] ?? "";
  const script = await (await f.fetch(scriptPath)).text();
  expect(script).toContain("JSON.stringify({ token })");
  expect(script).toContain('method: "POST"');
  return endpoint;
}

/** What both example servers must do, each a named test run against the suite's app, in this order. */
export const EXAMPLE_TESTS: ExampleTests = {
  "ui - serves the page, its script and its styles": async (f) => {
    const page = await f.fetch("/");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    expect(await page.text()).toContain('<form id="login"');
    const qr = await f.postJson("/ui/qr", { text: "otpauth://totp/Example:ada?secret=JBSWY3DPEHPK3PXP" });
    expect(qr.headers.get("content-type")).toMatch(/image\/svg\+xml/);
    expect(await qr.text()).toContain("<svg");
    expect((await f.fetch("/app.js")).headers.get("content-type")).toMatch(/javascript/);
    expect((await f.fetch("/style.css")).status).toBe(200);
    const icon = await f.fetch("/favicon.ico");
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toMatch(/image\/svg\+xml/);
  },

  "api reference - GET /docs/api loads the local Scalar script on the example's OpenAPI document, no other host":
    async (f) => {
      const page = await f.fetch("/docs/api");
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/text\/html/);
      const html = await page.text();
      expect(html).toContain('<script src="/docs/api/scalar.js"></script>');
      expect(html).toContain('"url":"/api/auth/openapi.json"');
      expect(html).toContain('"withDefaultFonts":false');
      // Nothing from the internet: no URL with a scheme (nor a protocol-relative one) in the page.
      expect(html).not.toMatch(/https?:|["'(]\/\//);
      const script = await f.fetch("/docs/api/scalar.js");
      expect(script.status).toBe(200);
      expect(script.headers.get("content-type")).toMatch(/javascript/);
      expect(await script.text()).toContain("createApiReference");
      const spec = await f.fetch("/api/auth/openapi.json");
      expect(spec.status).toBe(200);
      expect(((await spec.json()) as { openapi: string }).openapi).toBe("3.1.0");
    },

  "seed - a seeded user logs in and reaches the protected host route; without a token it is 401": async (
    f,
  ) => {
    const denied = await f.fetch("/api/hello");
    expect(denied.status).toBe(401);
    expect(denied.headers.get("auth-error-code")).toBe("AUTHENTICATION_REQUIRED");
    const login = await f.postJson("/api/auth/login", { email: "ADA@example.test", password: PASSWORD });
    expect(login.status).toBe(200);
    const { accessToken, user } = (await login.json()) as {
      accessToken: string;
      user: { id: string; emailVerified: boolean };
    };
    expect(user.emailVerified).toBe(true);
    const hello = await f.fetch("/api/hello", { headers: { authorization: `Bearer ${accessToken}` } });
    expect(await hello.json()).toMatchObject({ message: `Hello, user ${user.id}` });
  },

  "api keys - a user's key reaches /api/hello; an organization's key with project:read reads projects, may not write; deleted, 401":
    async (f) => {
      const { token, step, userKey, keyId } = await userKeyReachesHello(f);
      await organizationKeyReadsOnly(f, token, step);
      expect((await call(f, `/api/auth/api-keys/${keyId}`, { method: "DELETE", token })).status).toBe(200);
      const after = await f.fetch("/api/hello", { headers: { "x-api-key": userKey } });
      expect(after.status).toBe(401);
      expect(after.headers.get("auth-error-code")).toBe("API_KEY_INVALID");
    },

  "outbox - lists sent emails newest first as JSON and shows each as a page": async (f) => {
    // Either email may be sent after its request has been answered, so each is awaited before
    // the next request: the order of the two sends is then the order of the requests.
    const newestId = async () => Number((await outboxEmails(f))[0]?.id ?? 0);
    const before = await newestId();
    await f.postJson("/api/auth/password/reset-request", { email: "nobody-here@example.test" });
    await expect.poll(newestId).toBeGreaterThan(before);
    const reset = await newestId();
    await f.postJson("/api/auth/login", { email: "grace@example.test", password: "anything at all" });
    await expect.poll(newestId).toBeGreaterThan(reset);
    const emails = await outboxEmails(f);
    expect(emails[1]?.kind).toBe("no-principal-information");
    expect(emails[0]?.kind).toBe("identity-provider-information");
    expect(Number(emails[0]?.id)).toBeGreaterThan(Number(emails[1]?.id));
    const page = await f.fetch(`${emails[0]?.url}`);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    expect(await page.text()).toContain("http://localhost:3000/forgot-password");
    expect((await f.fetch("/dev/outbox/999999")).status).toBe(404);
    const browser = await f.fetch("/dev/outbox", {
      headers: { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" },
    });
    expect(browser.headers.get("content-type")).toMatch(/text\/html/);
    const list = await browser.text();
    expect(list).toContain(`<a href="${emails[0]?.url}">`);
    expect(list.indexOf(`href="${emails[0]?.url}"`)).toBeLessThan(list.indexOf(`href="${emails[1]?.url}"`));
  },

  "email sign-in - the emailed link's page signs nobody in on GET; its button's POST signs in": async (f) => {
    const requested = await f.postJson("/api/auth/email-sign-in/request", { email: "ada@example.test" });
    expect(requested.status).toBe(200);
    const link = emailedSignInLink(f);
    const endpoint = await openSignInLinkAsScanner(f, link);
    // The button's POST, as the script sends it, signs in; the token works once.
    const post = () => f.postJson(endpoint, { token: link.searchParams.get("token") });
    const signedIn = await post();
    expect(signedIn.status).toBe(200);
    const access = signedIn.headers.getSetCookie().find((cookie) => cookie.startsWith("access_token=ey"));
    expect(access).toBeDefined();
    const me = await f.fetch("/api/auth/me", { headers: { cookie: (access ?? "").split(";")[0] ?? "" } });
    expect(await me.json()).toMatchObject({ email: "ada@example.test" });
    expect((await post()).headers.get("auth-error-code")).toBe("EMAIL_SIGN_IN_INVALID");
  },

  ...OAUTH_PROJECTS_TESTS,

  "start - the built server answers on PORT (within 30 s, for a loaded machine)": Object.assign(startTest, {
    timeout: 40_000,
    skipIf: (options) => !existsSync(options.serverEntry),
  } satisfies Pick<ExampleTestBody, "timeout" | "skipIf">),
};
