import { describe, expect } from "vitest";
import type { HttpReply } from "../http-client.js";
import { referenceTotp } from "../two-factor-suite.js";
import {
  type AdapterSuiteOptions,
  type App,
  type AppTests,
  cookieValue,
  expectCode,
  PASSWORD,
  runAppTests,
} from "./fixture.js";

const DEVICE_COOKIE = "device_token";
const TOTP_STEP = 30_000;
const DAY_MS = 24 * 3600 * 1000;
const NEW_PASSWORD = "a new long passphrase";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0";

/** A browser as these tests drive it: its device cookie, if it has one yet. */
interface Browser {
  device: string | undefined;
}

const newBrowser = (): Browser => ({ device: undefined });

/** An account with TOTP on, enrolled from `browser`, and its current code. */
interface Enrolled {
  email: string;
  browser: Browser;
  secret: string;
  recoveryCodes: string[];
  /** A TOTP code of now; the clock moves one step on first, so no code is used twice. */
  code(): string;
}

/** A call from `browser`: its device cookie is sent, and a new one the reply sets is kept. */
async function from(
  app: App,
  browser: Browser,
  method: string,
  path: string,
  init: { body?: unknown; bearer?: string; headers?: Record<string, string>; label?: string } = {},
): Promise<HttpReply> {
  const cookie = browser.device ? `${DEVICE_COOKIE}=${browser.device}` : undefined;
  const reply = await app.api(method, path, { ...init, ...(cookie ? { cookie } : {}) });
  const value = cookieValue(reply.cookies, DEVICE_COOKIE);
  if (value) browser.device = value;
  return reply;
}

const passwordStep = (app: App, browser: Browser, email: string, password = PASSWORD) =>
  from(app, browser, "POST", "/login", { body: { email, password }, label: "password step" });

const twoFactorHeader = (reply: HttpReply) => ({
  "x-two-factor-authentication-token": String(reply.body.twoFactorAuthenticationToken),
});

/** Registers `email` from `browser`, verifies it, turns TOTP on: the second factor is now asked. */
async function enrol(app: App, email: string, browser = newBrowser()): Promise<Enrolled> {
  const registered = await from(app, browser, "POST", "/register", {
    body: { email, password: PASSWORD },
    label: "register",
  });
  expect(registered.status, `register answered ${JSON.stringify(registered.body)}`).toBe(200);
  await app.auth.idle();
  const verify = `/email/verification?token=${app.tokenFrom("email-verification")}`;
  expect((await app.api("POST", verify, { label: "verify" })).status).toBe(200);
  const bearer = String((await passwordStep(app, browser, email)).body.accessToken);
  const stepUp = await app.api("POST", "/step-up", { bearer, body: { password: PASSWORD } });
  const headers = { "x-step-up-token": String(stepUp.body.stepUpToken) };
  const setup = await app.api("GET", "/2fa/totp/setup", { bearer, headers, label: "totp setup" });
  const secret = String(setup.body.secret);
  const confirmed = await app.api("POST", "/2fa/totp/setup", {
    bearer,
    headers,
    body: { setupToken: setup.body.setupToken, code: referenceTotp(secret, app.clock.now()) },
  });
  expect(confirmed.status).toBe(200);
  const code = () => {
    app.clock.advance(TOTP_STEP);
    return referenceTotp(secret, app.clock.now());
  };
  return { email, browser, secret, recoveryCodes: setup.body.recoveryCodes as string[], code };
}

/** Password and TOTP from `browser`, with `trustBrowser` as given: the signed-in reply. */
async function signInWithCode(app: App, account: Enrolled, browser: Browser, trustBrowser?: boolean) {
  const login = await passwordStep(app, browser, account.email);
  expect(login.body.twoFactorRequired).toBe(true);
  const done = await from(app, browser, "POST", "/2fa/login", {
    headers: { ...twoFactorHeader(login), "user-agent": FIREFOX },
    body: { code: account.code(), ...(trustBrowser === undefined ? {} : { trustBrowser }) },
    label: trustBrowser ? "second factor, trust this browser" : "second factor",
  });
  expect(done.status).toBe(200);
  return done;
}

