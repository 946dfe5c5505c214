import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createArgon2Hasher, type OutboxMailer } from "@portcullis/core";
import {
  CHROMIUM_ARGS,
  CHROMIUM_PATH,
  type FakeRangeServer,
  freePort,
  referenceTotp,
  startFakeRangeServer,
} from "@portcullis/testing";
import {
  type APIRequestContext,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Locator,
  type Page,
  request,
} from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readConfig } from "./config.js";
import { createExampleAuth, type ExampleAuth } from "./setup.js";

export interface BrowserSuiteOptions {
  name: string;
  /**
   * Starts the example's app in-process on 127.0.0.1:`port`, the port the example's own
   * configuration (PORT, so APP_ORIGIN) names: email links then land on the page's origin.
   */
  start(example: ExampleAuth, port: number): Promise<{ close(): Promise<void> }>;
}

/** Where the screenshots go: outside the repository, one folder per example. */
export const screenshotDirectory = (name: string): string =>
  join(tmpdir(), "portcullis-ui-screenshots", name);

const PASSWORD = "correct horse battery staple";
const DAY = 24 * 60 * 60 * 1000;
/** Cheap argon2id: the same parameters the server gets, so seeded hashes verify quickly. */
const hasher = createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 });

/** A DOM box as the checks read it (the project's TypeScript has no DOM library). */
interface Box {
  scrollWidth: number;
  clientWidth: number;
  getBoundingClientRect(): { left: number; right: number };
}

/**
 * The example web UI in Debian Chromium (playwright-core), the same checks for each example: the
 * whole journey, then one test per UI issue, each with its own account. Screenshots at 375 and
 * 1280 px go to `screenshotDirectory(name)` (the OS temp folder, never git). Skipped without
 * Chromium.
 */
