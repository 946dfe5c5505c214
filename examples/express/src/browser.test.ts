import { existsSync, mkdirSync } from "node:fs";
import type { Server } from "node:http";
import { type AddressInfo, createServer } from "node:net";
import { createArgon2Hasher, type OutboxMailer } from "@portcullis/core";
import { CHROMIUM_ARGS, CHROMIUM_PATH, referenceTotp } from "@portcullis/testing";
import { createExampleAuth, readConfig } from "example-shared";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "./app.js";

const CHROMIUM = CHROMIUM_PATH;
/** Screenshots of every page at 375 and 1280 px, outside git (bench/out/ is ignored). */
const SHOTS = new URL("../../../bench/out/ui", import.meta.url).pathname;
const ARGS = [...CHROMIUM_ARGS];

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

  const status = () => page.locator("#status");
  const shot = async (name: string) => {
    mkdirSync(SHOTS, { recursive: true });
    for (const width of [375, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: `${SHOTS}/${name}-${width}.png`, fullPage: true });
    }
  };
  /** Opens the newest email of a kind from the /dev/outbox page and returns its `?token=` link. */
  const linkFromOutbox = async (kind: string) => {
    await expect.poll(() => outbox.list().some((email) => email.kind === kind)).toBe(true);
    await page.goto(`${base}/dev/outbox`);
    await page.locator("li", { hasText: kind }).first().locator("a").click();
    const href =
      (await page.frameLocator("iframe").locator('a[href*="token="]').first().getAttribute("href")) ?? "";
    expect(new URL(href).origin).toBe(base);
    return href;
  };
  const signIn = async (password: string) => {
    await page.goto(`${base}/login`);
    await page.fill("#login [name=email]", "ada@example.test");
    await page.fill("#login [name=password]", password);
    await page.click("#login button[type=submit]");
  };

  it("ui - sign up, verify from the outbox, TOTP with a QR code, recovery code, reset password", async () => {
    await page.goto(`${base}/signup`);
    await shot("signup");
    await page.fill("#signup [name=email]", "ada@example.test");
    await page.fill("#signup [name=password]", "correct horse battery staple");
    await page.click("#signup button[type=submit]");
    await expect.poll(() => status().textContent()).toContain("Account created");

    const verifyLink = await linkFromOutbox("email-verification");
    await shot("outbox-entry");
    await page.goto(`${base}/dev/outbox`);
    await shot("outbox");
    await page.goto(verifyLink);
    await expect
      .poll(() => page.locator("#verify-result").textContent())
      .toBe("Your email address is verified.");
    await shot("verify");
    // The link again: a 304 EMAIL_ALREADY_VERIFIED, shown as done, not as an error.
    await page.goto(verifyLink);
    await expect.poll(() => page.locator("#verify-result").textContent()).toContain("already verified");
    expect(await page.locator("#verify-result").getAttribute("class")).toBe("ok");
    expect(await page.locator("#verify-result").textContent()).not.toContain("EMAIL_ALREADY_VERIFIED");

    await signIn("correct horse battery staple");
    await shot("login");
    await expect.poll(() => page.locator("#me-email").textContent()).toBe("ada@example.test");
    const account = (await page.locator("#me").textContent()) ?? "";
    expect(account).toContain("Email verified");
    expect(account).not.toContain("{");
    expect(await page.locator("#sessions li").count()).toBe(1);
    expect(await page.locator("#sessions").textContent()).not.toMatch(/\d{4}-\d\d-\d\dT/);
    await shot("account");

    await page.click('nav a[href="/settings/security"]');
    await expect.poll(() => page.locator("#step-up").isVisible()).toBe(true);
    await shot("security-step-up");
    await page.fill("#step-up [name=password]", "correct horse battery staple");
    await page.click("#step-up button[type=submit]");
    await expect.poll(() => page.locator("#settings").isVisible()).toBe(true);
    // Buttons follow the account's state: nothing is on, so nothing offers "turn off".
    expect(await page.locator("#totp-disable").isVisible()).toBe(false);
    expect(await page.locator("#email-disable").isVisible()).toBe(false);
    await page.click("#totp-setup");
    await expect.poll(() => page.locator("#totp-secret").textContent()).toMatch(/^[A-Z2-7]{32,}$/);
    await expect
      .poll(() =>
        page.locator("#totp-qr").evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
      )
      .toBeGreaterThan(0);
    const secret = (await page.locator("#totp-secret").textContent()) ?? "";
    const recoveryCodes = await page.locator("#recovery-codes li").allTextContents();
    expect(recoveryCodes.length).toBeGreaterThanOrEqual(8);
    expect(await page.locator("#recovery-copy").isVisible()).toBe(true);
    const download = page.waitForEvent("download");
    await page.click("#recovery-download");
    expect((await download).suggestedFilename()).toMatch(/^recovery-codes/);
    await shot("security-totp-setup");
    await page.fill("#totp-confirm [name=code]", referenceTotp(secret, Date.now()));
    await page.click("#totp-confirm button[type=submit]");
    await expect.poll(() => page.locator("#totp-disable").isVisible()).toBe(true);
    expect(await page.locator("#totp-confirm").isVisible()).toBe(false);
    await shot("security-totp-on");

    // Signing out hides the settings at once, without a reload.
    await page.click("#logout");
    await expect.poll(() => page.locator("#signed-out").isVisible()).toBe(true);
    expect(await page.locator("#settings").isVisible()).toBe(false);
    expect(await page.locator("#security").isVisible()).toBe(false);
    expect(await page.locator("#totp-secret").textContent()).toBe("");

    // Only the methods the account has: TOTP, so no "Email me a code".
    await signIn("correct horse battery staple");
    await expect.poll(() => page.locator("#two-factor").isVisible()).toBe(true);
    expect(await page.locator("#two-factor-email").isVisible()).toBe(false);
    await shot("two-factor");
    const code = referenceTotp(secret, Date.now() + 30_000);
    await page.fill("#two-factor-code [name=code]", code);
    await page.click("#two-factor-code button[type=submit]");
    await expect.poll(() => page.locator("#me-email").textContent()).toBe("ada@example.test");
    const cookies = await page.context().cookies();
    expect(cookies.find((cookie) => cookie.name === "access_token")).toMatchObject({
      httpOnly: true,
      sameSite: "Strict",
    });

    // The same code again within its step: explained, not just "wrong".
    await page.click("#logout");
    await signIn("correct horse battery staple");
    await expect.poll(() => page.locator("#two-factor").isVisible()).toBe(true);
    await page.fill("#two-factor-code [name=code]", code);
    await page.click("#two-factor-code button[type=submit]");
    await expect.poll(() => status().textContent()).toContain("Each code works once");
    expect(await status().textContent()).not.toContain("WRONG_TWO_FACTOR_CODE");

    await page.fill("#two-factor-recover [name=code]", recoveryCodes[0] ?? "");
    await page.click("#two-factor-recover button[type=submit]");
    await expect.poll(() => page.locator("#me-email").textContent()).toBe("ada@example.test");

    // A password reset from another browser ends this session.
    const signedIn = page;
    const other = await browser.newContext();
    page = await other.newPage();
    await page.goto(`${base}/forgot-password`);
    await shot("forgot-password");
    await page.fill("#forgot-password [name=email]", "ada@example.test");
    await page.click("#forgot-password button[type=submit]");
    await expect.poll(() => status().textContent()).toContain("reset link");
    await page.goto(await linkFromOutbox("password-reset"));
    await shot("reset-password");
    await page.fill("#reset-password [name=newPassword]", "a brand new passphrase");
    await page.click("#reset-password button[type=submit]");
    await expect.poll(() => status().textContent()).toContain("Password changed");
    await signIn("a brand new passphrase");
    await expect.poll(() => page.locator("#two-factor").isVisible()).toBe(true);
    await other.close();
    page = signedIn;
    await page.reload();
    await expect.poll(() => page.locator("#signed-out").isVisible()).toBe(true);
    expect(await page.locator("#signed-in").isVisible()).toBe(false);
  }, 60_000);

  it("ui - a field error the API returns is shown under its field, in German too", async () => {
    const context = await browser.newContext({ locale: "de-DE" });
    page = await context.newPage();
    await page.goto(`${base}/signup`);
    expect(await page.locator("#signup h1").textContent()).toBe("Konto erstellen");
    await page.fill("#signup [name=email]", "not-an-address");
    await page.fill("#signup [name=password]", "correct horse battery staple");
    await page.click("#signup button[type=submit]");
    const fieldError = page.locator("#signup label:has([name=email]) .field-error");
    await expect.poll(() => fieldError.count()).toBe(1);
    expect(await page.locator("#signup label:has([name=password]) .field-error").count()).toBe(0);
    const text = (await status().textContent()) ?? "";
    expect(text).not.toMatch(/VALIDATION_FAILED|[{}]/);
    await shot("signup-field-error-de");
    await page.selectOption("#language", "en");
    expect(await page.locator("#signup h1").textContent()).toBe("Create an account");
    await context.close();
  }, 30_000);
});