/** Whether a password sign-in from `browser` skipped the second factor (else it asked for it). */
async function skips(app: App, account: Enrolled, browser: Browser): Promise<boolean> {
  const login = await passwordStep(app, browser, account.email);
  expect(login.status).toBe(200);
  return login.body.twoFactorRequired === false;
}

/** A step-up token of a session of a 2FA account: the password, then the second factor. */
async function stepUpToken(app: App, account: Enrolled, bearer: string): Promise<string> {
  const first = await app.api("POST", "/step-up", { bearer, body: { password: PASSWORD } });
  expect(first.body).toMatchObject({ twoFactorRequired: true, stepUpToken: null });
  const second = await app.api("POST", "/2fa/step-up", {
    bearer,
    headers: twoFactorHeader(first),
    body: { code: account.code() },
  });
  expect(second.status).toBe(200);
  return String(second.body.stepUpToken);
}

/** Trusts the enrolment browser, checks that it skips, runs `end`, and expects the trust gone. */
async function expectTrustEndsAfter(
  app: App,
  end: (account: Enrolled, bearer: string) => Promise<void>,
  password = PASSWORD,
): Promise<void> {
  const account = await enrol(app, "ada@example.test");
  const trusted = await signInWithCode(app, account, account.browser, true);
  expect(await skips(app, account, account.browser)).toBe(true);
  await end(account, String(trusted.body.accessToken));
  const login = await passwordStep(app, account.browser, account.email, password);
  expect(login.status).toBe(200);
  expect(login.body.twoFactorRequired).toBe(true);
}