export function runBrowserSuite(options: BrowserSuiteOptions): void {
  describe.skipIf(!existsSync(CHROMIUM_PATH))(`example UI in a real browser: ${options.name}`, () => {
    const shots = screenshotDirectory(options.name);
    let example: ExampleAuth;
    let outbox: OutboxMailer;
    let server: { close(): Promise<void> };
    let browser: Browser;
    let base: string;
    let accounts = 0;

    beforeAll(async () => {
      const port = await freePort();
      // No APP_ORIGIN: the origin follows from HOST and PORT, i.e. the URL the server prints.
      const config = readConfig({
        PORT: String(port),
        AUTH_SECRET: "browser-test-secret-YVt0_5Gi80viRL3zW2SMQ_8FUEkbfGmZuCKl4LKq1Pw",
        EMAIL_COOLDOWN_SECONDS: "1",
        // The back office's tests (32a-32e) sign in with these.
        ADMIN_EMAILS: "back-office-en@example.test,back-office-de@example.test",
      });
      base = config.appOrigin;
      example = await createExampleAuth(config, { passwordHasher: hasher });
      outbox = example.outbox as OutboxMailer;
      server = await options.start(example, port);
      browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
      await mkdir(shots, { recursive: true });
    }, 30_000);

    afterAll(async () => {
      await browser?.close();
      await server?.close();
      example?.close();
    });

    // ---- Helpers ------------------------------------------------------------------------------
    const newPage = async (context: BrowserContextOptions = {}): Promise<[BrowserContext, Page]> => {
      const ctx = await browser.newContext({ locale: "en-US", ...context });
      const page = await ctx.newPage();
      if (process.env.UI_DEBUG) {
        page.on("console", (message) => console.log(`[page] ${message.text()}`));
        page.on("pageerror", (error) => console.log(`[page error] ${error.message}`));
        page.on("response", (r) => console.log(`[resp] ${r.request().method()} ${r.url()} ${r.status()}`));
      }
      return [ctx, page];
    };
    type PageTest = (page: Page, context: BrowserContext) => Promise<void>;
    /** A test body in a fresh browser context, closed afterwards (also when the test fails). */
    const inNewPage =
      (...args: [PageTest] | [BrowserContextOptions, PageTest]) =>
      async (): Promise<void> => {
        const [options, test] = args.length === 1 ? [{}, args[0]] : args;
        const [context, page] = await newPage(options);
        try {
          await test(page, context);
        } finally {
          await context.close();
        }
      };
    const status = (page: Page) => page.locator("#status");
    const visible = (page: Page, selector: string) => page.locator(selector).isVisible();
    const shot = async (page: Page, name: string) => {
      const size = page.viewportSize() ?? { width: 1280, height: 900 };
      for (const width of [375, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        await page.screenshot({ path: join(shots, `${name}-${width}.png`), fullPage: true });
      }
      await page.setViewportSize(size);
    };
    /** A human message: no error code such as `INVALID_CREDENTIALS`, no `CODE: message`, no JSON. */
    const expectHuman = (text: string | null) => {
      expect(text ?? "").not.toBe("");
      expect(text).not.toMatch(/\b[A-Z][A-Z0-9]+(_[A-Z0-9]+)+\b|^\s*\w+:\s|[{}]/);
    };

    /** A user created through the store (older than a day unless told): quicker than signing up. */
    const createAccount = async (
      label: string,
      account: { verified?: boolean; name?: string; createdAt?: number; lastSignInAt?: number } = {},
      target: ExampleAuth = example,
    ): Promise<string> => {
      accounts += 1;
      const email = `${label}-${accounts}@example.test`;
      await target.stores.users.create({
        id: randomBytes(16).toString("base64url"),
        email,
        emailVerified: account.verified ?? true,
        name: account.name ?? null,
        passwordHash: await hasher.hash(PASSWORD),
        identityProviders: [],
        twoFactor: { methods: [], preferredMethod: null, totpSecretEncrypted: null, recoveryCodeHashes: [] },
        createdAt: account.createdAt ?? Date.now() - DAY,
        ...(account.lastSignInAt === undefined ? {} : { lastSignInAt: account.lastSignInAt }),
      });
      return email;
    };
    const call = async (api: APIRequestContext, method: string, path: string, body?: unknown) => {
      const response = await api.fetch(`/api/auth${path}`, {
        method,
        ...(body === undefined ? {} : { data: body }),
      });
      if (!response.ok()) throw new Error(`${method} ${path}: ${response.status()} ${await response.text()}`);
      return (response.status() === 204 ? {} : await response.json()) as Record<string, string>;
    };
    /** The newest email of a kind to an address, once it is in the outbox. */
    const newestEmail = async (kind: string, to: string) => {
      const find = () =>
        outbox
          .list()
          .filter((email) => email.kind === kind && email.to === to)
          .sort((a, b) => Number(b.id) - Number(a.id))[0];
      await expect.poll(() => find()).toBeDefined();
      return find() as NonNullable<ReturnType<typeof find>>;
    };
    const emailedCode = async (to: string, after = "0") => {
      await expect
        .poll(() =>
          outbox
            .list()
            .some((e) => e.kind === "two-factor-code" && e.to === to && Number(e.id) > Number(after)),
        )
        .toBe(true);
      return /\b(\d{6})\b/.exec((await newestEmail("two-factor-code", to)).text)?.[1] ?? "";
    };
    const newestId = () => String(Math.max(0, ...outbox.list().map((email) => Number(email.id))));
    /**
     * Turns 2FA on through the API (its own cookie jar, not the browser's): TOTP with a code of the
     * previous step (so a test can sign in with this step's code and step up with the next one's),
     * email codes, and the preferred method. Returns the TOTP secret.
     */
    const enableTwoFactor = async (
      email: string,
      methods: { totp?: boolean; email?: boolean; preferred?: "totp" | "email" },
    ): Promise<string> => {
      const api = await request.newContext({ baseURL: base, extraHTTPHeaders: { origin: base } });
      try {
        await call(api, "POST", "/login", { email, password: PASSWORD });
        await call(api, "POST", "/step-up", { password: PASSWORD });
        let secret = "";
        if (methods.totp) {
          const setup = await call(api, "GET", "/2fa/totp/setup");
          secret = setup.secret ?? "";
          // The previous step's code is accepted only while this step lasts: not within 2 s of its end.
          const intoStep = Date.now() % 30_000;
          if (intoStep > 28_000) await new Promise((resolve) => setTimeout(resolve, 30_100 - intoStep));
          const code = referenceTotp(secret, Date.now() - 30_000);
          await call(api, "POST", "/2fa/totp/setup", { setupToken: setup.setupToken, code });
        }
        if (methods.email) {
          const before = newestId();
          await call(api, "POST", "/2fa/email/send");
          // The sign-in mails the next code only once this send's cooldown (EMAIL_COOLDOWN_SECONDS=1,
          // core's key email:two-factor-code:<address>) has ended: read from the app's store.
          const cooldown = `email:two-factor-code:${email}`;
          expect(await example.stores.cooldowns.remainingMs(cooldown)).toBeGreaterThan(0);
          await call(api, "POST", "/2fa/email/enable", {
            code: await emailedCode(email, before),
            method: "email",
          });
          await expect.poll(() => example.stores.cooldowns.remainingMs(cooldown), { timeout: 5_000 }).toBe(0);
        }
        if (methods.preferred)
          await call(api, "POST", "/2fa/preferred-method", { method: methods.preferred });
        return secret;
      } finally {
        await api.dispose();
      }
    };
    const signIn = async (page: Page, email: string, password = PASSWORD) => {
      await page.goto(`${base}/login`);
      await page.fill("#login [name=email]", email);
      await page.fill("#login [name=password]", password);
      await page.click("#login button[type=submit]");
    };
    const signedInAs = async (page: Page, email: string) =>
      expect.poll(() => page.locator("#me-email").textContent(), { timeout: 10_000 }).toBe(email);
    /** Answers the sign-in's second step with a code from the authenticator app or the email. */
    const submitTwoFactorCode = async (page: Page, code: string) => {
      await page.fill("#two-factor-code [name=code]", code);
      await page.click("#two-factor-code button[type=submit]");
    };
    /** Enters the code mailed to `email` after outbox entry `before` and lands signed in. */
    const finishWithEmailedCode = async (page: Page, email: string, before: string) => {
      await submitTwoFactorCode(page, await emailedCode(email, before));
      await signedInAs(page, email);
    };
    /** Signs in (without 2FA) and confirms the password on the security page: the settings show. */
    const openSettings = async (page: Page, email: string) => {
      await signIn(page, email);
      await signedInAs(page, email);
      await page.click('nav a[href="/settings/security"]');
      await page.fill("#step-up [name=password]", PASSWORD);
      await page.click("#step-up button[type=submit]");
      await expect.poll(() => visible(page, "#settings")).toBe(true);
    };
    /** Opens an email of the outbox from its list page and returns its first link (`?token=` when asked). */
    const linkFromOutbox = async (page: Page, kind: string, to: string, selector = 'a[href*="token="]') => {
      await newestEmail(kind, to);
      await page.goto(`${base}/dev/outbox`);
      await page.locator("li", { hasText: to }).filter({ hasText: kind }).first().locator("a").click();
      const href = (await page.frameLocator("iframe").locator(selector).first().getAttribute("href")) ?? "";
      // The links start with the origin the page (and the server's printed URL) has.
      expect(new URL(href).origin).toBe(base);
      return href;
    };

    // ---- The whole journey --------------------------------------------------------------------
    /** Signs up on the page, opens the verification link from the outbox, and opens it again. */
    const signUpAndVerify = async (page: Page, email: string) => {
      await page.goto(`${base}/signup`);
      await shot(page, "signup");
      await page.fill("#signup [name=email]", email);
      await page.fill("#signup [name=password]", PASSWORD);
      await page.click("#signup button[type=submit]");
      await expect.poll(() => status(page).textContent()).toContain("Account created");

      const verifyLink = await linkFromOutbox(page, "email-verification", email);
      await shot(page, "outbox-entry");
      await page.goto(`${base}/dev/outbox`);
      await shot(page, "outbox");
      await page.goto(verifyLink);
      await expect
        .poll(() => page.locator("#verify-result").textContent())
        .toBe("Your email address is verified.");
      await shot(page, "verify");
      // The link again: a 304 EMAIL_ALREADY_VERIFIED, shown as done, not as an error.
      await page.goto(verifyLink);
      await expect.poll(() => page.locator("#verify-result").textContent()).toContain("already verified");
      expect(await page.locator("#verify-result").getAttribute("class")).toBe("ok");
    };
    /** From the signed-in account page: confirms the password, sets TOTP up with the page's secret. */
    const turnOnTotpInSettings = async (page: Page) => {
      await page.click('nav a[href="/settings/security"]');
      await expect.poll(() => visible(page, "#step-up")).toBe(true);
      await shot(page, "security-step-up");
      await page.fill("#step-up [name=password]", PASSWORD);
      await page.click("#step-up button[type=submit]");
      await expect.poll(() => visible(page, "#settings")).toBe(true);
      await page.click("#totp-setup");
      // The secret as the page shows it beside the QR code, which encodes the otpauth URI with it.
      await expect.poll(() => page.locator("#totp-secret").textContent()).toMatch(/^[A-Z2-7]{32,}$/);
      const secret = (await page.locator("#totp-secret").textContent()) ?? "";
      expect(await page.locator("#totp-uri").textContent()).toContain(`secret=${secret}`);
      const recoveryCodes = await page.locator("#recovery-codes li").allTextContents();
      expect(recoveryCodes.length).toBeGreaterThanOrEqual(8);
      await shot(page, "security-totp-setup");
      await page.fill("#totp-confirm [name=code]", referenceTotp(secret, Date.now()));
      await page.click("#totp-confirm button[type=submit]");
      await expect.poll(() => visible(page, "#totp-disable")).toBe(true);
      await shot(page, "security-totp-on");
      return { secret, recoveryCodes };
    };
    /** Resets the password from another browser, then signs in with the new one up to the second step. */
    const resetPasswordElsewhere = async (email: string, newPassword: string) => {
      const other = await browser.newContext({ locale: "en-US" });
      const page = await other.newPage();
      await page.goto(`${base}/forgot-password`);
      await shot(page, "forgot-password");
      await page.fill("#forgot-password [name=email]", email);
      await page.click("#forgot-password button[type=submit]");
      await expect.poll(() => status(page).textContent()).toContain("reset link");
      await page.goto(await linkFromOutbox(page, "password-reset", email));
      await shot(page, "reset-password");
      await page.fill("#reset-password [name=newPassword]", newPassword);
      await page.click("#reset-password button[type=submit]");
      await expect.poll(() => status(page).textContent()).toContain("Password changed");
      await signIn(page, email, newPassword);
      await expect.poll(() => visible(page, "#two-factor")).toBe(true);
      await other.close();
    };

    it(
      "ui - sign up, verify from the outbox, TOTP from the page's secret, sign out, TOTP sign-in, recovery code, reset password ends the old session",
      inNewPage(async (page, context) => {
        const email = "ada@example.test";
        await signUpAndVerify(page, email);

        await signIn(page, email);
        await signedInAs(page, email);
        expect(await page.locator("#me").textContent()).toContain("Email verified");
        expect(await page.locator("#sessions li").count()).toBe(1);
        await shot(page, "account");
        const { secret, recoveryCodes } = await turnOnTotpInSettings(page);

        await page.click("#logout");
        await expect.poll(() => visible(page, "#signed-out")).toBe(true);

        await signIn(page, email);
        await expect.poll(() => visible(page, "#two-factor")).toBe(true);
        await shot(page, "two-factor");
        await submitTwoFactorCode(page, referenceTotp(secret, Date.now() + 30_000));
        await signedInAs(page, email);
        const cookies = await context.cookies();
        expect(cookies.find((cookie) => cookie.name === "access_token")).toMatchObject({
          httpOnly: true,
          sameSite: "Strict",
        });

        await page.click("#logout");
        await signIn(page, email);
        await expect.poll(() => visible(page, "#two-factor")).toBe(true);
        await page.fill("#two-factor-recover [name=code]", recoveryCodes[0] ?? "");
        await page.click("#two-factor-recover button[type=submit]");
        await signedInAs(page, email);
        await expect.poll(() => status(page).textContent()).toContain("recovery code");

        // A password reset from another browser ends this session.
        await resetPasswordElsewhere(email, "a brand new passphrase");
        await page.reload();
        await expect.poll(() => visible(page, "#signed-out")).toBe(true);
        expect(await visible(page, "#signed-in")).toBe(false);
      }),
      60_000,
    );

    // ---- One test per UI issue ----------------------------------------------------------------
    it(
      "ui (a) - /dev/outbox is a clickable list in a browser, and JSON for Accept: application/json",
      inNewPage(async (page) => {
        const email = await createAccount("outbox");
        await page.goto(`${base}/forgot-password`);
        await page.fill("#forgot-password [name=email]", email);
        await page.click("#forgot-password button[type=submit]");
        const sent = await newestEmail("password-reset", email);

        // From the app's footer link: a page of links, not JSON.
        const list = page.waitForResponse(`${base}/dev/outbox`);
        await page.click("#outbox-link");
        expect((await list).headers()["content-type"]).toMatch(/^text\/html/);
        expect(await page.locator("h1").textContent()).toBe("Dev outbox");
        const entry = page.locator("li", { hasText: email });
        expect(await entry.textContent()).toContain("password-reset");
        await shot(page, "a-outbox-list");
        await entry.locator("a").click();
        await expect.poll(() => new URL(page.url()).pathname).toBe(`/dev/outbox/${sent.id}`);
        expect(await page.locator("header").textContent()).toContain(sent.subject);
        expect(
          await page.frameLocator("iframe").locator('a[href*="/reset-password?token="]').count(),
        ).toBeGreaterThan(0);
        await shot(page, "a-outbox-entry");
        await page.click('a[href="/dev/outbox"]');
        await expect.poll(() => new URL(page.url()).pathname).toBe("/dev/outbox");

        // The same URL for a script: JSON.
        const json = await page.request.get(`${base}/dev/outbox`, {
          headers: { accept: "application/json" },
        });
        expect(json.headers()["content-type"]).toMatch(/^application\/json/);
        const { emails } = (await json.json()) as { emails: { id: string; to: string; url: string }[] };
        expect(emails.find((e) => e.id === sent.id)).toMatchObject({
          to: email,
          url: `/dev/outbox/${sent.id}`,
        });
      }),
    );

    it(
      "ui (b) - the email's “Review security settings” link opens the security page, signed in, on the printed origin",
      inNewPage(async (page, context) => {
        // The origin the server prints (no APP_ORIGIN set) is the one the emails link to: on a
        // loopback HOST, localhost (WebAuthn refuses IP addresses).
        expect(base).toMatch(/^http:\/\/localhost:\d+$/);
        const email = await createAccount("alert", { lastSignInAt: Date.now() - DAY });
        await signIn(page, email);
        await signedInAs(page, email);
        // A sign-in from a browser the account does not know (a new context) mails a login alert.
        const alert = await newestEmail("login-alert", email);
        await page.goto(`${base}/dev/outbox/${alert.id}`);
        // Its "Review security settings" button (the first link to the page; the plain URL follows).
        const button = page.frameLocator("iframe").locator(`a[href="${base}/settings/security"]`).first();
        expect(new URL((await button.getAttribute("href")) ?? "").origin).toBe(base);
        // The email's link opens a new tab (target=_blank, out of the outbox's sandboxed frame).
        const [tab] = await Promise.all([context.waitForEvent("page"), button.click()]);
        await tab.waitForLoadState();
        expect(new URL(tab.url()).pathname).toBe("/settings/security");
        await expect.poll(() => visible(tab, "#security")).toBe(true);
        expect(await visible(tab, "#signed-out")).toBe(false);
        expect(await visible(tab, "#signed-in")).toBe(false);
        expect(await visible(tab, "#step-up")).toBe(true);
        expect(await tab.locator("#security-state").textContent()).toContain("Two-factor");
        expect(await visible(tab, "#logout")).toBe(true);
        expect(await status(tab).isVisible()).toBe(false);
        await shot(tab, "b-security-from-email");
      }),
    );

    it(
      "ui (c) - errors read as human messages; resending verification to a verified address says so",
      inNewPage(async (page) => {
        const email = await createAccount("errors", { verified: false });

        await signIn(page, email, "not the password at all");
        await expect.poll(() => status(page).isVisible()).toBe(true);
        expect(await status(page).textContent()).toBe("The email address or password is wrong.");
        expect(await status(page).getAttribute("class")).toBe("error");
        // A code the page has no words for reads as the API's localized message.
        await page.goto(`${base}/reset-password?token=not-a-token`);
        await page.fill("#reset-password [name=newPassword]", "a brand new passphrase");
        await page.click("#reset-password button[type=submit]");
        await expect.poll(() => status(page).isVisible()).toBe(true);
        expectHuman(await status(page).textContent());
        await page.goto(`${base}/verify-email?token=not-a-token`);
        await expect.poll(() => page.locator("#verify-result").getAttribute("class")).toBe("error");
        expectHuman(await page.locator("#verify-result").textContent());
        await shot(page, "c-error");

        // Resend, verify in another tab, then "Resend" again on the page that still offers it: 304.
        await signIn(page, email);
        await signedInAs(page, email);
        expect(await visible(page, "#resend-verification")).toBe(true);
        await page.click("#resend-verification");
        await expect.poll(() => status(page).textContent()).toBe("Verification email sent");
        // The link is used elsewhere (another device's mail client: a POST of its token, over HTTP).
        // A second tab of this browser did it before; in loaded CI runs that tab sometimes stayed at
        // "Checking your link…" for 40 s (3 times in 2 runs; the cause is not found yet). The
        // verification page itself is covered by the journey test.
        const link = /https?:\/\/\S*verify-email\?token=([\w-]+)/.exec(
          (await newestEmail("email-verification", email)).text,
        );
        const verified = await fetch(`${base}/api/auth/email/verification?token=${link?.[1]}`, {
          method: "POST",
          headers: { origin: base },
        });
        expect(verified.status, await verified.text()).toBe(200);
        await page.click("#resend-verification");
        await expect.poll(() => status(page).textContent()).toContain("already verified");
        expectHuman(await status(page).textContent());
        expect(await status(page).getAttribute("class")).toBe("ok");
        await expect.poll(() => visible(page, "#resend-verification")).toBe(false);
        expect(await page.locator("#me").textContent()).toContain("Email verifiedYes");
        await shot(page, "c-already-verified");
      }),
      60_000,
    );

    it(
      "ui (d) - a field error the API returns is shown under its field, in German too",
      inNewPage({ locale: "de-DE" }, async (page) => {
        await page.goto(`${base}/signup`);
        // The page's words are applied by its script after the load: wait for the German ones.
        await expect.poll(() => page.locator("#signup h1").textContent()).toBe("Konto erstellen");
        await page.fill("#signup [name=email]", "not-an-address");
        await page.fill("#signup [name=password]", PASSWORD);
        await page.click("#signup button[type=submit]");
        const fieldError = page.locator("#signup label:has([name=email]) .field-error");
        await expect.poll(() => fieldError.count()).toBe(1);
        expectHuman(await fieldError.textContent());
        expect(await page.locator("#signup [name=email]").getAttribute("aria-invalid")).toBe("true");
        expect(await page.locator("#signup label:has([name=password]) .field-error").count()).toBe(0);
        expectHuman(await status(page).textContent());
        await shot(page, "d-signup-field-error-de");
        await page.selectOption("#language", "en");
        expect(await page.locator("#signup h1").textContent()).toBe("Create an account");
      }),
    );

    it(
      "ui (e) - TOTP setup: a QR code, an otpauth URI that fits its card at 375 px, recovery codes to copy and download",
      inNewPage({ viewport: { width: 375, height: 800 } }, async (page, context) => {
        await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
        const email = await createAccount("totp-setup");
        await openSettings(page, email);
        await page.click("#totp-setup");
        await expect.poll(() => visible(page, "#totp-confirm")).toBe(true);

        const qr = page.locator("#totp-qr");
        await expect
          .poll(() => qr.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth))
          .toBeGreaterThan(0);
        expect(await qr.isVisible()).toBe(true);
        // The image is the QR code of the URI the page shows.
        const uri = (await page.locator("#totp-uri").textContent()) ?? "";
        expect(uri).toMatch(/^otpauth:\/\/totp\//);
        const drawn = await qr.evaluate(async (img) =>
          (await fetch((img as unknown as { src: string }).src)).text(),
        );
        const expected = await page.request.post(`${base}/ui/qr`, { data: { text: uri } });
        expect(drawn).toBe(await expected.text());

        // Nothing runs out of its card, the URI opened or not.
        await page.click("#totp-confirm summary");
        const fits = (locator: Locator) =>
          locator.evaluate((node) => {
            const box = node as unknown as Box & { closest(selector: string): Box };
            const card = box.closest(".card");
            const inner = box.getBoundingClientRect();
            const outer = card.getBoundingClientRect();
            return {
              scroll: box.scrollWidth <= box.clientWidth,
              cardScroll: card.scrollWidth <= card.clientWidth,
              inside: inner.left >= outer.left && inner.right <= outer.right,
            };
          });
        for (const selector of ["#totp-confirm details", "#totp-uri", "#totp-secret", "#recovery-codes"])
          expect({ selector, ...(await fits(page.locator(selector))) }).toEqual({
            selector,
            scroll: true,
            cardScroll: true,
            inside: true,
          });
        expect(
          await page.locator("html").evaluate((html) => (html as unknown as Box).scrollWidth),
        ).toBeLessThanOrEqual(375);
        await shot(page, "e-totp-setup");

        // Recovery codes: a list; Copy puts them on the clipboard, Download saves them as a file.
        expect(
          await page
            .locator("#recovery-codes")
            .evaluate((node) => (node as unknown as { tagName: string }).tagName),
        ).toMatch(/^[OU]L$/);
        const codes = await page.locator("#recovery-codes li").allTextContents();
        expect(codes.length).toBeGreaterThanOrEqual(8);
        expect(new Set(codes).size).toBe(codes.length);
        await page.click("#recovery-copy");
        await expect.poll(() => status(page).textContent()).toBe("Recovery codes copied");
        const clipboard = () =>
          (
            globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
          ).navigator.clipboard.readText();
        expect(await page.evaluate(clipboard)).toBe(codes.join("\n"));
        const download = page.waitForEvent("download");
        await page.click("#recovery-download");
        expect((await download).suggestedFilename()).toMatch(/^recovery-codes-.+\.txt$/);
        expect(await readFile(await (await download).path(), "utf8")).toBe(`${codes.join("\n")}\n`);

        const secret = (await page.locator("#totp-secret").textContent()) ?? "";
        await page.fill("#totp-confirm [name=code]", referenceTotp(secret, Date.now()));
        await page.click("#totp-confirm button[type=submit]");
        await expect.poll(() => status(page).textContent()).toBe("Authenticator app turned on");
        await expect.poll(() => visible(page, "#totp-confirm")).toBe(false);
      }),
    );

    it(
      "ui (f) - the 2FA buttons follow the account's state",
      inNewPage(async (page) => {
        const email = await createAccount("buttons");
        await openSettings(page, email);
        // The settings buttons on show, and the label of the TOTP setup button.
        const state = async () => {
          const shown: string[] = [];
          for (const id of ["totp-setup", "totp-disable", "email-send", "email-disable", "preferred"]) {
            if (await visible(page, `#${id}`)) shown.push(id);
          }
          return { shown, setupLabel: await page.locator("#totp-setup").textContent() };
        };
        await expect
          .poll(state)
          .toEqual({ shown: ["totp-setup", "email-send"], setupLabel: "Set up an authenticator app" });

        await page.click("#totp-setup");
        await expect.poll(() => page.locator("#totp-secret").textContent()).toMatch(/^[A-Z2-7]{32,}$/);
        const secret = (await page.locator("#totp-secret").textContent()) ?? "";
        await page.fill("#totp-confirm [name=code]", referenceTotp(secret, Date.now()));
        await page.click("#totp-confirm button[type=submit]");
        await expect.poll(() => visible(page, "#totp-disable")).toBe(true);
        // On: no "set up" offer any more, only a new setup or turning it off.
        await expect.poll(state).toEqual({
          shown: ["totp-setup", "totp-disable", "email-send"],
          setupLabel: "Set up again (new secret and codes)",
        });

        const before = newestId();
        await page.click("#email-send");
        await expect.poll(() => visible(page, "#email-enable")).toBe(true);
        await page.fill("#email-enable [name=code]", await emailedCode(email, before));
        await page.click("#email-enable button[type=submit]");
        await expect.poll(() => status(page).textContent()).toBe("Codes by email turned on");
        await expect.poll(state).toEqual({
          shown: ["totp-setup", "totp-disable", "email-disable", "preferred"],
          setupLabel: "Set up again (new secret and codes)",
        });
        expect(await visible(page, "#email-enable")).toBe(false);
        await shot(page, "f-security-both-on");

        await page.click("#totp-disable");
        await expect.poll(() => status(page).textContent()).toBe("Authenticator app turned off");
        await expect
          .poll(state)
          .toEqual({ shown: ["totp-setup", "email-disable"], setupLabel: "Set up an authenticator app" });
      }),
    );

    it(
      "ui (f) - the sign-in's second step offers only the account's methods",
      inNewPage(async (page) => {
        const totpOnly = await createAccount("totp-only");
        const emailOnly = await createAccount("email-only");
        await enableTwoFactor(totpOnly, { totp: true });
        await enableTwoFactor(emailOnly, { email: true });

        await signIn(page, totpOnly);
        await expect.poll(() => visible(page, "#two-factor")).toBe(true);
        expect(await visible(page, "#two-factor-email")).toBe(false);
        expect(await visible(page, "#two-factor-methods")).toBe(false);
        expect(await page.locator("#two-factor-hint").textContent()).toContain("authenticator app");
        await shot(page, "f-two-factor-totp-only");

        const before = newestId();
        await page.reload();
        await signIn(page, emailOnly);
        await expect.poll(() => visible(page, "#two-factor")).toBe(true);
        expect(await visible(page, "#two-factor-methods")).toBe(false);
        // Email is its only (so preferred) method: the sign-in mailed a code already.
        expect(await page.locator("#two-factor-hint").textContent()).toContain("We emailed you a code");
        expect(await visible(page, "#two-factor-email")).toBe(true);
        await finishWithEmailedCode(page, emailOnly, before);
      }),
    );

    it(
      "ui (f) - an emailed code works with the method left at the preferred one",
      inNewPage(async (page) => {
        const email = await createAccount("preferred");
        await enableTwoFactor(email, { totp: true, email: true, preferred: "totp" });
        await signIn(page, email);
        await expect.poll(() => visible(page, "#two-factor")).toBe(true);
        const checked = () => page.locator("#two-factor-methods input:checked").getAttribute("value");
        expect(await checked()).toBe("totp");
        expect(await visible(page, "#two-factor-email")).toBe(true);
        const before = newestId();
        await page.click("#two-factor-email");
        await expect.poll(() => status(page).textContent()).toBe("A code is on its way to your inbox");
        await shot(page, "f-two-factor-email");
        // The method choice is not touched: the code is sent as the emailed one all the same.
        await finishWithEmailedCode(page, email, before);
      }),
    );

    it(
      "ui (f) - signing out hides the settings; signing in again without a reload shows that account's",
      inNewPage(async (page) => {
        const first = await createAccount("first");
        const second = await createAccount("second");
        const secret = await enableTwoFactor(second, { totp: true });
        await openSettings(page, first);
        expect(await visible(page, "#totp-disable")).toBe(false);

        await page.click("#logout");
        await expect.poll(() => visible(page, "#signed-out")).toBe(true);
        for (const hidden of ["#settings", "#security", "#signed-in", "#logout", 'nav a[href="/account"]'])
          expect({ hidden, visible: await visible(page, hidden) }).toEqual({ hidden, visible: false });
        expect(await page.locator("#me").textContent()).toBe("");
        expect(await page.locator("#security-state").textContent()).toBe("");

        // The other account, on the same page: the second step, then its own (locked) settings.
        await page.fill("#login [name=email]", second);
        await page.fill("#login [name=password]", PASSWORD);
        await page.click("#login button[type=submit]");
        await expect.poll(() => visible(page, "#two-factor")).toBe(true);
        await submitTwoFactorCode(page, referenceTotp(secret, Date.now()));
        await signedInAs(page, second);
        await page.click('nav a[href="/settings/security"]');
        await expect.poll(() => visible(page, "#security")).toBe(true);
        expect(await visible(page, "#settings")).toBe(false);
        expect(await visible(page, "#step-up")).toBe(true);
        expect(await page.locator("#security-state").textContent()).toContain("Authenticator app");
        await page.fill("#step-up [name=password]", PASSWORD);
        await page.click("#step-up button[type=submit]");
        await expect.poll(() => visible(page, "#step-up-code")).toBe(true);
        await page.fill("#step-up-code [name=code]", referenceTotp(secret, Date.now() + 30_000));
        await page.click("#step-up-code button[type=submit]");
        await expect.poll(() => visible(page, "#settings")).toBe(true);
        expect(await visible(page, "#totp-disable")).toBe(true);
        expect(await page.locator("#totp-setup").textContent()).toBe("Set up again (new secret and codes)");
        await shot(page, "f-security-second-account");
      }),
    );

    it(
      "ui (f) - a TOTP code used again within its 30-second step is explained",
      inNewPage(async (page) => {
        const email = await createAccount("reused");
        const secret = await enableTwoFactor(email, { totp: true });
        const code = referenceTotp(secret, Date.now());
        for (const attempt of [1, 2]) {
          await signIn(page, email);
          await expect.poll(() => visible(page, "#two-factor")).toBe(true);
          await submitTwoFactorCode(page, code);
          if (attempt === 2) break;
          await signedInAs(page, email);
          await page.click("#logout");
          await expect.poll(() => visible(page, "#signed-out")).toBe(true);
        }
        await expect.poll(() => status(page).textContent()).toContain("Each code works once");
        expectHuman(await status(page).textContent());
        expect(await visible(page, "#two-factor")).toBe(true);
        await shot(page, "f-reused-code");
      }),
    );

    it(
      "ui (i) - 'Keep me signed in' unticked: the auth cookies end with the browser session, on refresh too; ticked (the default): they expire later",
      inNewPage(async (page, context) => {
        const email = await createAccount("remember");
        const authCookies = async () =>
          (await context.cookies()).filter((cookie) =>
            ["access_token", "refresh_token"].includes(cookie.name),
          );
        await page.goto(`${base}/login`);
        expect(await page.locator("#login [name=rememberMe]").isChecked()).toBe(true);
        await page.fill("#login [name=email]", email);
        await page.fill("#login [name=password]", PASSWORD);
        await page.uncheck("#login [name=rememberMe]");
        await page.click("#login button[type=submit]");
        await signedInAs(page, email);
        // Playwright reports a cookie without Max-Age or Expires as `expires: -1`.
        expect((await authCookies()).map(({ name, expires }) => ({ name, expires }))).toEqual(
          expect.arrayContaining([
            { name: "access_token", expires: -1 },
            { name: "refresh_token", expires: -1 },
          ]),
        );
        const refreshed = await page.request.post(`${base}/api/auth/refresh`, { headers: { origin: base } });
        expect(refreshed.status()).toBe(200);
        const afterRefresh = await authCookies();
        expect(afterRefresh).toHaveLength(2);
        for (const cookie of afterRefresh) expect(cookie.expires).toBe(-1);

        await page.click("#logout");
        await expect.poll(() => visible(page, "#signed-out")).toBe(true);
        expect(await page.locator("#login [name=rememberMe]").isChecked()).toBe(true);
        await signIn(page, email);
        await signedInAs(page, email);
        const remembered = await authCookies();
        expect(remembered).toHaveLength(2);
        for (const cookie of remembered) expect(cookie.expires).toBeGreaterThan(Date.now() / 1000);
      }),
    );

    it("ui (h) - the session list marks this device; signing out the other sessions keeps this one, in English and German", async () => {
      for (const [locale, label, button, done] of [
        ["en-US", "This device", "Sign out other sessions", "Other sessions signed out (1)"],
        ["de-DE", "Dieses Gerät", "Andere Sitzungen abmelden", "Andere Sitzungen abgemeldet (1)"],
      ] as const) {
        const email = await createAccount(`sign-out-others-${locale.slice(0, 2)}`);
        // Another device: a session of its own, through the API.
        const elsewhere = await request.newContext({ baseURL: base, extraHTTPHeaders: { origin: base } });
        await call(elsewhere, "POST", "/login", { email, password: PASSWORD });
        const [context, page] = await newPage({ locale });
        try {
          await signIn(page, email);
          await signedInAs(page, email);
          await expect.poll(() => page.locator("#sessions li").count()).toBe(2);
          expect(await page.locator("#sessions .badge").allTextContents()).toEqual([label]);
          expect(await page.locator("#revoke-others").textContent()).toBe(button);
          for (const width of [375, 1280]) {
            await page.setViewportSize({ width, height: 900 });
            expect(await visible(page, "#revoke-others")).toBe(true);
            expect(
              await page.locator("html").evaluate((html) => (html as unknown as Box).scrollWidth),
            ).toBeLessThanOrEqual(width);
          }
          await shot(page, `h-sessions-${locale}`);

          await page.click("#revoke-others");
          await page.click("#confirm .confirm-yes");
          await expect.poll(() => status(page).textContent()).toContain(done);
          await expect.poll(() => page.locator("#sessions li").count()).toBe(1);
          expect(await page.locator("#sessions .badge").allTextContents()).toEqual([label]);
          expect(await visible(page, "#revoke-others")).toBe(false);
          // This browser is still signed in after a reload; the other device is not.
          await page.reload();
          await signedInAs(page, email);
          expect((await elsewhere.get("/api/auth/me")).status()).toBe(401);
          await shot(page, `h-sessions-after-${locale}`);
        } finally {
          await elsewhere.dispose();
          await context.close();
        }
      }
    });

    it(
      "two tabs of one browser refresh at the same moment and both stay signed in",
      inNewPage(async (first, context) => {
        const email = await createAccount("two-tabs");
        await signIn(first, email);
        await signedInAs(first, email);
        const second = await context.newPage();
        await second.goto(base);
        await signedInAs(second, email);
        const cookie = async (name: string) =>
          (await context.cookies()).find((c) => c.name === name)?.value ?? "";
        const before = await cookie("refresh_token");
        expect(before).not.toBe("");

        // Both tabs wait for the same instant of the shared clock, then POST /refresh with the
        // one refresh cookie the browser holds; the answers' cookies land in the one jar. With no
        // reuse interval (REFRESH_REUSE_SECONDS=0) one of them answers 401 and both are signed out.
        const at = Date.now() + 500;
        const refreshAt = (page: Page) =>
          page.evaluate(async (when) => {
            await new Promise((resolve) => setTimeout(resolve, when - Date.now()));
            const response = await fetch("/api/auth/refresh", { method: "POST", credentials: "same-origin" });
            return { status: response.status, code: response.headers.get("auth-error-code") };
          }, at);
        const answers = await Promise.all([refreshAt(first), refreshAt(second)]);
        expect(answers).toEqual([
          { status: 200, code: null },
          { status: 200, code: null },
        ]);
        const after = await cookie("refresh_token");
        expect(after).not.toBe(before);

        // Both tabs still act as the user: after a reload, and on the API with the jar's cookies.
        for (const page of [first, second]) {
          await page.reload();
          await signedInAs(page, email);
        }
        const me = await first.evaluate(async () => (await fetch("/api/auth/me")).status);
        expect(me).toBe(200);
        // One session (no second one was started), and it refreshes on with the newest token.
        await expect.poll(() => first.locator("#sessions li").count()).toBe(1);
        const again = await second.evaluate(
          async () => (await fetch("/api/auth/refresh", { method: "POST" })).status,
        );
        expect(again).toBe(200);
      }),
    );
    it("ui (i) - the activity page lists the account's events in words, with time, browser and IP, and shows older ones on request, in English and German", async () => {
      for (const [locale, nav, signedIn, failed, more] of [
        ["en-US", "Activity", "Signed in (password)", "Failed sign-in (wrong password)", "Show older events"],
        [
          "de-DE",
          "Aktivität",
          "Angemeldet (Passwort)",
          "Fehlgeschlagene Anmeldung (falsches Passwort)",
          "Ältere Ereignisse zeigen",
        ],
      ] as const) {
        const email = await createAccount(`activity-${locale.slice(0, 2)}`);
        // Another device: 3 wrong passwords (below the login throttle), then 8 sign-ins.
        const elsewhere = await request.newContext({
          baseURL: base,
          extraHTTPHeaders: { origin: base },
          userAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
        });
        for (let i = 0; i < 3; i += 1)
          await elsewhere.fetch("/api/auth/login", {
            method: "POST",
            data: { email, password: "not the password at all" },
          });
        for (let i = 0; i < 8; i += 1) await call(elsewhere, "POST", "/login", { email, password: PASSWORD });
        const [context, page] = await newPage({ locale });
        try {
          await signIn(page, email);
          await signedInAs(page, email);
          expect(await page.locator('nav a[href="/activity"]').textContent()).toBe(nav);
          await page.click('nav a[href="/activity"]');
          await expect.poll(() => page.locator("#activity-list li").count()).toBe(10);
          expect(new URL(page.url()).pathname).toBe("/activity");
          const titles = await page.locator("#activity-list li strong").allTextContents();
          expect(titles.slice(0, 9)).toEqual(Array(9).fill(signedIn));
          expect(titles[9]).toBe(failed);
          const lines = await page.locator("#activity-list li small").allTextContents();
          expect(lines[1]).toMatch(/Firefox 128/);
          expect(lines[1]).toMatch(/Linux/);
          const text = (await page.locator("#activity").textContent()) ?? "";
          expect(text).not.toMatch(/login\.|_|\d{4}-\d\d-\d\dT|[{}]/);
          expect(await page.locator("#activity-more").textContent()).toBe(more);
          for (const width of [375, 1280]) {
            await page.setViewportSize({ width, height: 900 });
            expect(
              await page.locator("html").evaluate((html) => (html as unknown as Box).scrollWidth),
            ).toBeLessThanOrEqual(width);
          }
          await shot(page, `i-activity-${locale}`);

          await page.click("#activity-more");
          await expect.poll(() => page.locator("#activity-list li").count()).toBe(12);
          const all = await page.locator("#activity-list li strong").allTextContents();
          expect(all.filter((title) => title === failed)).toHaveLength(3);
          expect(await visible(page, "#activity-more")).toBe(false);
          await shot(page, `i-activity-older-${locale}`);
          // A reload of the page itself lands on it again.
          await page.reload();
          await expect.poll(() => page.locator("#activity-list li").count()).toBe(10);
        } finally {
          await elsewhere.dispose();
          await context.close();
        }
      }
    });

    it("ui (g) - the user is a readable profile, times are in the viewer's locale, the favicon loads", async () => {
      const createdAt = Date.UTC(2024, 2, 5, 14, 7);
      const email = await createAccount("profile", { name: "Grace Hopper", createdAt });
      const failed: string[] = [];
      const profile = async (locale: string, timezoneId: string) => {
        const [context, page] = await newPage({ locale, timezoneId });
        page.on("response", (response) => {
          if (response.status() >= 400 && !response.url().includes("/api/auth/")) failed.push(response.url());
        });
        await signIn(page, email);
        await signedInAs(page, email);
        const rows = await page.locator("#me dt").allTextContents();
        const values = await page.locator("#me dd").allTextContents();
        const text = (await page.locator("#signed-in").textContent()) ?? "";
        expect(text).not.toMatch(/[{}"]|\d{4}-\d\d-\d\dT/);
        const sessions = (await page.locator("#sessions").textContent()) ?? "";
        await shot(page, `g-account-${locale}`);
        await context.close();
        return { profile: Object.fromEntries(rows.map((row, i) => [row, values[i]])), sessions };
      };

      const english = await profile("en-US", "America/New_York");
      expect(english.profile).toMatchObject({
        Name: "Grace Hopper",
        "Email verified": "Yes",
        "Two-factor": "Off",
      });
      expect(english.profile["Member since"]?.replace(/\s/g, " ")).toBe("Mar 5, 2024, 9:07 AM");
      expect(english.sessions).toMatch(/signed in [A-Z][a-z]{2} \d{1,2}, \d{4}/);
      const german = await profile("de-DE", "Europe/Berlin");
      expect(german.profile).toMatchObject({ Name: "Grace Hopper", "E-Mail bestätigt": "Ja" });
      expect(german.profile["Mitglied seit"]).toBe("05.03.2024, 15:07");
      expect(german.sessions).toMatch(/angemeldet \d\d\.\d\d\.\d{4}, \d\d:\d\d/);
      expect(failed).toEqual([]);

      const [context, page] = await newPage();
      await page.goto(base);
      const icon = await page.locator('link[rel="icon"]').getAttribute("href");
      for (const path of [icon ?? "", "/favicon.ico"]) {
        const response = await page.request.get(new URL(path, base).href);
        expect({ path, status: response.status() }).toEqual({ path, status: 200 });
        expect(response.headers()["content-type"]).toMatch(/^image\//);
      }
      await context.close();
    });

    // ---- Issue 27: sessions that last, and the rough edges ------------------------------------
    const LOCALES = [
      ["en-US", "en"],
      ["de-DE", "de"],
    ] as const;
    const focusedHeading = (page: Page) =>
      page.evaluate(() => {
        const active = (
          globalThis as unknown as {
            document: { activeElement: { tagName: string; textContent: string } | null };
          }
        ).document.activeElement;
        return `${active?.tagName}:${active?.textContent?.trim()}`;
      });

    /** A server of its own whose access tokens last 2 s (ACCESS_TOKEN_TTL_SECONDS), for `test`. */
    const withShortTokens = async (test: (origin: string, short: ExampleAuth) => Promise<void>) => {
      const port = await freePort();
      const config = readConfig({
        PORT: String(port),
        AUTH_SECRET: "browser-test-secret-short-ttl-8FUEkbfGmZuCKl4LKq1PwYVt0_5Gi80v",
        ACCESS_TOKEN_TTL_SECONDS: "2",
      });
      expect(config.accessTokenTtlSeconds).toBe(2);
      const short = await createExampleAuth(config, { passwordHasher: hasher });
      const shortServer = await options.start(short, port);
      try {
        await test(config.appOrigin, short);
      } finally {
        await shortServer.close();
        short.close();
      }
    };
    /** The auth routes a page asks for, in order (path below /api/auth, and the answer's status). */
    const authTraffic = (page: Page) => {
      const seen: string[] = [];
      page.on("response", (response) => {
        const path = new URL(response.url()).pathname;
        if (path.startsWith("/api/auth/")) seen.push(`${path.slice(9)} ${response.status()}`);
      });
      return seen;
    };

    it("ui (27a) - the page stays signed in past the access token's lifetime: the client refreshes before the next call, once, in English and German", async () => {
      await withShortTokens(async (origin, short) => {
        for (const [locale, lang] of LOCALES) {
          const email = await createAccount(`short-ttl-${lang}`, {}, short);
          await inNewPage({ locale }, async (page, context) => {
            const traffic = authTraffic(page);
            await page.goto(`${origin}/login`);
            await page.fill("#login [name=email]", email);
            await page.fill("#login [name=password]", PASSWORD);
            await page.click("#login button[type=submit]");
            await signedInAs(page, email);
            await page.waitForTimeout(3_000);
            // The access cookie is gone with its token; the refresh cookie stays.
            const names = (await context.cookies()).map((cookie) => cookie.name);
            expect(names).not.toContain("access_token");
            traffic.length = 0;
            // An action after the lifetime: a step-up (then /me and /sessions). The client knew the
            // expiry from the sign-in's answer: it refreshes first, once, before any call is refused.
            await page.click('nav a[href="/settings/security"]');
            await page.fill("#step-up [name=password]", PASSWORD);
            await page.click("#step-up button[type=submit]");
            await expect.poll(() => visible(page, "#settings"), { timeout: 10_000 }).toBe(true);
            expect(await visible(page, "#signed-out")).toBe(false);
            expect(traffic[0]).toBe("/refresh 200");
            expect(traffic.filter((line) => line.startsWith("/refresh"))).toHaveLength(1);
            // Past the lifetime again, a reload (the client knows no expiry yet) is still signed in.
            await page.waitForTimeout(2_500);
            await page.reload();
            await page.click('nav a[href="/account"]');
            await signedInAs(page, email);
            expect((await status(page).textContent()) ?? "").not.toMatch(/sign in|melde dich/i);
          })();
        }
      });
    }, 60_000);

    it("ui (27k) - two tabs of one browser refresh at the same moment and both stay signed in, in English and German", async () => {
      await withShortTokens(async (origin, short) => {
        for (const [locale, lang] of LOCALES) {
          const email = await createAccount(`two-tabs-${lang}`, {}, short);
          const [context, first] = await newPage({ locale });
          try {
            await first.goto(`${origin}/login`);
            await first.fill("#login [name=email]", email);
            await first.fill("#login [name=password]", PASSWORD);
            await first.click("#login button[type=submit]");
            await signedInAs(first, email);
            const second = await context.newPage();
            await second.goto(`${origin}/account`);
            await signedInAs(second, email);
            const tabs = [first, second];
            const traffic = tabs.map(authTraffic);
            await first.waitForTimeout(3_000);
            // Both tabs act at once, past the access token's lifetime: each needs a refresh.
            await Promise.all(tabs.map((tab) => tab.click('nav a[href="/activity"]')));
            for (const [index, tab] of tabs.entries()) {
              try {
                await expect
                  .poll(() => tab.locator("#activity-list li").count(), { timeout: 20_000 })
                  .toBeGreaterThan(0);
              } catch (error) {
                // What each tab asked and was answered, and what this one shows, for the report.
                const shows = await status(tab).textContent();
                throw new Error(
                  `tab ${index + 1} shows no activity (status: ${shows}); auth traffic: ${JSON.stringify(traffic)}`,
                  { cause: error },
                );
              }
            }
            const refreshes = traffic.flat().filter((line) => line.startsWith("/refresh"));
            expect(refreshes.length).toBeGreaterThanOrEqual(1);
            expect(refreshes.every((line) => line === "/refresh 200")).toBe(true);
            // Still signed in, both, on the next action.
            for (const tab of tabs) {
              await tab.click('nav a[href="/account"]');
              await signedInAs(tab, email);
              expect(await visible(tab, "#signed-out")).toBe(false);
            }
          } finally {
            await context.close();
          }
        }
      });
    }, 60_000);

    it("ui (27l) - the second step works with a dead access cookie in the browser: email me a code, then the code, in English and German", async () => {
      for (const [locale, lang] of LOCALES) {
        const earlier = await createAccount(`dead-cookie-earlier-${lang}`);
        const withEmail = await createAccount(`dead-cookie-email-${lang}`);
        await enableTwoFactor(withEmail, { email: true });
        await inNewPage({ locale }, async (page, context) => {
          await signIn(page, earlier);
          await signedInAs(page, earlier);
          const access = (await context.cookies()).find((cookie) => cookie.name === "access_token");
          expect(access).toBeDefined();
          // The session ends elsewhere: this browser's access cookie is dead.
          const elsewhere = await request.newContext({ baseURL: base, extraHTTPHeaders: { origin: base } });
          await call(elsewhere, "POST", "/login", { email: earlier, password: PASSWORD });
          await call(elsewhere, "DELETE", "/sessions");
          await elsewhere.dispose();
          await signIn(page, withEmail);
          await expect.poll(() => visible(page, "#two-factor")).toBe(true);
          // The page's own refresh attempt may have cleared it: the dead cookie is put back.
          if (access) await context.addCookies([access]);
          expect((await context.cookies()).map((cookie) => cookie.name)).toContain("access_token");
          // The login's code went out with the sign-in; past the cooldown (1 s), ask for another.
          await page.waitForTimeout(1_200);
          const before = newestId();
          await page.click("#two-factor-email");
          await expect
            .poll(() => status(page).textContent())
            .toBe(
              lang === "en"
                ? "A code is on its way to your inbox"
                : "Ein Code ist unterwegs in dein Postfach",
            );
          await finishWithEmailedCode(page, withEmail, before);
          expect(await visible(page, "#two-factor")).toBe(false);
        })();
      }
    }, 60_000);

    it("ui (27m) - every empty form shows a readable message under each required field, in English and German", async () => {
      const expected = {
        en: {
          "/login#login": ["Enter your email address.", "Enter your password."],
          "/signup#signup": ["Enter your email address.", "Enter your password."],
          "/forgot-password#forgot-password": ["Enter your email address."],
          "/reset-password?token=x#reset-password": ["Enter a new password."],
        },
        de: {
          "/login#login": ["Gib deine E-Mail-Adresse ein.", "Gib dein Passwort ein."],
          "/signup#signup": ["Gib deine E-Mail-Adresse ein.", "Gib dein Passwort ein."],
          "/forgot-password#forgot-password": ["Gib deine E-Mail-Adresse ein."],
          "/reset-password?token=x#reset-password": ["Gib ein neues Passwort ein."],
        },
      };
      for (const [locale, lang] of LOCALES) {
        await inNewPage({ locale }, async (page) => {
          const sent: string[] = [];
          page.on("request", (req) => {
            // The sign-in page's passkey autofill asks for its challenge on its own (issue 29).
            const autofill = req.url().endsWith("/api/auth/passkeys/login/options");
            if (req.method() === "POST" && !autofill) sent.push(new URL(req.url()).pathname);
          });
          for (const [target, texts] of Object.entries(expected[lang])) {
            const [path, form] = target.split("#");
            await page.goto(`${base}${path}`);
            await page.click(`#${form} button[type=submit]`);
            expect(await page.locator(`#${form} .field-error`).allTextContents(), target).toEqual(texts);
            const required = await page.locator(`#${form} input[required]`).count();
            expect(await page.locator(`#${form} [aria-invalid=true]`).count(), target).toBe(required);
            expect(await status(page).textContent()).toBe(
              lang === "en" ? "Please check the marked fields." : "Bitte prüfe die markierten Felder.",
            );
            for (const text of texts) expectHuman(text);
          }
          expect(sent).toEqual([]);
        })();
      }
    }, 60_000);

    it("ui (27b) - a session revoked elsewhere shows signed out at once: on the next poll, on visibility, in English and German", async () => {
      for (const [locale, lang] of LOCALES) {
        const email = await createAccount(`revoked-elsewhere-${lang}`);
        await inNewPage({ locale }, async (page) => {
          await page.clock.install();
          await signIn(page, email);
          await signedInAs(page, email);
          const elsewhere = await request.newContext({ baseURL: base, extraHTTPHeaders: { origin: base } });
          await call(elsewhere, "POST", "/login", { email, password: PASSWORD });
          await call(elsewhere, "DELETE", "/sessions");
          await elsewhere.dispose();
          if (lang === "en") {
            // The 30 s poll, without a click.
            await page.clock.runFor(31_000);
          } else {
            // The tab comes back into view.
            await page.evaluate(() =>
              (
                globalThis as unknown as { document: { dispatchEvent(event: unknown): void } }
              ).document.dispatchEvent(new Event("visibilitychange")),
            );
          }
          await expect.poll(() => visible(page, "#signed-out")).toBe(true);
          expect(await visible(page, "#signed-in")).toBe(false);
          expect(await page.locator("#me").textContent()).toBe("");
          expect(await status(page).textContent()).toBe(
            lang === "en"
              ? "You were signed out (this session was ended elsewhere). Please sign in again."
              : "Du wurdest abgemeldet (diese Sitzung wurde anderswo beendet). Bitte melde dich erneut an.",
          );
          expect(new URL(page.url()).pathname).toBe("/login");
        })();
      }
    }, 60_000);

    it("ui (27c) - the second step: no stale banner, a back link, a reload keeps it, recovery codes only with an authenticator app, in English and German", async () => {
      for (const [locale, lang] of LOCALES) {
        const emailOnly = await createAccount(`second-step-email-${lang}`);
        await enableTwoFactor(emailOnly, { email: true });
        const withApp = await createAccount(`second-step-totp-${lang}`);
        await enableTwoFactor(withApp, { totp: true });
        await inNewPage({ locale }, async (page, context) => {
          // A banner from before (a wrong password) does not stay on the second step.
          await signIn(page, emailOnly, "not the password");
          await expect.poll(() => status(page).isVisible()).toBe(true);
          await signIn(page, emailOnly);
          await expect.poll(() => visible(page, "#two-factor")).toBe(true);
          expect(await status(page).isVisible()).toBe(false);
          expect(await focusedHeading(page)).toBe(lang === "en" ? "H1:Second step" : "H1:Zweiter Schritt");
          expect(await visible(page, "#two-factor-recover")).toBe(false);
          // A reload keeps the second step, and says so.
          await page.reload();
          await expect.poll(() => visible(page, "#two-factor")).toBe(true);
          expect(await status(page).textContent()).toBe(
            lang === "en"
              ? "Your sign-in is waiting for its second step."
              : "Deine Anmeldung wartet auf den zweiten Schritt.",
          );
          for (const width of [375, 1280]) {
            await page.setViewportSize({ width, height: 900 });
            expect(await visible(page, "#two-factor-back")).toBe(true);
          }
          await shot(page, `27c-second-step-${lang}`);
          expect(await page.locator("#two-factor-back").textContent()).toBe(
            lang === "en" ? "Back to sign in" : "Zurück zur Anmeldung",
          );
          await page.click("#two-factor-back");
          await expect.poll(() => visible(page, "#signed-out")).toBe(true);
          await page.reload();
          await expect.poll(() => visible(page, "#signed-out")).toBe(true);

          await signIn(page, withApp);
          await expect.poll(() => visible(page, "#two-factor")).toBe(true);
          expect(await visible(page, "#two-factor-recover")).toBe(true);
          // A second step whose token ran out: back to the sign-in form, saying why.
          await page.reload();
          await expect.poll(() => visible(page, "#two-factor")).toBe(true);
          await context.clearCookies({ name: "two_factor_authentication_token" });
          await submitTwoFactorCode(page, "123456");
          await expect.poll(() => visible(page, "#signed-out")).toBe(true);
          expect(await status(page).textContent()).toBe(
            lang === "en"
              ? "The sign-in took too long. Please sign in again."
              : "Die Anmeldung hat zu lange gedauert. Bitte melde dich erneut an.",
          );
        })();
      }
    }, 60_000);

    it("ui (27d) - dates and numbers follow the chosen language, not the browser's", async () => {
      const email = await createAccount("dates-de", { createdAt: Date.UTC(2024, 2, 5, 14, 7) });
      const [context, page] = await newPage({ locale: "en-US", timezoneId: "Europe/Berlin" });
      try {
        await signIn(page, email);
        await signedInAs(page, email);
        await page.selectOption("#language", "de");
        const rows = await page.locator("#me dt").allTextContents();
        const values = await page.locator("#me dd").allTextContents();
        expect(values[rows.indexOf("Mitglied seit")]).toBe("05.03.2024, 15:07");
        expect(await page.locator("#sessions").textContent()).toMatch(
          /angemeldet \d\d\.\d\d\.\d{4}, \d\d:\d\d/,
        );
      } finally {
        await context.close();
      }
    });

    it("ui (27e) - a wrong password on the security page has its own message, in English and German", async () => {
      for (const [locale, lang] of LOCALES) {
        const email = await createAccount(`step-up-wrong-${lang}`);
        await inNewPage({ locale }, async (page) => {
          await signIn(page, email);
          await signedInAs(page, email);
          await page.click('nav a[href="/settings/security"]');
          await page.fill("#step-up [name=password]", "not the password");
          await page.click("#step-up button[type=submit]");
          await expect
            .poll(() => status(page).textContent())
            .toBe(
              lang === "en"
                ? "That password is not right. Enter the password of this account."
                : "Dieses Passwort stimmt nicht. Gib das Passwort dieses Kontos ein.",
            );
          expect(await visible(page, "#settings")).toBe(false);
          await signedInAs(page, email);
        })();
      }
    });

    it("ui (27f) - revoking a session and signing out everywhere ask first, in the page, in English and German at 375 and 1280 px", async () => {
      for (const [locale, lang] of LOCALES) {
        const email = await createAccount(`confirm-${lang}`);
        const elsewhere = await request.newContext({ baseURL: base, extraHTTPHeaders: { origin: base } });
        await call(elsewhere, "POST", "/login", { email, password: PASSWORD });
        const [context, page] = await newPage({ locale });
        try {
          await signIn(page, email);
          await signedInAs(page, email);
          await expect.poll(() => page.locator("#sessions li").count()).toBe(2);
          // The other session's "Revoke": a question first; "Cancel" leaves both sessions.
          await page
            .locator("#sessions li", { hasNot: page.locator(".badge") })
            .locator("button")
            .click();
          await expect.poll(() => visible(page, "#confirm")).toBe(true);
          expect(await page.locator("#confirm-question").textContent()).toContain(
            lang === "en" ? "Sign out the session" : "Die Sitzung",
          );
          for (const width of [375, 1280]) {
            await page.setViewportSize({ width, height: 900 });
            expect(await visible(page, "#confirm .confirm-yes")).toBe(true);
            expect(
              await page.locator("html").evaluate((html) => (html as unknown as Box).scrollWidth),
            ).toBeLessThanOrEqual(width);
          }
          await shot(page, `27f-confirm-${lang}`);
          await page.click("#confirm .confirm-cancel");
          expect(await visible(page, "#confirm")).toBe(false);
          expect(await page.locator("#sessions li").count()).toBe(2);
          expect((await elsewhere.get("/api/auth/me")).status()).toBe(200);
          // "Sign out everywhere": asked, then done only on "Yes".
          await page.click("#revoke-all");
          expect(await page.locator("#confirm .confirm-yes").textContent()).toBe(
            lang === "en" ? "Yes, sign out everywhere" : "Ja, überall abmelden",
          );
          await signedInAs(page, email);
          await page.click("#confirm .confirm-yes");
          await expect.poll(() => visible(page, "#signed-out")).toBe(true);
          expect(await status(page).textContent()).toBe(
            lang === "en" ? "Signed out everywhere" : "Überall abgemeldet",
          );
          expect((await elsewhere.get("/api/auth/me")).status()).toBe(401);
        } finally {
          await elsewhere.dispose();
          await context.close();
        }
      }
    }, 60_000);

    it("ui (27g) - a 429 on sign-in disables the button for its countdown, in English and German", async () => {
      for (const [locale, lang] of LOCALES) {
        await inNewPage({ locale }, async (page) => {
          // The throttled answer as the API gives it (LOGIN_THROTTLED with `remaining`).
          await page.route("**/api/auth/login", (route) =>
            route.fulfill({
              status: 429,
              headers: { "content-type": "application/json", "auth-error-code": "LOGIN_THROTTLED" },
              body: JSON.stringify({ code: "LOGIN_THROTTLED", message: "Too many attempts.", remaining: 2 }),
            }),
          );
          await signIn(page, "someone@example.test");
          const submit = page.locator("#login button[type=submit]");
          await expect.poll(() => submit.isDisabled()).toBe(true);
          expect(await status(page).textContent()).toContain(
            lang === "en" ? "Try again in" : "Versuche es in",
          );
          await expect.poll(() => submit.isDisabled(), { timeout: 5_000 }).toBe(false);
        })();
      }
    });

    it("ui (27h) - focus moves to the new view's heading after a view change", async () => {
      const [context, page] = await newPage();
      try {
        await page.goto(`${base}/login`);
        await page.click('nav a[href="/signup"]');
        expect(await focusedHeading(page)).toBe("H1:Create an account");
        await page.click('#signup a[href="/login"]');
        expect(await focusedHeading(page)).toBe("H1:Sign in");
      } finally {
        await context.close();
      }
    });

    it("ui (27i) - forms check every field before sending and show readable messages; API field errors land under their fields, in English and German", async () => {
      for (const [locale, lang] of LOCALES) {
        await inNewPage({ locale }, async (page) => {
          const sent: string[] = [];
          page.on("request", (req) => {
            // The sign-in page's passkey autofill asks for its challenge on its own (issue 29).
            const autofill = req.url().endsWith("/api/auth/passkeys/login/options");
            if (req.method() === "POST" && !autofill) sent.push(new URL(req.url()).pathname);
          });
          await page.goto(`${base}/login`);
          await page.click("#login button[type=submit]");
          const loginErrors = await page.locator("#login .field-error").allTextContents();
          expect(loginErrors).toEqual(
            lang === "en"
              ? ["Enter your email address.", "Enter your password."]
              : ["Gib deine E-Mail-Adresse ein.", "Gib dein Passwort ein."],
          );
          expect(await page.locator("#login [aria-invalid=true]").count()).toBe(2);
          for (const text of loginErrors) expectHuman(text);

          await page.goto(`${base}/signup`);
          await page.fill("#signup [name=email]", "not-an-address");
          await page.click("#signup button[type=submit]");
          expect(await page.locator("#signup .field-error").allTextContents()).toEqual(
            lang === "en"
              ? ["Enter an email address like name@example.com.", "Enter your password."]
              : ["Gib eine E-Mail-Adresse wie name@example.com ein.", "Gib dein Passwort ein."],
          );
          await shot(page, `27i-signup-fields-${lang}`);
          // Nothing was sent for either form (and a browser never signed in tries no refresh).
          expect(sent).toEqual([]);

          // The API's per-field errors: its message when it has one, else ours for the field.
          await page.route("**/api/auth/register", (route) =>
            route.fulfill({
              status: 400,
              headers: { "content-type": "application/json", "auth-error-code": "VALIDATION_ERROR" },
              body: JSON.stringify({
                code: "VALIDATION_ERROR",
                message: "x",
                errors: [
                  { path: "password", code: "too_short", message: "Use 12 characters or more." },
                  { path: "email", code: "invalid" },
                ],
              }),
            }),
          );
          await page.fill("#signup [name=email]", "someone@example.test");
          await page.fill("#signup [name=password]", "short");
          await page.click("#signup button[type=submit]");
          await expect.poll(() => page.locator("#signup .field-error").count()).toBe(2);
          expect(await page.locator("#signup [name=email] ~ .field-error").textContent()).toBe(
            lang === "en" ? "Enter a valid email address." : "Gib eine gültige E-Mail-Adresse ein.",
          );
          expect(await page.locator("#signup [name=password] ~ .field-error").textContent()).toBe(
            "Use 12 characters or more.",
          );
        })();
      }
    });

    // ---- Issues 28 and 30: account settings, the breached-password prompt ---------------------
    /** Opens the account settings from the account page's link, or from the nav's. */
    const openAccountSettings = async (page: Page, from: "account" | "nav" = "account") => {
      await page.click(`${from === "nav" ? "nav" : "#signed-in"} a[href="/settings/account"]`);
      await expect.poll(() => visible(page, "#account-settings")).toBe(true);
    };
    /** Confirms the password in the step-up box the settings page shows (the security page's own). */
    const stepUpInAccountSettings = async (page: Page) => {
      expect(await visible(page, "#account-changes")).toBe(false);
      await page.fill("#account-settings #step-up [name=password]", PASSWORD);
      await page.click("#account-settings #step-up button[type=submit]");
      await expect.poll(() => visible(page, "#account-changes")).toBe(true);
    };
    /** The status of a password sign-in through the API (its own cookie jar, not the browser's). */
    const loginStatus = async (email: string, password: string, origin = base) => {
      const api = await request.newContext({ baseURL: origin, extraHTTPHeaders: { origin } });
      try {
        return (await api.post("/api/auth/login", { data: { email, password } })).status();
      } finally {
        await api.dispose();
      }
    };
    const focusedName = (page: Page) =>
      page.evaluate(() => {
        const doc = (globalThis as unknown as { document: { activeElement: { id: string; name?: string } } })
          .document;
        return doc.activeElement.name || doc.activeElement.id;
      });
    /**
     * A server of its own with the breached-password check on (BREACHED_PASSWORDS_URL) against a
     * fake range API on 127.0.0.1 that knows `breached`, for `test`.
     */
    const withBreachedCheck = async (
      breached: string[],
      test: (origin: string, instance: ExampleAuth, api: FakeRangeServer) => Promise<void>,
    ) => {
      const api = await startFakeRangeServer(breached);
      const port = await freePort();
      const config = readConfig({
        PORT: String(port),
        AUTH_SECRET: "browser-test-secret-breached-0viRL3zW2SMQ_8FUEkbfGmZuCKl4LKq1Pw",
        BREACHED_PASSWORDS_URL: api.rangeUrl,
      });
      expect(config.breachedPasswordsUrl).toBe(api.rangeUrl);
      const instance = await createExampleAuth(config, { passwordHasher: hasher });
      const instanceServer = await options.start(instance, port);
      try {
        await test(config.appOrigin, instance, api);
      } finally {
        await instanceServer.close();
        instance.close();
        await api.stop();
      }
    };
    const NEW_PASSWORD = "a new passphrase for this account";

    it("ui (28a) - change password: wrong current password, a policy error under its field, then success signs the other sessions out and the old password no longer works, in English and German", async () => {
      for (const [locale, lang] of LOCALES) {
        const email = await createAccount(`password-change-${lang}`);
        const elsewhere = await request.newContext({ baseURL: base, extraHTTPHeaders: { origin: base } });
        await call(elsewhere, "POST", "/login", { email, password: PASSWORD });
        const [context, page] = await newPage({ locale });
        try {
          await signIn(page, email);
          await signedInAs(page, email);
          await openAccountSettings(page, "nav");
          expect(await focusedHeading(page)).toBe(
            lang === "en" ? "H1:Account settings" : "H1:Kontoeinstellungen",
          );
          const form = page.locator("#password-change");
          // Empty: a message under each field, nothing sent.
          await form.locator("button[type=submit]").click();
          expect(await form.locator(".field-error").allTextContents()).toEqual(
            lang === "en"
              ? ["Enter your current password.", "Enter a new password."]
              : ["Gib dein aktuelles Passwort ein.", "Gib ein neues Passwort ein."],
          );
          // A wrong current password: its own words under the field, which has the focus.
          await form.locator("[name=currentPassword]").fill("not the password");
          await form.locator("[name=newPassword]").fill(NEW_PASSWORD);
          await form.locator("button[type=submit]").click();
          const wrong =
            lang === "en" ? "Your current password is not right." : "Dein aktuelles Passwort stimmt nicht.";
          await expect
            .poll(() => form.locator("[name=currentPassword] ~ .field-error").textContent())
            .toBe(wrong);
          expect(await status(page).textContent()).toBe(wrong);
          expect(await form.locator("[name=currentPassword]").getAttribute("aria-invalid")).toBe("true");
          expect(await focusedName(page)).toBe("currentPassword");
          // The policy (8 characters at least): the API's field message under the new password.
          await form.locator("[name=currentPassword]").fill(PASSWORD);
          await form.locator("[name=newPassword]").fill("short");
          await form.locator("button[type=submit]").click();
          await expect.poll(() => form.locator("[name=newPassword] ~ .field-error").count()).toBe(1);
          expectHuman(await form.locator("[name=newPassword] ~ .field-error").textContent());
          expect(await form.locator("[name=currentPassword] ~ .field-error").count()).toBe(0);
          await shot(page, `28a-password-error-${lang}`);
          // A 429 (the current password shares the login budget): the button waits out the countdown.
          await page.route("**/api/auth/password/change", (route) =>
            route.fulfill({
              status: 429,
              headers: { "content-type": "application/json", "auth-error-code": "LOGIN_THROTTLED" },
              body: JSON.stringify({ code: "LOGIN_THROTTLED", message: "Too many attempts.", remaining: 2 }),
            }),
          );
          const submit = form.locator("button[type=submit]");
          await form.locator("[name=newPassword]").fill(NEW_PASSWORD);
          await submit.click();
          await expect.poll(() => submit.isDisabled()).toBe(true);
          expect(await status(page).textContent()).toContain(
            lang === "en" ? "Try again in" : "Versuche es in",
          );
          await expect.poll(() => submit.isDisabled(), { timeout: 5_000 }).toBe(false);
          await page.unroute("**/api/auth/password/change");
          expect((await elsewhere.get("/api/auth/me")).status()).toBe(200);
          // Success: said so, the other session is signed out, this one stays.
          await form.locator("[name=newPassword]").fill(NEW_PASSWORD);
          await form.locator("button[type=submit]").click();
          await expect
            .poll(() => status(page).textContent())
            .toBe(
              lang === "en"
                ? "Password changed. Your other sessions were signed out."
                : "Passwort geändert. Deine anderen Sitzungen wurden abgemeldet.",
            );
          await expect.poll(() => form.locator("[name=currentPassword]").inputValue()).toBe("");
          await shot(page, `28a-password-changed-${lang}`);
          expect((await elsewhere.get("/api/auth/me")).status()).toBe(401);
          expect(await page.evaluate(() => fetch("/api/auth/me").then((reply) => reply.status))).toBe(200);
          expect(await loginStatus(email, PASSWORD)).toBe(401);
          expect(await loginStatus(email, NEW_PASSWORD)).toBe(200);
        } finally {
          await elsewhere.dispose();
          await context.close();
        }
      }
    }, 90_000);

    it("ui (28b) - change email end to end: a step-up, the link from the outbox opens a page that confirms only on its button (a POST), the account shows the new address, the old one no longer signs in, in English and German", async () => {
      for (const [locale, lang] of LOCALES) {
        const email = await createAccount(`email-change-${lang}`);
        const newEmail = `moved-${lang}-${accounts}@example.test`;
        await inNewPage({ locale }, async (page) => {
          await signIn(page, email);
          await signedInAs(page, email);
          await openAccountSettings(page);
          // The address, the export and the deletion wait for the step-up; then the focus moves on.
          await shot(page, `28b-settings-step-up-${lang}`);
          await stepUpInAccountSettings(page);
          expect(await focusedName(page)).toBe("newEmail");
          expect(await page.locator("#email-change-current").textContent()).toContain(email);
          await page.fill("#email-change [name=newEmail]", "not-an-address");
          await page.click("#email-change button[type=submit]");
          expect(await page.locator("#email-change .field-error").allTextContents()).toEqual([
            lang === "en"
              ? "Enter an email address like name@example.com."
              : "Gib eine E-Mail-Adresse wie name@example.com ein.",
          ]);
          await page.fill("#email-change [name=newEmail]", newEmail);
          await page.click("#email-change button[type=submit]");
          await expect
            .poll(() => status(page).textContent())
            .toBe(
              lang === "en"
                ? `Check your inbox at ${newEmail}: the link there confirms the new address.`
                : `Schau in dein Postfach unter ${newEmail}: Der Link dort bestätigt die neue Adresse.`,
            );
          await shot(page, `28b-email-sent-${lang}`);

          const link = await linkFromOutbox(page, "email-change", newEmail);
          expect(new URL(link).pathname).toBe("/confirm-email-change");
          // Opening the link (as a mail scanner would) changes nothing.
          await page.goto(link);
          await expect.poll(() => visible(page, "#email-change-confirm")).toBe(true);
          expect(await page.locator("#confirm-email-change h1").textContent()).toBe(
            lang === "en" ? "Confirm your new email address" : "Neue E-Mail-Adresse bestätigen",
          );
          expect(await example.stores.users.findByEmail(email)).not.toBeNull();
          expect(await example.stores.users.findByEmail(newEmail)).toBeNull();
          await shot(page, `28b-confirm-${lang}`);
          await page.click("#email-change-confirm");
          await expect.poll(() => page.locator("#email-change-result").textContent()).toContain(newEmail);
          expect(await page.locator("#email-change-result").getAttribute("class")).toBe("ok");
          expect(new URL(page.url()).search).toBe("");
          await shot(page, `28b-confirmed-${lang}`);
          await page.click('#confirm-email-change a[href="/"]');
          await signedInAs(page, newEmail);
          expect(await loginStatus(email, PASSWORD)).toBe(401);
          expect(await loginStatus(newEmail, PASSWORD)).toBe(200);
          await newestEmail("email-changed", email);
          // The link again: refused, in words.
          await page.goto(link);
          await page.click("#email-change-confirm");
          await expect.poll(() => page.locator("#email-change-result").getAttribute("class")).toBe("error");
          expectHuman(await page.locator("#email-change-result").textContent());
        })();
      }
    }, 90_000);

    it("ui (28c) - download my data gives a JSON file without hashes; delete account asks in the page, needs the step-up, and the account cannot sign in afterwards, in English and German", async () => {
      for (const [locale, lang] of LOCALES) {
        const email = await createAccount(`delete-${lang}`);
        await inNewPage({ locale }, async (page) => {
          await signIn(page, email);
          await signedInAs(page, email);
          await openAccountSettings(page);
          await stepUpInAccountSettings(page);
          const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export-data")]);
          expect(download.suggestedFilename()).toMatch(/\.json$/);
          const text = await readFile((await download.path()) ?? "", "utf8");
          const data = JSON.parse(text) as { user: { email: string }; sessions: unknown[] };
          expect(data.user.email).toBe(email);
          expect(data.sessions.length).toBeGreaterThan(0);
          expect(text).not.toMatch(/argon2|passwordHash|secret|recoveryCodeHashes|token/i);
          expect(await status(page).textContent()).toBe(
            lang === "en"
              ? "Your data was downloaded as a JSON file."
              : "Deine Daten wurden als JSON-Datei heruntergeladen.",
          );

          // Delete: a question in the page first; "Cancel" keeps the account.
          await page.click("#delete-account");
          await expect.poll(() => visible(page, "#delete-confirm")).toBe(true);
          expect(await focusedName(page)).toBe("delete-cancel");
          expect(await page.locator("#delete-question").textContent()).toContain(
            lang === "en" ? "Delete your account for good?" : "Dein Konto endgültig löschen?",
          );
          await shot(page, `28c-delete-confirm-${lang}`);
          await page.click("#delete-cancel");
          expect(await visible(page, "#delete-confirm")).toBe(false);
          expect(await focusedName(page)).toBe("delete-account");
          expect(await example.stores.users.findByEmail(email)).not.toBeNull();
          await page.click("#delete-account");
          await page.click("#delete-yes");
          await expect.poll(() => visible(page, "#signed-out")).toBe(true);
          expect(await status(page).textContent()).toBe(
            lang === "en"
              ? "Your account was deleted. Goodbye!"
              : "Dein Konto wurde gelöscht. Auf Wiedersehen!",
          );
          expect(await example.stores.users.findByEmail(email)).toBeNull();
          await signIn(page, email);
          await expect
            .poll(() => status(page).textContent())
            .toBe(
              lang === "en"
                ? "The email address or password is wrong."
                : "E-Mail-Adresse oder Passwort ist falsch.",
            );
        })();
      }
    }, 90_000);

    it("ui (30a) - a sign-in with a breached password leads to the change-password form; a breached new password is refused under its field, a clean one ends the prompt, in English and German", async () => {
      const BREACHED_NEW = "another leaked passphrase 2019";
      await withBreachedCheck([PASSWORD, BREACHED_NEW], async (origin, instance, api) => {
        for (const [locale, lang] of LOCALES) {
          const email = await createAccount(`breached-${lang}`, {}, instance);
          await inNewPage({ locale }, async (page) => {
            await page.goto(`${origin}/login`);
            await page.fill("#login [name=email]", email);
            await page.fill("#login [name=password]", PASSWORD);
            await page.click("#login button[type=submit]");
            await expect.poll(() => visible(page, "#breached-notice")).toBe(true);
            expect(new URL(page.url()).pathname).toBe("/settings/account");
            expect(await page.locator("#breached-notice").getAttribute("role")).toBe("alert");
            expect(await page.locator("#breached-notice h2").textContent()).toBe(
              lang === "en" ? "Your password is in a data breach" : "Dein Passwort steht in einem Datenleck",
            );
            expect(api.requests.length).toBeGreaterThan(0);
            await shot(page, `30a-breached-notice-${lang}`);
            await page.click("#breached-change");
            expect(await focusedName(page)).toBe("currentPassword");
            const form = page.locator("#password-change");
            await form.locator("[name=currentPassword]").fill(PASSWORD);
            await form.locator("[name=newPassword]").fill(BREACHED_NEW);
            await form.locator("button[type=submit]").click();
            await expect
              .poll(() => form.locator("[name=newPassword] ~ .field-error").textContent())
              .toContain(lang === "en" ? "data breach" : "Datenleck");
            expect(await form.locator("[name=newPassword]").getAttribute("aria-invalid")).toBe("true");
            await shot(page, `30a-breached-refused-${lang}`);
            await form.locator("[name=newPassword]").fill(NEW_PASSWORD);
            await form.locator("button[type=submit]").click();
            await expect.poll(() => visible(page, "#breached-notice")).toBe(false);
            expect(await status(page).textContent()).toContain(
              lang === "en" ? "Password changed" : "Passwort geändert",
            );
            // Signed in again with the new password: the account, no prompt.
            await page.click("#logout");
            await expect.poll(() => visible(page, "#signed-out")).toBe(true);
            await page.fill("#login [name=email]", email);
            await page.fill("#login [name=password]", NEW_PASSWORD);
            await page.click("#login button[type=submit]");
            await signedInAs(page, email);
            await expect.poll(() => new URL(page.url()).pathname).toBe("/account");
            expect(await visible(page, "#breached-notice")).toBe(false);
          })();
        }
      });
    }, 90_000);

    it("ui (30b) - a breached password with a second factor: the prompt follows the emailed code's sign-in, in English and German", async () => {
      await withBreachedCheck([PASSWORD], async (origin, instance) => {
        const mails = instance.outbox as OutboxMailer;
        for (const [locale, lang] of LOCALES) {
          const email = await createAccount(`breached-2fa-${lang}`, {}, instance);
          const user = await instance.stores.users.findByEmail(email);
          await instance.stores.users.update(user?.id ?? "", {
            twoFactor: {
              methods: ["email"],
              preferredMethod: "email",
              totpSecretEncrypted: null,
              recoveryCodeHashes: [],
            },
          });
          await inNewPage({ locale }, async (page) => {
            await page.goto(`${origin}/login`);
            await page.fill("#login [name=email]", email);
            await page.fill("#login [name=password]", PASSWORD);
            await page.click("#login button[type=submit]");
            await expect.poll(() => visible(page, "#two-factor")).toBe(true);
            // The password step says nothing yet: no notice before the second factor.
            expect(await visible(page, "#breached-notice")).toBe(false);
            const mailed = () => mails.list().find((m) => m.kind === "two-factor-code" && m.to === email);
            await expect.poll(mailed).toBeDefined();
            await submitTwoFactorCode(page, /\b(\d{6})\b/.exec(mailed()?.text ?? "")?.[1] ?? "");
            await expect.poll(() => visible(page, "#breached-notice")).toBe(true);
            expect(new URL(page.url()).pathname).toBe("/settings/account");
            expect(await page.locator("#breached-notice h2").textContent()).toBe(
              lang === "en" ? "Your password is in a data breach" : "Dein Passwort steht in einem Datenleck",
            );
          })();
        }
      });
    }, 60_000);

    // ---- The back office (issue 32) -----------------------------------------------------------
    /** The admin of `lang` (one of ADMIN_EMAILS), created once, verified, with the test password. */
    const adminAccount = async (lang: string) => {
      const email = `back-office-${lang}@example.test`;
      if (!(await example.stores.users.findByEmail(email)))
        await example.auth.admin.createUser({}, { email, password: PASSWORD, emailVerified: true });
      return email;
    };
    /** Signs the admin in, opens the back office from the nav and confirms the password there. */
    const openBackOffice = async (page: Page, email: string) => {
      await signIn(page, email);
      await signedInAs(page, email);
      await expect.poll(() => visible(page, "#nav-admin")).toBe(true);
      await page.click("#nav-admin");
      await expect.poll(() => visible(page, "#admin-step-up #step-up")).toBe(true);
      await page.fill("#step-up [name=password]", PASSWORD);
      await page.click("#step-up button[type=submit]");
      await expect.poll(() => visible(page, "#admin-tools")).toBe(true);
    };
    /** Searches the back office and opens the user `email` from the list. */
    const openUser = async (page: Page, email: string) => {
      await page.fill("#admin-search [name=query]", email);
      await page.click("#admin-search button[type=submit]");
      await page.locator("#admin-users button", { hasText: email }).click();
      await expect.poll(() => page.locator("#admin-detail-email").textContent()).toBe(email);
    };
    const dispatchVisibility = (page: Page) =>
      page.evaluate(() =>
        (
          globalThis as unknown as { document: { dispatchEvent(event: unknown): void } }
        ).document.dispatchEvent(new Event("visibilitychange")),
      );

    it("ui (32a) - the back office is in the nav only for an admin; a non-admin at /admin sees that it is for administrators, in English and German at 375 and 1280 px", async () => {
      for (const [locale, lang] of LOCALES) {
        const email = await createAccount(`not-admin-${lang}`);
        await inNewPage({ locale }, async (page) => {
          // The page asks the server (403 ADMIN_REQUIRED): no link, and the URL says so in words.
          const asked = page.waitForResponse(
            (r) => r.url().includes("/api/auth/admin/users") && r.status() === 403,
          );
          await signIn(page, email);
          await signedInAs(page, email);
          await asked;
          expect(await visible(page, "#nav-admin")).toBe(false);
          await page.goto(`${base}/admin`);
          await expect.poll(() => visible(page, "#admin-denied")).toBe(true);
          expect(await page.locator("#admin-denied").textContent()).toBe(
            lang === "en" ? "This page is for administrators." : "Diese Seite ist für Administratoren.",
          );
          expect(await visible(page, "#admin-tools")).toBe(false);
          expect(await visible(page, "#nav-admin")).toBe(false);
          await shot(page, `32a-not-admin-${lang}`);
        })();
        const [adminContext, adminPage] = await newPage({ locale });
        try {
          await signIn(adminPage, await adminAccount(lang));
          await expect.poll(() => visible(adminPage, "#nav-admin")).toBe(true);
          expect(await adminPage.locator("#nav-admin").textContent()).toBe(
            lang === "en" ? "Back office" : "Backoffice",
          );
          await adminPage.click("#nav-admin");
          // The step-up of the security page, in the back office: nothing shows before it.
          await expect.poll(() => visible(adminPage, "#admin-step-up #step-up")).toBe(true);
          expect(await visible(adminPage, "#admin-tools")).toBe(false);
          await shot(adminPage, `32a-admin-step-up-${lang}`);
        } finally {
          await adminContext.close();
        }
      }
    }, 60_000);

    it("ui (32b) - search by address prefix, ten at a time, with load more until the last, in English and German at 375 and 1280 px", async () => {
      for (const [locale, lang] of LOCALES) {
        const prefix = `find-${lang}-${randomBytes(3).toString("hex")}`;
        for (let i = 0; i < 13; i++) await createAccount(`${prefix}-${String(i).padStart(2, "0")}`);
        await inNewPage({ locale }, async (page) => {
          await openBackOffice(page, await adminAccount(lang));
          await page.fill("#admin-search [name=query]", prefix.toUpperCase());
          await page.click("#admin-search button[type=submit]");
          await expect.poll(() => page.locator("#admin-users li").count()).toBe(10);
          expect(await visible(page, "#admin-more")).toBe(true);
          expect(await status(page).textContent()).toBe(
            lang === "en" ? "10 accounts shown." : "10 Konten angezeigt.",
          );
          await shot(page, `32b-search-${lang}`);
          await page.click("#admin-more");
          await expect.poll(() => page.locator("#admin-users li").count()).toBe(13);
          const shown = await page.locator("#admin-users button").allTextContents();
          expect(shown).toEqual([...shown].sort());
          expect(new Set(shown).size).toBe(13);
          expect(shown.every((email) => email.startsWith(prefix))).toBe(true);
          expect(await visible(page, "#admin-more")).toBe(false);
          // A prefix nobody has: said in words.
          await page.fill("#admin-search [name=query]", `${prefix}-none`);
          await page.click("#admin-search button[type=submit]");
          await expect.poll(() => visible(page, "#admin-empty")).toBe(true);
          expect(await page.locator("#admin-users li").count()).toBe(0);
        })();
      }
    }, 90_000);

    it("ui (32c) - lock with a reason: the user's open page is signed out on its next call and cannot sign in (a readable message); unlock, in English and German at 375 and 1280 px", async () => {
      for (const [locale, lang] of LOCALES) {
        const email = await createAccount(`lock-me-${lang}`);
        const [userContext, userPage] = await newPage({ locale });
        const [context, page] = await newPage({ locale });
        try {
          await signIn(userPage, email);
          await signedInAs(userPage, email);
          await openBackOffice(page, await adminAccount(lang));
          await openUser(page, email);
          expect(await page.locator("#admin-sessions li").count()).toBe(1);
          await shot(page, `32c-detail-${lang}`);
          await page.fill("#admin-lock [name=reason]", "chargeback");
          await page.click("#admin-lock button[type=submit]");
          await expect.poll(() => visible(page, "#admin-unlock")).toBe(true);
          expect(await status(page).textContent()).toContain(email);
          expect(await page.locator("#admin-fields").textContent()).toContain("chargeback");
          expect(
            await page.locator("#admin-users li", { hasText: email }).locator(".tag").textContent(),
          ).toBe(lang === "en" ? "locked" : "gesperrt");
          expect(await page.locator("#admin-sessions li").count()).toBe(0);
          await shot(page, `32c-locked-${lang}`);

          // The user's page: its next call (the tab comes back into view) finds the session ended.
          await dispatchVisibility(userPage);
          await expect.poll(() => visible(userPage, "#signed-out")).toBe(true);
          expectHuman(await status(userPage).textContent());
          await userPage.fill("#login [name=email]", email);
          await userPage.fill("#login [name=password]", PASSWORD);
          await userPage.click("#login button[type=submit]");
          await expect
            .poll(() => status(userPage).textContent())
            .toBe(
              lang === "en"
                ? "This account is locked. Please contact support."
                : "Dieses Konto ist gesperrt. Bitte wende dich an den Support.",
            );
          expect(await visible(userPage, "#signed-out")).toBe(true);
          await shot(userPage, `32c-locked-sign-in-${lang}`);

          await page.click("#admin-unlock");
          await expect.poll(() => visible(page, "#admin-lock")).toBe(true);
          expect(await page.locator("#admin-users li", { hasText: email }).locator(".tag").count()).toBe(0);
          await userPage.click("#login button[type=submit]");
          await signedInAs(userPage, email);
        } finally {
          await userContext.close();
          await context.close();
        }
      }
    }, 90_000);

    it("ui (32d) - end every session of a user: its sessions elsewhere are refused at once, in English and German", async () => {
      for (const [locale, lang] of LOCALES) {
        const email = await createAccount(`end-sessions-${lang}`);
        const elsewhere = await request.newContext({ baseURL: base, extraHTTPHeaders: { origin: base } });
        const other = await request.newContext({ baseURL: base, extraHTTPHeaders: { origin: base } });
        const [context, page] = await newPage({ locale });
        try {
          await call(elsewhere, "POST", "/login", { email, password: PASSWORD });
          await call(other, "POST", "/login", { email, password: PASSWORD });
          await openBackOffice(page, await adminAccount(lang));
          await openUser(page, email);
          expect(await page.locator("#admin-sessions li").count()).toBe(2);
          await page.click("#admin-end-sessions");
          await expect
            .poll(() => status(page).textContent())
            .toBe(lang === "en" ? "Sessions ended: 2." : "Beendete Sitzungen: 2.");
          await expect.poll(() => visible(page, "#admin-sessions-empty")).toBe(true);
          expect(await page.locator("#admin-end-sessions").isDisabled()).toBe(true);
          expect((await elsewhere.get("/api/auth/me")).status()).toBe(401);
          expect((await other.get("/api/auth/me")).status()).toBe(401);
          await shot(page, `32d-sessions-ended-${lang}`);
        } finally {
          await elsewhere.dispose();
          await other.dispose();
          await context.close();
        }
      }
    }, 60_000);

    it("ui (32e) - impersonate: the browser acts as the user (no token in the page), a banner names both and the end, ending it signs out, in English and German at 375 and 1280 px", async () => {
      for (const [locale, lang] of LOCALES) {
        const email = await createAccount(`impersonate-me-${lang}`);
        const adminEmail = await adminAccount(lang);
        await inNewPage({ locale }, async (page, context) => {
          await openBackOffice(page, adminEmail);
          await openUser(page, email);
          // The answer, read on its way to the page (which moves on to /account at once).
          let body: Record<string, unknown> = {};
          await page.route("**/api/auth/admin/users/*/impersonate", async (route) => {
            const response = await route.fetch();
            body = (await response.json()) as Record<string, unknown>;
            await route.fulfill({ response });
          });
          await page.click("#admin-impersonate");
          await expect.poll(() => body.expiresAt).toBeDefined();
          // The tokens came as HttpOnly cookies, not to the page's script.
          expect(body.accessToken).toBeNull();
          expect(body.refreshToken).toBeNull();
          await signedInAs(page, email);
          const cookies = await context.cookies();
          expect(cookies.find((cookie) => cookie.name === "access_token")?.httpOnly).toBe(true);
          const banner = page.locator("#impersonation-banner");
          await expect.poll(() => banner.isVisible()).toBe(true);
          const text = (await banner.textContent()) ?? "";
          const ends = new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" }).format(
            new Date(String(body.expiresAt)),
          );
          expect(text).toContain(
            lang === "en"
              ? `You are acting as ${email} (impersonated by ${adminEmail}), ends at ${ends}.`
              : `Du handelst als ${email} (übernommen von ${adminEmail}), endet um ${ends}.`,
          );
          expect(await visible(page, "#nav-admin")).toBe(false);
          await shot(page, `32e-impersonating-${lang}`);
          // Another tab of the browser is the user too, with the same banner.
          const tab = await context.newPage();
          await tab.goto(`${base}/account`);
          await expect.poll(() => tab.locator("#impersonation-banner").textContent()).toBe(text);
          await tab.close();
          // The impersonation cannot step up: the security page says so in words.
          await page.click('nav a[href="/settings/security"]');
          await page.fill("#step-up [name=password]", PASSWORD);
          await page.click("#step-up button[type=submit]");
          await expect.poll(() => status(page).textContent()).not.toBe("");
          expectHuman(await status(page).textContent());
          expect(await visible(page, "#settings")).toBe(false);
          await page.click("#impersonation-banner button");
          await expect.poll(() => visible(page, "#signed-out")).toBe(true);
          expect(await status(page).textContent()).toBe(
            lang === "en"
              ? "Impersonation ended. Sign in again with your own account."
              : "Übernahme beendet. Melde dich mit deinem eigenen Konto wieder an.",
          );
          expect(await banner.isVisible()).toBe(false);
          // The user's activity records it.
          const userId = (await example.stores.users.findByEmail(email))?.id ?? "";
          const events = await example.auth.admin.listActivity({}, { userId });
          expect(events.items.map((item) => item.type)).toContain("impersonation.started");
        })();
      }
    }, 90_000);

    it("ui (32f) - axe-core finds no serious or critical violations on the back office (list, a locked user's detail) and with the impersonation banner, at 375 and 1280 px", async () => {
      const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
      const email = await createAccount("axe-back-office");
      const [context, page] = await newPage();
      const found: string[] = [];
      const check = async (view: string) => {
        for (const width of [375, 1280]) {
          await page.setViewportSize({ width, height: 900 });
          await page.addScriptTag({ path: axePath });
          const violations = (await page.evaluate(async () => {
            const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe;
            return (await axe.run()).violations;
          })) as { id: string; impact: string; nodes: { target: string[] }[] }[];
          for (const v of violations)
            if (v.impact === "serious" || v.impact === "critical")
              found.push(`${view} @${width}: ${v.id} ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
        }
      };
      try {
        await openBackOffice(page, await adminAccount("en"));
        await openUser(page, email);
        await page.click("#admin-lock button[type=submit]");
        await expect.poll(() => visible(page, "#admin-unlock")).toBe(true);
        await check("back office, a locked user");
        await page.click("#admin-unlock");
        await expect.poll(() => visible(page, "#admin-lock")).toBe(true);
        await page.click("#admin-impersonate");
        await signedInAs(page, email);
        await expect.poll(() => visible(page, "#impersonation-banner")).toBe(true);
        await check("impersonation banner");
        await page.click("#impersonation-banner button");
        await expect.poll(() => visible(page, "#signed-out")).toBe(true);
      } finally {
        await context.close();
      }
      expect(found).toEqual([]);
    }, 60_000);

    // ---- Issue 29: passkeys, with Chromium's virtual authenticator ----------------------------
    /**
     * A platform authenticator for `page` (CDP WebAuthn): resident keys, user verification that
     * passes. Chromium's virtual authenticator answers an autofill (conditional) request at once, as
     * if the user picked its passkey; without `autofill` the page is told the browser has no
     * autofill for passkeys, so the "Sign in with a passkey" button is what signs in. The mediation
     * of every `navigator.credentials.get()` is recorded in `window.passkeyRequests`.
     */
    const virtualAuthenticator = async (context: BrowserContext, page: Page, autofill = false) => {
      await context.addInitScript((withAutofill: boolean) => {
        const scope = globalThis as unknown as {
          passkeyRequests: string[];
          navigator: { credentials: { get(options?: { mediation?: string }): Promise<unknown> } };
          PublicKeyCredential: { isConditionalMediationAvailable(): Promise<boolean> };
        };
        scope.passkeyRequests = [];
        const get = scope.navigator.credentials.get.bind(scope.navigator.credentials);
        scope.navigator.credentials.get = (options) => {
          scope.passkeyRequests.push(options?.mediation ?? "optional");
          return get(options);
        };
        if (!withAutofill) scope.PublicKeyCredential.isConditionalMediationAvailable = async () => false;
      }, autofill);
      const cdp = await context.newCDPSession(page);
      await cdp.send("WebAuthn.enable", { enableUI: false });
      const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
        options: {
          protocol: "ctap2",
          transport: "internal",
          hasResidentKey: true,
          hasUserVerification: true,
          isUserVerified: true,
          automaticPresenceSimulation: true,
        },
      });
      return {
        credentials: async () => (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials,
      };
    };
    const passkeyRequests = (page: Page) =>
      page.evaluate(() => (globalThis as unknown as { passkeyRequests: string[] }).passkeyRequests);
    const PASSKEY_WORDS = {
      en: {
        added: "Passkey “Laptop” added.",
        stepUp: "Confirmed: you can change security settings for a few minutes.",
        renamed: "Passkey renamed.",
        removed: "Passkey removed.",
        last: "This is the account's last way to sign in.",
      },
      de: {
        added: "Passkey „Laptop“ hinzugefügt.",
        stepUp: "Bestätigt",
        renamed: "Passkey umbenannt.",
        removed: "Passkey entfernt.",
        last: "Dies ist die letzte Anmeldemöglichkeit des Kontos.",
      },
    } as const;
    /** The account's passkeys as the server keeps them. */
    const storedPasskeys = async (email: string) => {
      const user = await example.stores.users.findByEmail(email);
      return example.stores.passkeys?.listByUser(user?.id ?? "") ?? [];
    };
    /** On the open settings: names a passkey and adds it with the virtual authenticator. */
    const addPasskeyInSettings = async (page: Page, lang: "en" | "de") => {
      await expect.poll(() => visible(page, "#passkeys-card")).toBe(true);
      await page.fill("#passkey-add [name=name]", "Laptop");
      await page.click("#passkey-add button[type=submit]");
      await expect
        .poll(() => status(page).textContent(), { timeout: 10_000 })
        .toBe(PASSKEY_WORDS[lang].added);
      await expect
        .poll(() => page.locator("#passkey-list .passkey-name").allTextContents())
        .toEqual(["Laptop"]);
    };
    /** Signs out, then signs in on /login with the passkey button, no email typed. */
    const signInWithPasskeyButton = async (page: Page, email: string, shotName?: string) => {
      await page.click("#logout");
      await expect.poll(() => visible(page, "#signed-out")).toBe(true);
      await page.goto(`${base}/login`);
      await expect.poll(() => visible(page, "#passkey-sign-in")).toBe(true);
      expect(await page.inputValue("#login [name=email]")).toBe("");
      if (shotName) await shot(page, shotName);
      await page.click("#passkey-sign-in");
      await signedInAs(page, email);
    };
    /** From the account page: the security page's step-up with the passkey. */
    const stepUpWithPasskeyButton = async (page: Page, lang: "en" | "de") => {
      await page.click('nav a[href="/settings/security"]');
      await expect.poll(() => visible(page, "#step-up-passkey")).toBe(true);
      expect(await visible(page, "#settings")).toBe(false);
      await page.click("#step-up-passkey");
      await expect.poll(() => visible(page, "#settings")).toBe(true);
      expect(await status(page).textContent()).toContain(PASSKEY_WORDS[lang].stepUp);
    };

    it("ui (29a) - add a passkey, sign out, sign in with it without an email, step up with it, rename and remove it, in English and German at 375 and 1280 px", async () => {
      for (const [locale, lang] of LOCALES) {
        const email = await createAccount(`passkey-${lang}`);
        await inNewPage({ locale }, async (page, context) => {
          const authenticator = await virtualAuthenticator(context, page);
          await openSettings(page, email);
          expect(await visible(page, "#passkeys-empty")).toBe(true);
          await shot(page, `passkeys-none-${lang}`);
          await addPasskeyInSettings(page, lang);
          const [credential] = await authenticator.credentials();
          expect(credential?.isResidentCredential).toBe(true);
          expect((await storedPasskeys(email)).map((p) => [p.id, p.name])).toEqual([
            [Buffer.from(credential?.credentialId ?? "", "base64").toString("base64url"), "Laptop"],
          ]);
          await shot(page, `passkeys-added-${lang}`);

          await signInWithPasskeyButton(page, email, `passkeys-sign-in-${lang}`);
          await shot(page, `passkeys-signed-in-${lang}`);
          await stepUpWithPasskeyButton(page, lang);

          await page.click("#passkey-list .passkey-rename");
          await page.fill("#passkey-list .passkey-rename [name=name]", "");
          await page.click("#passkey-list .passkey-rename button[type=submit]");
          await expect.poll(() => page.locator(".field-error").count()).toBe(1);
          await page.fill("#passkey-list .passkey-rename [name=name]", "Work laptop");
          await shot(page, `passkeys-rename-${lang}`);
          await page.click("#passkey-list .passkey-rename button[type=submit]");
          await expect.poll(() => status(page).textContent()).toBe(PASSKEY_WORDS[lang].renamed);
          await expect
            .poll(() => page.locator("#passkey-list .passkey-name").allTextContents())
            .toEqual(["Work laptop"]);
          expect((await storedPasskeys(email)).map((p) => p.name)).toEqual(["Work laptop"]);

          await page.click("#passkey-list .passkey-remove");
          await shot(page, `passkeys-remove-ask-${lang}`);
          await page.click("#passkey-list .passkey-remove-yes");
          await expect.poll(() => status(page).textContent()).toBe(PASSKEY_WORDS[lang].removed);
          await expect.poll(() => visible(page, "#passkeys-empty")).toBe(true);
          expect(await storedPasskeys(email)).toEqual([]);
          // Gone from the account: the step-up box offers the password only.
          await page.reload();
          await expect.poll(() => visible(page, "#step-up")).toBe(true);
          expect(await visible(page, "#step-up-passkey")).toBe(false);
          // The activity tells each change and the passkey sign-in, in the page's language.
          await page.click('nav a[href="/activity"]');
          await expect.poll(() => page.locator("#activity-list li strong").count()).toBeGreaterThan(3);
          const titles = await page.locator("#activity-list li strong").allTextContents();
          const words =
            lang === "en"
              ? ["Passkey removed", "Passkey renamed", "Passkey added", "Signed in (passkey)"]
              : ["Passkey entfernt", "Passkey umbenannt", "Passkey hinzugefügt", "Angemeldet (Passkey)"];
          for (const title of words) expect(titles, title).toContain(title);
        })();
      }
    }, 90_000);

    it("ui (29b) - a passkey-only account cannot remove its last passkey: the server's message, in English and German", async () => {
      for (const [locale, lang] of LOCALES) {
        const email = await createAccount(`passkey-only-${lang}`);
        await inNewPage({ locale }, async (page, context) => {
          await virtualAuthenticator(context, page);
          await openSettings(page, email);
          await addPasskeyInSettings(page, lang);
          // The password goes (as for an account made by a provider): the passkey is all that is left.
          const user = await example.stores.users.findByEmail(email);
          await example.stores.users.update(user?.id ?? "", { passwordHash: null });
          await signInWithPasskeyButton(page, email);
          await page.click('nav a[href="/settings/security"]');
          await expect.poll(() => visible(page, "#step-up-passkey")).toBe(true);
          // No password to confirm with: only the passkey.
          expect(await visible(page, "#step-up")).toBe(false);
          await stepUpWithPasskeyButton(page, lang);
          await page.click("#passkey-list .passkey-remove");
          await page.click("#passkey-list .passkey-remove-yes");
          await expect.poll(() => status(page).textContent()).toContain(PASSKEY_WORDS[lang].last);
          expectHuman(await status(page).textContent());
          expect(await page.locator("#status").getAttribute("class")).toBe("error");
          await shot(page, `passkeys-last-method-${lang}`);
          expect(await storedPasskeys(email)).toHaveLength(1);
          expect(await page.locator("#passkey-list .passkey-name").allTextContents()).toEqual(["Laptop"]);
        })();
      }
    }, 90_000);

    it(
      "ui (29c) - the sign-in page asks for a passkey through the email field's autofill (conditional UI): nothing shown without one, signed in with one",
      inNewPage(async (page, context) => {
        await virtualAuthenticator(context, page, true);
        const email = await createAccount("passkey-autofill");
        await page.goto(`${base}/login`);
        expect(await page.getAttribute("#login [name=email]", "autocomplete")).toBe("username webauthn");
        // The authenticator holds no passkey yet: the autofill request is refused, and the page stays quiet.
        await expect.poll(() => passkeyRequests(page), { timeout: 10_000 }).toEqual(["conditional"]);
        expect(await visible(page, "#status")).toBe(false);
        await openSettings(page, email);
        await addPasskeyInSettings(page, "en");
        // Signing out shows the sign-in view, which starts the autofill request; the authenticator
        // answers it with the passkey (as a user picking it in the email field would): signed in
        // again with no button pressed and no email typed.
        const traffic = authTraffic(page);
        await page.click("#logout");
        await expect.poll(() => traffic.includes("/passkeys/login 200"), { timeout: 10_000 }).toBe(true);
        expect(traffic.indexOf("/passkeys/login 200")).toBeGreaterThan(traffic.indexOf("/logout 200"));
        expect(traffic.indexOf("/logout 200")).toBeGreaterThanOrEqual(0);
        await expect.poll(() => visible(page, "#signed-in")).toBe(true);
        await signedInAs(page, email);
        const requests = await passkeyRequests(page);
        expect(requests.length).toBeGreaterThan(0);
        expect(requests.every((mediation) => mediation === "conditional")).toBe(true);
        expect(await page.inputValue("#login [name=email]")).toBe("");
      }),
    );

    it("ui (27j) - axe-core finds no serious or critical violations on any view at 375 and 1280 px", async () => {
      const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
      const email = await createAccount("axe");
      const withApp = await createAccount("axe-totp");
      await enableTwoFactor(withApp, { totp: true });
      const [context, page] = await newPage();
      const found: string[] = [];
      const check = async (view: string) => {
        for (const width of [375, 1280]) {
          await page.setViewportSize({ width, height: 900 });
          await page.addScriptTag({ path: axePath });
          const { violations, passes } = (await page.evaluate(async () => {
            const axe = (
              globalThis as unknown as {
                axe: { run(): Promise<{ violations: unknown[]; passes: unknown[] }> };
              }
            ).axe;
            const result = await axe.run();
            return { violations: result.violations, passes: result.passes.length };
          })) as {
            violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
            passes: number;
          };
          // The rules ran (color contrast among them), not an empty page.
          expect(passes).toBeGreaterThan(5);
          for (const v of violations)
            if (v.impact === "serious" || v.impact === "critical")
              found.push(`${view} @${width}: ${v.id} ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
        }
      };
      try {
        await page.goto(`${base}/login`);
        await check("sign-in");
        await page.click("#login button[type=submit]");
        await check("sign-in with field errors");
        await page.goto(`${base}/signup`);
        await check("sign-up");
        await signIn(page, withApp);
        await expect.poll(() => visible(page, "#two-factor")).toBe(true);
        await check("second step");
        await page.click("#two-factor-back");
        await signIn(page, email);
        await signedInAs(page, email);
        await check("signed in");
        await page.click('nav a[href="/activity"]');
        await expect.poll(() => page.locator("#activity-list li").count()).toBeGreaterThan(0);
        await check("activity");
        await page.click('nav a[href="/settings/security"]');
        await check("security");
        await page.goto(`${base}/settings/account`);
        await expect.poll(() => visible(page, "#account-settings")).toBe(true);
        await check("account settings");
        await page.goto(`${base}/confirm-email-change?token=x`);
        await check("email change confirmation");
        await page.click("#logout");
        await expect.poll(() => visible(page, "#signed-out")).toBe(true);
        await check("signed out");
      } finally {
        await context.close();
      }
      expect(found).toEqual([]);
    }, 60_000);

    it(
      "email sign-in (30) - opening the emailed link signs nobody in; the page's button signs in with a POST",
      inNewPage(async (page) => {
        const email = await createAccount("email-sign-in", { verified: true });
        const requested = await page.request.post(`${base}/api/auth/email-sign-in/request`, {
          data: { email },
        });
        expect(requested.status()).toBe(200);
        const mail = outbox.list().find((entry) => entry.kind === "email-sign-in" && entry.to === email);
        const href = /href="([^"]+\?token=[^"]+)"/.exec(mail?.html ?? "")?.[1]?.replace(/&amp;/g, "&") ?? "";
        expect(href.startsWith(`${base}/sign-in/email?token=`)).toBe(true);
        const me = () => page.evaluate(() => fetch("/api/auth/me").then((reply) => reply.status));
        // What a mail scanner does: open the link and run its page. Nobody is signed in.
        await page.goto(href);
        await expect.poll(() => visible(page, "#email-sign-in button")).toBe(true);
        expect(await me()).toBe(401);
        await page.click("#email-sign-in button");
        await page.waitForURL(`${base}/`);
        expect(await me()).toBe(200);
        // The link is spent: opening it again and pressing the button says so.
        await page.goto(href);
        await page.click("#email-sign-in button");
        await expect
          .poll(() => page.locator("#status").textContent())
          .toMatch(/not valid|already used|expired/);
      }),
    );
  });
}
