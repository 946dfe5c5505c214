import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createArgon2Hasher, type OutboxMailer } from "@portcullis/core";
import { CHROMIUM_ARGS, CHROMIUM_PATH, freePort, referenceTotp } from "@portcullis/testing";
import {
  type APIRequestContext,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Page,
  request,
} from "playwright-core";
import { expect } from "vitest";
import { readConfig } from "../config.js";
import { createExampleAuth, type ExampleAuth } from "../setup.js";

/** Starts an example's app in-process on 127.0.0.1:`port` (see `BrowserSuiteOptions.start`). */
export type StartExample = (example: ExampleAuth, port: number) => Promise<{ close(): Promise<void> }>;

/** Where the screenshots go: outside the repository, one folder per example. */
export const screenshotDirectory = (name: string): string =>
  join(tmpdir(), "portcullis-ui-screenshots", name);

export const PASSWORD = "correct horse battery staple";
export const DAY = 24 * 60 * 60 * 1000;
/** Cheap argon2id: the same parameters the server gets, so seeded hashes verify quickly. */
export const hasher = createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 });
/** The two languages of the UI, with the browser locale each test opens it in. */
export const LOCALES = [
  ["en-US", "en"],
  ["de-DE", "de"],
] as const;
/** A language of the UI. */
export type Lang = (typeof LOCALES)[number][1];

/** A DOM box as the checks read it (the project's TypeScript has no DOM library). */
export interface Box {
  scrollWidth: number;
  clientWidth: number;
  getBoundingClientRect(): { left: number; right: number };
}

/** A browser test's body: given the suite's fixture (server, browser, helpers). */
export type BrowserTestBody = ((f: BrowserFixture) => Promise<void>) & { timeout?: number };
/** The browser tests of an area, by name (the test's name as vitest shows it). */
export type BrowserTests = Record<string, BrowserTestBody>;
/** `body` with its own timeout (ms) instead of vitest's default. */
export const withTimeout = (timeout: number, body: BrowserTestBody): BrowserTestBody =>
  Object.assign(body, { timeout });
/** A test body in a fresh browser context of the suite's browser (see `BrowserFixture.inNewPage`). */
export const inPage =
  (
    ...args:
      | [(f: BrowserFixture, page: Page, context: BrowserContext) => Promise<void>]
      | [BrowserContextOptions, (f: BrowserFixture, page: Page, context: BrowserContext) => Promise<void>]
  ): BrowserTestBody =>
  (f) => {
    const [options, test] = args.length === 1 ? [{}, args[0]] : args;
    return f.inNewPage(options, (page, context) => test(f, page, context))();
  };

export type PageTest = (page: Page, context: BrowserContext) => Promise<void>;
export const status = (page: Page) => page.locator("#status");
export const visible = (page: Page, selector: string) => page.locator(selector).isVisible();
/** A human message: no error code such as `INVALID_CREDENTIALS`, no `CODE: message`, no JSON. */
export const expectHuman = (text: string | null) => {
  expect(text ?? "").not.toBe("");
  expect(text).not.toMatch(/\b[A-Z][A-Z0-9]+(_[A-Z0-9]+)+\b|^\s*\w+:\s|[{}]/);
};

export const signedInAs = async (page: Page, email: string) =>
  expect.poll(() => page.locator("#me-email").textContent(), { timeout: 10_000 }).toBe(email);
/** Waits until the status line reads `en` (English page) or `de` (German page). */
export const expectStatus = async (page: Page, lang: string, en: string, de: string) =>
  expect.poll(() => status(page).textContent()).toBe(lang === "en" ? en : de);
/** Waits until the status line reads `words` in the page's language (`lang`). */
export const expectSaid = (page: Page, lang: string, words: { en: string; de: string }) =>
  expectStatus(page, lang, words.en, words.de);

/** The page's words that the tests of several areas look for, in both languages. */
export const SHARED_WORDS = {
  orgCreated: (name: string) => ({
    en: `Organization “${name}” created.`,
    de: `Organisation „${name}“ erstellt.`,
  }),
  switchTo: (name: string) => ({ en: `Switch to ${name}`, de: `Zu ${name} wechseln` }),
  switched: (name: string) => ({
    en: `${name} is now your active organization.`,
    de: `${name} ist jetzt deine aktive Organisation.`,
  }),
  invited: (email: string) => ({ en: `Invitation sent to ${email}.`, de: `Einladung an ${email} gesendet.` }),
  /** The button that closes a secret shown once. */
  done: { en: "Done, I saved it", de: "Fertig, ich habe es gespeichert" },
};
/** On /organizations: makes the organization `name` the active one with its switch. */
export async function switchOrganization(page: Page, lang: Lang, name: string) {
  await page.getByRole("button", { name: SHARED_WORDS.switchTo(name)[lang], exact: true }).click();
  await expectSaid(page, lang, SHARED_WORDS.switched(name));
}
/** Opens /organizations, creates an organization with its form (`slug` too, when given) and makes it the active one. */
export async function createActiveOrganization(page: Page, lang: Lang, name: string, slug?: string) {
  await page.click('nav a[href="/organizations"]');
  await page.fill("#org-create [name=name]", name);
  if (slug !== undefined) await page.fill("#org-create [name=slug]", slug);
  await page.click("#org-create button[type=submit]");
  await expectSaid(page, lang, SHARED_WORDS.orgCreated(name));
  await switchOrganization(page, lang, name);
}

