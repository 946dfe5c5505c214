import { existsSync } from "node:fs";
import type { Server } from "node:http";
import { type AddressInfo, createServer } from "node:net";
import { createArgon2Hasher, type OutboxMailer } from "@portcullis/core";
import { referenceTotp } from "@portcullis/testing";
import { createExampleAuth, readConfig } from "example-shared";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "./app.js";

const CHROMIUM = "/usr/bin/chromium";
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

describe.skipIf(!existsSync(CHROMIUM))("example UI in a real browser", () => {
  let server: Server;
  let base: string;
  let outbox: OutboxMailer;
  let browser: Browser;
  let page: Page;
  let close: () => void;

  beforeAll(async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    base = `http://127.0.0.1:${port}`;
    const example = await createExampleAuth(
      readConfig({
        PORT: String(port),
        APP_ORIGIN: base,
        AUTH_SECRET: "browser-test-secret-0123456789abcdef",
        LOGIN_ALERTS: "false",
      }),
      {
        passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
      },
    );
    close = example.close;
    outbox = example.outbox as OutboxMailer;
    server = createApp(example.auth, example.outbox).listen(port, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    page = await browser.newPage();
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    close?.();
  });

  const lastLink = async (kind: string) => {
    await expect.poll(() => outbox.list().some((email) => email.kind === kind)).toBe(true);
    const html = outbox.list().find((email) => email.kind === kind)?.html ?? "";
    const href = /href="([^"]+\?token=[^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, "&") ?? "";
    expect(new URL(href).origin).toBe(base);
    return href;
  };
  const status = () => page.locator("#status");

  it("ui - sign up, verify, log in, turn on TOTP, log in with the second factor, reset the password", async () => {
    await page.goto(`${base}/`);
    await page.fill("#signup [name=email]", "ada@example.test");
    await page.fill("#signup [name=password]", "correct horse battery staple");
    await page.click("#signup button");
    await expect.poll(() => status().textContent()).toContain("Account created");

    await page.goto(await lastLink("email-verification"));
    await expect
      .poll(() => page.locator("#verify-result").textContent())
      .toBe("Your email address is verified.");

    await page.fill("#login [name=email]", "ada@example.test");
    await page.fill("#login [name=password]", "correct horse battery staple");
    await page.click("#login button");
    await expect.poll(() => page.locator("#me-email").textContent()).toBe("ada@example.test");
    expect(await page.locator("#me").textContent()).toContain('"emailVerified": true');

    await page.fill("#step-up [name=password]", "correct horse battery staple");
    await page.click("#step-up button");
    await page.click("#totp-setup");
    await expect.poll(() => page.locator("#totp-secret").textContent()).toMatch(/^[A-Z2-7]{32,}$/);
    const secret = (await page.locator("#totp-secret").textContent()) ?? "";
    await page.fill("#totp-confirm [name=code]", referenceTotp(secret, Date.now()));
    await page.click("#totp-confirm button");
    await expect.poll(() => page.locator("#me").textContent()).toContain('"totp"');

    await page.click("#logout");
    await expect.poll(() => page.locator("#signed-out").isVisible()).toBe(true);
    await page.fill("#login [name=email]", "ada@example.test");
    await page.fill("#login [name=password]", "correct horse battery staple");
    await page.click("#login button");
    await expect.poll(() => page.locator("#two-factor").isVisible()).toBe(true);
    await page.fill("#two-factor-code [name=code]", referenceTotp(secret, Date.now() + 30_000));
    await page.click("#two-factor-code button[type=submit]");
    await expect.poll(() => page.locator("#me-email").textContent()).toBe("ada@example.test");
    const cookies = await page.context().cookies();
    expect(cookies.find((cookie) => cookie.name === "access_token")).toMatchObject({
      httpOnly: true,
      sameSite: "Strict",
    });

    await page.click("#logout");
    await page.fill("#forgot-password [name=email]", "ada@example.test");
    await page.click("#forgot-password button");
    await expect.poll(() => status().textContent()).toContain("reset link");
    await page.goto(await lastLink("password-reset"));
    await page.fill("#reset-password [name=newPassword]", "a brand new passphrase");
    await page.click("#reset-password button");
    await expect.poll(() => status().textContent()).toContain("Password changed");
    await page.fill("#login [name=email]", "ada@example.test");
    await page.fill("#login [name=password]", "a brand new passphrase");
    await page.click("#login button");
    await expect.poll(() => page.locator("#two-factor").isVisible()).toBe(true);
  }, 30_000);
});
