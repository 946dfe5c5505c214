import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { fileURLToPath } from "node:url";
import {
  CHROMIUM_ARGS,
  CHROMIUM_PATH,
  startTestOidcProvider,
  TEST_ACCOUNT_HEADER,
  type TestOidcProvider,
} from "@portcullis/testing";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const CHROMIUM = CHROMIUM_PATH;
const SERVER = fileURLToPath(new URL("../dist/server.js", import.meta.url));
const ARGS = [...CHROMIUM_ARGS];
const CLIENT = { clientId: "example-express", clientSecret: randomBytes(24).toString("base64url") };

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

// The "Sign in with …" button of the built Express example, in Debian Chromium, against a real
// OpenID Connect provider (oidc-provider) on 127.0.0.1. The provider's login and consent are its
// scripted interaction pages: the browser says who signs in there with the test-account header. Run `pnpm -r --filter "./packages/*" build` and
// `pnpm --filter example-express build` first; skipped without Chromium or the build.
describe.skipIf(!existsSync(CHROMIUM) || !existsSync(SERVER))(
  "example UI: sign in with an identity provider in a real browser",
  () => {
    let provider: TestOidcProvider;
    let server: ChildProcess | undefined;
    let base: string;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    const output: string[] = [];
    const account = `browser-user-${randomBytes(4).toString("hex")}`;
    const email = `${account}@example.test`;

    beforeAll(async () => {
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      provider = await startTestOidcProvider({
        client: { ...CLIENT, redirectUris: [`${base}/api/auth/oauth/oidc/callback`] },
      });
      provider.setAccount(account, { email, emailVerified: true, name: "Browser User" });
      server = spawn(process.execPath, [SERVER], {
        env: {
          ...process.env,
          NODE_ENV: "development",
          PORT: String(port),
          HOST: "127.0.0.1",
          // The provider knows the callback on 127.0.0.1 (a loopback HOST defaults to localhost).
          APP_ORIGIN: base,
          PASSKEYS: "false",
          AUTH_SECRET: randomBytes(48).toString("base64url"),
          LOGIN_ALERTS: "false",
          OIDC_ISSUER: provider.issuer,
          OIDC_CLIENT_ID: CLIENT.clientId,
          OIDC_CLIENT_SECRET: CLIENT.clientSecret,
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      server.stdout?.on("data", (chunk) => output.push(String(chunk)));
      server.stderr?.on("data", (chunk) => output.push(String(chunk)));
      const started = Date.now();
      while (!output.join("").includes(`Portcullis Express example on ${base}`)) {
        if (server.exitCode !== null || Date.now() - started > 15_000)
          throw new Error(`the example did not start:\n${output.join("")}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // A fresh temporary profile (Playwright's own, removed on close).
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
      context = await browser.newContext();
      // Who signs in at the provider (its scripted login page reads it; the example ignores it).
      // On every request: a route would miss the provider's redirects to its interaction pages.
      await context.setExtraHTTPHeaders({ [TEST_ACCOUNT_HEADER]: account });
      page = await context.newPage();
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      if (server && server.exitCode === null) {
        const exited = new Promise((resolve) => server?.once("exit", resolve));
        server.kill("SIGTERM");
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
        if (server.exitCode === null) server.kill("SIGKILL");
      }
      await provider?.close();
    });

    const button = () => page.locator("#provider-buttons a", { hasText: "Sign in with" });
    const signInWithProvider = async () => {
      await page.goto(`${base}/`);
      await expect.poll(() => button().isVisible()).toBe(true);
      expect(await button().textContent()).toContain(new URL(provider.issuer).host);
      await button().click();
      // authorize → the provider's login and consent interactions → the callback → the app.
      await page
        .waitForURL((url) => url.origin === base && !url.pathname.startsWith("/api/"), { timeout: 15_000 })
        .catch(async (error) => {
          throw new Error(`stuck at ${page.url()}: ${(await page.content()).slice(0, 500)}`, {
            cause: error,
          });
        });
      await expect.poll(() => page.locator("#me-email").textContent(), { timeout: 10_000 }).toBe(email);
      return page.evaluate(async () => {
        const response = await fetch("/api/auth/me");
        return (await response.json()) as Record<string, unknown>;
      });
    };

    it("ui - Sign in with the provider: back signed in, still after a reload; signed out; the second time the same account", async () => {
      const first = await signInWithProvider();
      expect(first).toMatchObject({
        email,
        emailVerified: true,
        hasPassword: false,
        identityProviders: ["oidc"],
      });
      expect(await page.locator("#signed-in").isVisible()).toBe(true);
      const cookies = await context.cookies(base);
      expect(cookies.find((cookie) => cookie.name === "access_token")).toMatchObject({ httpOnly: true });

      await page.reload();
      await expect.poll(() => page.locator("#me-email").textContent(), { timeout: 10_000 }).toBe(email);
      expect(await page.locator("#signed-in").isVisible()).toBe(true);

      await page.click("#logout");
      await expect.poll(() => page.locator("#signed-out").isVisible()).toBe(true);
      expect(await page.locator("#signed-in").isVisible()).toBe(false);

      const second = await signInWithProvider();
      expect(second.id).toBe(first.id);
      expect(second).toMatchObject({ email, hasPassword: false, identityProviders: ["oidc"] });
    }, 60_000);
  },
);