/** True when nothing on the page is wider than the viewport. */
export const fitsViewport = (page: Page) =>
  page
    .locator("html")
    .evaluate((html) => (html as unknown as Box).scrollWidth <= (html as unknown as Box).clientWidth);
/** Screenshots at 375 and 1280 px, and nothing wider than the viewport at either width. */
export const shotAndFit = async (f: BrowserFixture, page: Page, name: string) => {
  await f.shot(page, name);
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    expect(await fitsViewport(page), `${name} at ${width} px`).toBe(true);
  }
};
/**
 * Runs axe-core on the page as it is, at 375 and 1280 px, and returns its serious and critical
 * violations, each as `<view> @<width>: <rule> <targets>`. Fails when axe ran fewer than six rules.
 */
export const accessibilityFindings = async (page: Page, view: string): Promise<string[]> => {
  const found: string[] = [];
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.addScriptTag({ path: createRequire(import.meta.url).resolve("axe-core/axe.min.js") });
    const { violations, passes } = (await page.evaluate(async () => {
      const axe = (
        globalThis as unknown as { axe: { run(): Promise<{ violations: unknown[]; passes: unknown[] }> } }
      ).axe;
      const result = await axe.run();
      return { violations: result.violations, passes: result.passes.length };
    })) as { violations: { id: string; impact: string; nodes: { target: string[] }[] }[]; passes: number };
    // The rules ran (color contrast among them), not an empty page.
    expect(passes).toBeGreaterThan(5);
    for (const v of violations)
      if (v.impact === "serious" || v.impact === "critical")
        found.push(`${view} @${width}: ${v.id} ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  }
  return found;
};
/** The paths of the POST requests the page sends from now on (the passkey autofill's left out). */
export const recordPosts = (page: Page): string[] => {
  const sent: string[] = [];
  page.on("request", (req) => {
    // The sign-in page's passkey autofill asks for its challenge on its own (issue 29).
    const autofill = req.url().endsWith("/api/auth/passkeys/login/options");
    if (req.method() === "POST" && !autofill) sent.push(new URL(req.url()).pathname);
  });
  return sent;
};
/** Enters `password` in the step-up box the page shows (the security page's unless `scope` says). */
export const confirmPassword = async (page: Page, password = PASSWORD, scope = "") => {
  await page.fill(`${scope}#step-up [name=password]`, password);
  await page.click(`${scope}#step-up button[type=submit]`);
};
/** Answers the sign-in's second step with a code from the authenticator app or the email. */
export const submitTwoFactorCode = async (page: Page, code: string) => {
  await page.fill("#two-factor-code [name=code]", code);
  await page.click("#two-factor-code button[type=submit]");
};
/**
 * What every browser test works with: the example's app on a free port (its origin `base`, its
 * stores and outbox), one Chromium, and the helpers that sign in, read emails and set 2FA up.
 * `open` before the tests, `close` after them.
 */
export class BrowserFixture {
  example!: ExampleAuth;
  outbox!: OutboxMailer;
  browser!: Browser;
  base = "";
  /** How many accounts `createAccount` made: each address is unique within the run. */
  accounts = 0;
  /**
   * The DNS TXT records a test has published, by name: the app's lookup of a domain's verification
   * record (`createSso`'s `resolveTxt`) reads them instead of the internet's DNS, so a test adds the
   * record the page shows, as an administrator would at their DNS host (the SSO tests).
   */
  readonly txtRecords = new Map<string, string[][]>();
  private server: { close(): Promise<void> } | undefined;

  constructor(
    readonly start: StartExample,
    readonly shots: string,
  ) {}

  /** Starts the app (its own configuration, PORT so APP_ORIGIN) and the browser. */
  async open(): Promise<void> {
    const port = await freePort();
    // No APP_ORIGIN: the origin follows from HOST and PORT, i.e. the URL the server prints.
    const config = readConfig({
      PORT: String(port),
      AUTH_SECRET: "browser-test-secret-YVt0_5Gi80viRL3zW2SMQ_8FUEkbfGmZuCKl4LKq1Pw",
      EMAIL_COOLDOWN_SECONDS: "1",
      // The back office's tests (32a-32e) sign in with these.
      ADMIN_EMAILS: "back-office-en@example.test,back-office-de@example.test",
      // The webhook tests (47f-47i) send to a receiver on 127.0.0.1, and a failed attempt is
      // retried within a second or two instead of 5 seconds, 5 minutes, 30 minutes…
      WEBHOOKS_ALLOW_PRIVATE: "true",
      WEBHOOK_RETRY_SCALE: "0.001",
    });
    this.base = config.appOrigin;
    this.example = await createExampleAuth(config, {
      passwordHasher: hasher,
      resolveTxt: async (name) => {
        const records = this.txtRecords.get(name);
        // As node:dns answers a name without TXT records.
        if (!records) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: "ENOTFOUND" });
        return records;
      },
    });
    this.outbox = this.example.outbox as OutboxMailer;
    this.server = await this.start(this.example, port);
    this.browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
    await mkdir(this.shots, { recursive: true });
  }

  /**
   * Another app of the same example on a free port, with `env` added to its configuration (e.g. a
   * short SESSION_IDLE_SECONDS): its origin, its auth, and `close`, which the test calls.
   */
  async openOther(
    env: Record<string, string>,
  ): Promise<{ base: string; example: ExampleAuth; close(): Promise<void> }> {
    const port = await freePort();
    const config = readConfig({
      PORT: String(port),
      AUTH_SECRET: "browser-test-other-secret-3c9Vq0sXk2mBf8RzT1yLwE5nHu7aJd4gPo6iK0eQx",
      EMAIL_COOLDOWN_SECONDS: "1",
      ...env,
    });
    const example = await createExampleAuth(config, { passwordHasher: hasher });
    const server = await this.start(example, port);
    return {
      base: config.appOrigin,
      example,
      close: async () => {
        await server.close();
        example.close();
      },
    };
  }

  async close(): Promise<void> {
    await this.browser?.close();
    await this.server?.close();
    this.example?.close();
  }

  readonly newPage = async (context: BrowserContextOptions = {}): Promise<[BrowserContext, Page]> => {
    const ctx = await this.browser.newContext({ locale: "en-US", ...context });
    const page = await ctx.newPage();
    if (process.env.UI_DEBUG) {
      page.on("console", (message) => console.log(`[page] ${message.text()}`));
      page.on("pageerror", (error) => console.log(`[page error] ${error.message}`));
      page.on("response", (r) => console.log(`[resp] ${r.request().method()} ${r.url()} ${r.status()}`));
    }
    return [ctx, page];
  };
  /** A test body in a fresh browser context, closed afterwards (also when the test fails). */
  readonly inNewPage =
    (...args: [PageTest] | [BrowserContextOptions, PageTest]) =>
    async (): Promise<void> => {
      const [options, test] = args.length === 1 ? [{}, args[0]] : args;
      const [context, page] = await this.newPage(options);
      try {
        await test(page, context);
      } finally {
        await context.close();
      }
    };
  readonly shot = async (page: Page, name: string) => {
    const size = page.viewportSize() ?? { width: 1280, height: 900 };
    for (const width of [375, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: join(this.shots, `${name}-${width}.png`), fullPage: true });
    }
    await page.setViewportSize(size);
  };
  /** A user created through the store (older than a day unless told): quicker than signing up. */
  readonly createAccount = async (
    label: string,
    account: { verified?: boolean; name?: string; createdAt?: number; lastSignInAt?: number } = {},
    target: ExampleAuth = this.example,
  ): Promise<string> => {
    this.accounts += 1;
    const email = `${label}-${this.accounts}@example.test`;
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
  readonly call = async (api: APIRequestContext, method: string, path: string, body?: unknown) => {
    const response = await api.fetch(`/api/auth${path}`, {
      method,
      ...(body === undefined ? {} : { data: body }),
    });
    if (!response.ok()) throw new Error(`${method} ${path}: ${response.status()} ${await response.text()}`);
    return (response.status() === 204 ? {} : await response.json()) as Record<string, string>;
  };
  /** The newest email of a kind to an address, once it is in the outbox. */
  readonly newestEmail = async (kind: string, to: string) => {
    const find = () =>
      this.outbox
        .list()
        .filter((email) => email.kind === kind && email.to === to)
        .sort((a, b) => Number(b.id) - Number(a.id))[0];
    await expect.poll(() => find()).toBeDefined();
    return find() as NonNullable<ReturnType<typeof find>>;
  };
  readonly emailedCode = async (to: string, after = "0") => {
    await expect
      .poll(() =>
        this.outbox
          .list()
          .some((e) => e.kind === "two-factor-code" && e.to === to && Number(e.id) > Number(after)),
      )
      .toBe(true);
    return /\b(\d{6})\b/.exec((await this.newestEmail("two-factor-code", to)).text)?.[1] ?? "";
  };
  readonly newestId = () => String(Math.max(0, ...this.outbox.list().map((email) => Number(email.id))));
  /**
   * Turns 2FA on through the API (its own cookie jar, not the browser's): TOTP with a code of the
   * previous step (so a test can sign in with this step's code and step up with the next one's),
   * email codes, and the preferred method. Returns the TOTP secret.
   */
  readonly enableTwoFactor = async (
    email: string,
    methods: { totp?: boolean; email?: boolean; preferred?: "totp" | "email" },
  ): Promise<string> => {
    const api = await request.newContext({ baseURL: this.base, extraHTTPHeaders: { origin: this.base } });
    try {
      await this.call(api, "POST", "/login", { email, password: PASSWORD });
      await this.call(api, "POST", "/step-up", { password: PASSWORD });
      let secret = "";
      if (methods.totp) {
        const setup = await this.call(api, "GET", "/2fa/totp/setup");
        secret = setup.secret ?? "";
        // The previous step's code is accepted only while this step lasts: not within 2 s of its end.
        // A real wait that stays: the example's server reads the real clock (createExampleAuth takes
        // no clock option), so only real time moves it past the step's end; at most 2 s, and only
        // in the last 2 s of a 30 s step.
        const intoStep = Date.now() % 30_000;
        if (intoStep > 28_000) await new Promise((resolve) => setTimeout(resolve, 30_100 - intoStep));
        const code = referenceTotp(secret, Date.now() - 30_000);
        await this.call(api, "POST", "/2fa/totp/setup", { setupToken: setup.setupToken, code });
      }
      if (methods.email) {
        const before = this.newestId();
        await this.call(api, "POST", "/2fa/email/send");
        // The sign-in mails the next code only once this send's cooldown (EMAIL_COOLDOWN_SECONDS=1,
        // core's key email:two-factor-code:<address>) has ended: read from the app's store.
        const cooldown = `email:two-factor-code:${email}`;
        expect(await this.example.stores.cooldowns.remainingMs(cooldown)).toBeGreaterThan(0);
        await this.call(api, "POST", "/2fa/email/enable", {
          code: await this.emailedCode(email, before),
          method: "email",
        });
        await expect
          .poll(() => this.example.stores.cooldowns.remainingMs(cooldown), { timeout: 5_000 })
          .toBe(0);
      }
      if (methods.preferred)
        await this.call(api, "POST", "/2fa/preferred-method", { method: methods.preferred });
      return secret;
    } finally {
      await api.dispose();
    }
  };
  readonly signIn = async (page: Page, email: string, password = PASSWORD) => {
    await page.goto(`${this.base}/login`);
    await page.fill("#login [name=email]", email);
    await page.fill("#login [name=password]", password);
    await page.click("#login button[type=submit]");
  };
  /** Enters the code mailed to `email` after outbox entry `before` and lands signed in. */
  readonly finishWithEmailedCode = async (page: Page, email: string, before: string) => {
    await submitTwoFactorCode(page, await this.emailedCode(email, before));
    await signedInAs(page, email);
  };
  /** Signs in (without 2FA) and waits until the page shows the account. */
  readonly signInAndWait = async (page: Page, email: string) => {
    await this.signIn(page, email);
    await signedInAs(page, email);
  };
  /** Another device: an API client (its own cookie jar) signed in as `email`. Dispose it after. */
  readonly signedInElsewhere = async (email: string): Promise<APIRequestContext> => {
    const api = await request.newContext({ baseURL: this.base, extraHTTPHeaders: { origin: this.base } });
    await this.call(api, "POST", "/login", { email, password: PASSWORD });
    return api;
  };
  /** Signs in (without 2FA) and confirms the password on the security page: the settings show. */
  readonly openSettings = async (page: Page, email: string) => {
    await this.signInAndWait(page, email);
    await page.click('nav a[href="/settings/security"]');
    await confirmPassword(page);
    await expect.poll(() => visible(page, "#settings")).toBe(true);
  };
  /** Opens an email of the outbox from its list page and returns its first link (`?token=` when asked). */
  readonly linkFromOutbox = async (page: Page, kind: string, to: string, selector = 'a[href*="token="]') => {
    await this.newestEmail(kind, to);
    await page.goto(`${this.base}/dev/outbox`);
    await page.locator("li", { hasText: to }).filter({ hasText: kind }).first().locator("a").click();
    const href = (await page.frameLocator("iframe").locator(selector).first().getAttribute("href")) ?? "";
    // The links start with the origin the page (and the server's printed URL) has.
    expect(new URL(href).origin).toBe(this.base);
    return href;
  };
}
