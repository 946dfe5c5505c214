import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "@portcullis/testing";
import { createExampleAuth, type ExampleAuth, readConfig } from "example-shared";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startExample } from "./test-servers.js";

/**
 * The API reference page (`GET /docs/api`) in Debian Chromium: Scalar renders the routes of the
 * auth routes' OpenAPI document, and the page asks no host but the example's own. Skipped
 * without Chromium; the screenshot goes to the OS temp folder.
 */
describe.skipIf(!existsSync(CHROMIUM_PATH))("example API reference in a real browser", () => {
  let example: ExampleAuth;
  let server: { baseUrl: string; close(): Promise<void> };
  let browser: Browser;

  beforeAll(async () => {
    example = await createExampleAuth(
      readConfig({
        AUTH_SECRET: "api-reference-secret-K7wZ8BkdYHtdiL6IqJJhSTgPxk40qXfAjAO7mX5J3Bg",
        APP_ORIGIN: "http://localhost:3000",
      }),
    );
    server = await startExample(example);
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    example?.close();
  });

  it("GET /docs/api - lists the auth routes from /api/auth/openapi.json, with nothing fetched from another host", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const own = new URL(server.baseUrl).host;
    const elsewhere: string[] = [];
    const errors: string[] = [];
    await context.route("**/*", (route) => {
      const url = new URL(route.request().url());
      if (url.host === own || url.protocol === "data:" || url.protocol === "blob:") return route.continue();
      elsewhere.push(url.href);
      return route.abort();
    });
    page.on("pageerror", (error) => errors.push(error.message));
    const spec = page.waitForResponse((response) => response.url().endsWith("/api/auth/openapi.json"));
    await page.goto(`${server.baseUrl}/docs/api`);
    expect((await spec).status()).toBe(200);
    for (const summary of ["Sign in with email and password", "Rotate the refresh token", "Turn TOTP off"])
      await expect.poll(() => page.getByText(summary).first().isVisible(), { timeout: 15_000 }).toBe(true);
    const shots = join(tmpdir(), "portcullis-screenshots");
    await mkdir(shots, { recursive: true });
    await page.screenshot({ path: join(shots, "api-reference-1280.png") });
    expect(errors).toEqual([]);
    expect(elsewhere).toEqual([]);
    await context.close();
  }, 60_000);
});