/** Trusted browsers: `trustBrowser: true` on a second-factor step, its list, and what ends it. */
export const trustedBrowsersTests: AppTests = {
  "POST /2fa/login - trustBrowser skips the next password sign-in's second factor in that browser only":
    async (boot) => {
      const app = await boot();
      const account = await enrol(app, "ada@example.test");
      const laptop = account.browser;
      await signInWithCode(app, account, laptop);
      expect(await skips(app, account, laptop)).toBe(false);
      await signInWithCode(app, account, laptop, true);
      const skipped = await passwordStep(app, laptop, account.email);
      expect(skipped.body).toMatchObject({ twoFactorRequired: false, accessToken: expect.any(String) });
      const activity = await app.api("GET", "/activity", { bearer: String(skipped.body.accessToken) });
      expect((activity.body.items as unknown[])[0]).toMatchObject({
        type: "login.succeeded",
        reason: "trusted_browser",
      });
      // Another browser (no cookie, and one that signed in to the account without trust) is asked.
      expect(await skips(app, account, newBrowser())).toBe(false);
      const phone = newBrowser();
      await signInWithCode(app, account, phone);
      expect(await skips(app, account, phone)).toBe(false);
      expectCode(
        await passwordStep(app, laptop, account.email, "wrong password 123456"),
        401,
        "INVALID_CREDENTIALS",
      );
    },

  "POST /2fa/recover - trustBrowser with a recovery code trusts the browser too": async (boot) => {
    const app = await boot();
    const account = await enrol(app, "ada@example.test");
    const login = await passwordStep(app, account.browser, account.email);
    const recovered = await from(app, account.browser, "POST", "/2fa/recover", {
      headers: twoFactorHeader(login),
      body: { code: account.recoveryCodes[0], trustBrowser: true },
    });
    expect(recovered.status).toBe(200);
    expect(await skips(app, account, account.browser)).toBe(true);
  },

  "GET /2fa/trusted-browsers - lists browser, OS, since and last used; DELETE one by id ends it": async (
    boot,
  ) => {
    const app = await boot();
    const account = await enrol(app, "ada@example.test");
    const since = app.clock.now();
    await signInWithCode(app, account, account.browser, true);
    const other = await enrol(app, "bob@example.test");
    await signInWithCode(app, other, other.browser, true);
    app.clock.advance(DAY_MS);
    const skipped = await passwordStep(app, account.browser, account.email);
    expect(skipped.body.twoFactorRequired).toBe(false);
    const bearer = String(skipped.body.accessToken);
    const listed = await from(app, account.browser, "GET", "/2fa/trusted-browsers", { bearer });
    expect(listed.status).toBe(200);
    const browsers = listed.body.browsers as Record<string, unknown>[];
    expect(browsers).toEqual([
      expect.objectContaining({ browser: "Firefox 130", os: "Linux", current: true }),
    ]);
    const [entry] = browsers as [Record<string, unknown>];
    const used = Date.parse(String(entry.lastUsedAt)) - Date.parse(String(entry.createdAt));
    expect(used).toBeGreaterThanOrEqual(DAY_MS);
    expect(used).toBeLessThan(DAY_MS + 60_000);
    expect(Date.parse(String(entry.createdAt))).toBeGreaterThanOrEqual(since);
    expectCode(
      await app.api("DELETE", `/2fa/trusted-browsers/${"A".repeat(43)}`, { bearer }),
      404,
      "NOT_FOUND",
    );
    const forgot = await app.api("DELETE", `/2fa/trusted-browsers/${String(entry.id)}`, { bearer });
    expect(forgot.body).toEqual({ success: true, forgotten: 1 });
    expect(await skips(app, account, account.browser)).toBe(false);
    expect((await app.api("GET", "/2fa/trusted-browsers", { bearer })).body).toEqual({ browsers: [] });
    // Bob's trust is untouched.
    expect(await skips(app, other, other.browser)).toBe(true);
  },

  "DELETE /2fa/trusted-browsers - forgets every browser; a cookie copied before does not skip": async (
    boot,
  ) => {
    const app = await boot();
    const account = await enrol(app, "ada@example.test");
    const signedIn = await signInWithCode(app, account, account.browser, true);
    const copy: Browser = { device: account.browser.device };
    expect(await skips(app, account, copy)).toBe(true);
    const stolen: Browser = { device: account.browser.device };
    const bearer = String(signedIn.body.accessToken);
    expect((await app.api("DELETE", "/2fa/trusted-browsers", { bearer })).body).toMatchObject({
      success: true,
      forgotten: 1,
    });
    expect(await skips(app, account, stolen)).toBe(false);
    expect(await skips(app, account, account.browser)).toBe(false);
  },

  "trust - a device cookie trusted by account A never skips account B's second factor": async (boot) => {
    const app = await boot();
    const ada = await enrol(app, "ada@example.test");
    await signInWithCode(app, ada, ada.browser, true);
    const bob = await enrol(app, "bob@example.test");
    // Bob signs in from Ada's trusted browser: his second factor is asked, then (untrusted) again.
    const shared: Browser = { device: ada.browser.device };
    expect(await skips(app, bob, shared)).toBe(false);
    await signInWithCode(app, bob, shared);
    expect(await skips(app, bob, shared)).toBe(false);
    expect(await skips(app, ada, shared)).toBe(true);
  },

  "trust - a forged or altered device cookie does not skip the second factor": async (boot) => {
    const app = await boot();
    const account = await enrol(app, "ada@example.test");
    await signInWithCode(app, account, account.browser, true);
    const genuine = String(account.browser.device);
    const parts = genuine.split(".");
    const otherId = `${parts[0]}.${"B".repeat(22)}.${parts[2]}.${parts[3]}`;
    expect(await skips(app, account, { device: otherId })).toBe(false);
    expect(await skips(app, account, { device: `${genuine.slice(0, -2)}xx` })).toBe(false);
    expect(await skips(app, account, { device: "d1.not.a.token" })).toBe(false);
    expect(await skips(app, account, { device: genuine })).toBe(true);
  },

  "trust - ends after twoFactor.trustBrowserDays": async (boot) => {
    const app = await boot({ twoFactor: { trustBrowserDays: 2 } });
    const account = await enrol(app, "ada@example.test");
    await signInWithCode(app, account, account.browser, true);
    app.clock.advance(DAY_MS);
    expect(await skips(app, account, account.browser)).toBe(true);
    app.clock.advance(DAY_MS);
    expect(await skips(app, account, account.browser)).toBe(false);
  },

  "trust - ends on a password change": async (boot) => {
    const app = await boot();
    await expectTrustEndsAfter(
      app,
      async (_account, bearer) => {
        const body = { currentPassword: PASSWORD, newPassword: NEW_PASSWORD };
        expect((await app.api("POST", "/password/change", { bearer, body })).status).toBe(200);
      },
      NEW_PASSWORD,
    );
  },

  "trust - ends on a password reset": async (boot) => {
    const app = await boot();
    await expectTrustEndsAfter(
      app,
      async (account) => {
        await app.api("POST", "/password/reset-request", { body: { email: account.email } });
        await app.auth.idle();
        const path = `/password/reset?token=${app.tokenFrom("password-reset")}`;
        expect((await app.api("POST", path, { body: { newPassword: NEW_PASSWORD } })).status).toBe(200);
      },
      NEW_PASSWORD,
    );
  },

  "trust - ends on a change of the 2FA settings (email turned on)": async (boot) => {
    const app = await boot();
    await expectTrustEndsAfter(app, async (account, bearer) => {
      const headers = { "x-step-up-token": await stepUpToken(app, account, bearer) };
      expect((await app.api("POST", "/2fa/email/send", { bearer })).status).toBe(200);
      const code = /(\d{6})/.exec(
        app.emails.filter((message) => message.kind === "two-factor-code").at(-1)?.text ?? "",
      )?.[1];
      const enabled = await app.api("POST", "/2fa/email/enable", { bearer, headers, body: { code } });
      expect(enabled.body).toMatchObject({ twoFactorMethods: ["totp", "email"] });
    });
  },

  "trust - ends on sign out everywhere": async (boot) => {
    const app = await boot();
    await expectTrustEndsAfter(app, async (_account, bearer) => {
      expect((await app.api("DELETE", "/sessions", { bearer })).status).toBe(200);
    });
  },

  "trust - a store that fails while the trusts are read asks for the second factor": async (boot) => {
    const app = await boot();
    const account = await enrol(app, "ada@example.test");
    await signInWithCode(app, account, account.browser, true);
    const tokens = app.stores.singleUseTokens;
    const list = tokens.listUserTokens;
    tokens.listUserTokens = async () => {
      throw new Error("store down");
    };
    expect(await skips(app, account, account.browser)).toBe(false);
    tokens.listUserTokens = list;
    expect(await skips(app, account, account.browser)).toBe(true);
  },

  "POST /step-up - a trusted browser's step-up still asks for the second factor": async (boot) => {
    const app = await boot();
    const account = await enrol(app, "ada@example.test");
    await signInWithCode(app, account, account.browser, true);
    const skipped = await passwordStep(app, account.browser, account.email);
    expect(skipped.body.twoFactorRequired).toBe(false);
    const bearer = String(skipped.body.accessToken);
    const stepUp = await from(app, account.browser, "POST", "/step-up", {
      bearer,
      body: { password: PASSWORD },
    });
    expect(stepUp.body).toMatchObject({ twoFactorRequired: true, stepUpToken: null });
  },
};

/**
 * Trusted browsers (`trustBrowser: true` on `/2fa/login` and `/2fa/recover`), without transcripts:
 * the skipped second factor in that browser only, the list and forgetting, and each event that
 * ends the trust (password change and reset, a 2FA change, sign out everywhere, expiry), a forged
 * cookie, another account's cookie, and a cookie copied before the trust was revoked. The expiry
 * is passed on the suite's fake clock (the core checks it), so stores with `storeNow` run it too.
 */
export function runTrustedBrowsersAdapterSuite(
  options: Pick<AdapterSuiteOptions, "name" | "start" | "createStores" | "storeNow">,
): void {
  describe(`trusted browsers: ${options.name}`, () =>
    runAppTests(options, "trusted-browsers", trustedBrowsersTests));
}
