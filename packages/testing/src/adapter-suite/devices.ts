import { expect } from "vitest";
import type { HttpReply } from "../http-client.js";
import { type App, type AppTests, cookieValue, expectError, PASSWORD } from "./fixture.js";

/** The login budget of these tests: the defaults' free attempts, a short lock. */
const THROTTLE = {
  loginThrottle: { freeAttempts: 5, windowSeconds: 900, baseLockSeconds: 60, maxLockSeconds: 600 },
};
const FREE_ATTEMPTS = 5;
const DEVICE_COOKIE = "device_token";
const WRONG = "wrong password 123456";

/** A browser as these tests drive it: its device cookie, if it has one yet. */
interface Browser {
  device: string | undefined;
}

const newBrowser = (): Browser => ({ device: undefined });

/** The device cookie a reply set, kept by `browser` (a browser keeps its cookie when none is set). */
function keep(browser: Browser, reply: HttpReply): HttpReply {
  const value = cookieValue(reply.cookies, DEVICE_COOKIE);
  if (value) browser.device = value;
  return reply;
}

/** POST /login from `browser` (its device cookie, if any); `record: false` for bursts. */
async function login(
  app: App,
  browser: Browser,
  body: { email: string; password: string },
  { label = "login", record = true }: { label?: string; record?: boolean } = {},
): Promise<HttpReply> {
  const cookie = browser.device ? `${DEVICE_COOKIE}=${browser.device}` : undefined;
  const reply = await app.api("POST", "/login", { body, label, record, ...(cookie ? { cookie } : {}) });
  return keep(browser, reply);
}

/** Registers `email` from `browser` and signs in from it once: the browser now knows the account. */
async function registerFrom(app: App, browser: Browser, email: string, record = true): Promise<void> {
  const registered = await app.api("POST", "/register", {
    body: { email, password: PASSWORD },
    label: "register",
    record,
  });
  expect(registered.status).toBe(200);
  keep(browser, registered);
  expect(browser.device).toBeDefined();
  const first = await login(app, browser, { email, password: PASSWORD }, { label: "first sign-in", record });
  expect(first.status).toBe(200);
}

/** `count` wrong passwords for `email` from `browser`, one after another, unrecorded: their statuses. */
async function wrongGuesses(app: App, browser: Browser, email: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    statuses.push(
      (await login(app, browser, { email, password: `${WRONG} ${i}` }, { record: false })).status,
    );
  }
  return statuses;
}

const loginAlerts = async (app: App, to: string) => {
  await app.auth.idle();
  return app.emails.filter((email) => email.kind === "login-alert" && email.to === to).length;
};

/** Known browsers: the device cookie, the per-browser login budget and login alerts only for unknown browsers. */
export const devicesTests: AppTests = {
  "known browser - 40 wrong passwords from elsewhere lock the address; the browser that signed in before still signs in":
    async (boot) => {
      const app = await boot(THROTTLE);
      const email = "owner@example.test";
      const owner = newBrowser();
      await registerFrom(app, owner, email);
      const attacker = newBrowser();
      const statuses = await wrongGuesses(app, attacker, email, 40);
      expect(statuses.slice(0, FREE_ATTEMPTS)).toEqual(Array(FREE_ATTEMPTS).fill(401));
      expect(statuses.slice(FREE_ATTEMPTS)).toEqual(Array(40 - FREE_ATTEMPTS).fill(429));
      expectError(
        await login(app, attacker, { email, password: PASSWORD }, { label: "right password from elsewhere" }),
        429,
        "LOGIN_THROTTLED",
      );
      const mine = await login(
        app,
        owner,
        { email, password: PASSWORD },
        { label: "right password, known browser" },
      );
      expect(mine.status).toBe(200);
      expect(mine.cookies.some((cookie) => cookie.startsWith(`${DEVICE_COOKIE}=`))).toBe(true);
      // The known browser's success clears its own budget, not the lock from elsewhere.
      expectError(
        await login(app, attacker, { email, password: PASSWORD }, { record: false }),
        429,
        "LOGIN_THROTTLED",
      );
    },

  "known browser - its own wrong guesses lock only itself, after its budget": async (boot) => {
    const app = await boot(THROTTLE);
    const email = "clumsy@example.test";
    const owner = newBrowser();
    await registerFrom(app, owner, email);
    const statuses = await wrongGuesses(app, owner, email, FREE_ATTEMPTS + 3);
    expect(statuses).toEqual([...Array(FREE_ATTEMPTS).fill(401), 429, 429, 429]);
    expectError(
      await login(app, owner, { email, password: PASSWORD }, { label: "right password, locked browser" }),
      429,
      "LOGIN_THROTTLED",
    );
    const elsewhere = await login(
      app,
      newBrowser(),
      { email, password: PASSWORD },
      { label: "from elsewhere" },
    );
    expect(elsewhere.status).toBe(200);
  },

  "known browser - a password reset lifts the lock of every browser of the account: each signs in with the new password at once":
    async (boot) => {
      const app = await boot(THROTTLE);
      const email = "forgetful@example.test";
      const laptop = newBrowser();
      await registerFrom(app, laptop, email, false);
      const phone = newBrowser();
      const known = await login(app, phone, { email, password: PASSWORD }, { record: false });
      expect(known.status).toBe(200);
      const locked = [...Array(FREE_ATTEMPTS).fill(401), 429];
      expect(await wrongGuesses(app, laptop, email, FREE_ATTEMPTS + 1)).toEqual(locked);
      expect(await wrongGuesses(app, phone, email, FREE_ATTEMPTS + 1)).toEqual(locked);
      const requested = await app.api("POST", "/password/reset-request", { body: { email }, record: false });
      expect(requested.status).toBe(200);
      const newPassword = "a brand new passphrase";
      const token = app.tokenFrom("password-reset");
      const reset = await app.api("POST", `/password/reset?token=${token}`, {
        body: { newPassword },
        record: false,
      });
      expect(reset.status).toBe(200);
      for (const browser of [laptop, phone])
        expect((await login(app, browser, { email, password: newPassword }, { record: false })).status).toBe(
          200,
        );
    },

  "known browser - its cookie is no way around another account's lock": async (boot) => {
    const app = await boot(THROTTLE);
    const browser = newBrowser();
    await registerFrom(app, browser, "ada@example.test");
    const bob = "bob@example.test";
    await app.api("POST", "/register", { body: { email: bob, password: PASSWORD }, label: "register bob" });
    const statuses = await wrongGuesses(app, newBrowser(), bob, FREE_ATTEMPTS + 1);
    expect(statuses.at(-1)).toBe(429);
    const tried = await login(
      app,
      browser,
      { email: bob, password: PASSWORD },
      { label: "bob from ada's browser" },
    );
    expectError(tried, 429, "LOGIN_THROTTLED");
    // Its wrong guesses for bob counted on bob's address, not in ada's browser budget.
    expect((await login(app, browser, { email: "ada@example.test", password: PASSWORD })).status).toBe(200);
  },

  "known browser - 20 concurrent wrong guesses from it check no more than its budget; then it is locked":
    async (boot) => {
      const app = await boot(THROTTLE);
      const email = "burst@example.test";
      const owner = newBrowser();
      await registerFrom(app, owner, email);
      const cookie = `${DEVICE_COOKIE}=${owner.device}`;
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          app.api("POST", "/login", { body: { email, password: `${WRONG} ${i}` }, cookie, record: false }),
        ),
      );
      const failed = replies.filter((reply) => reply.status === 401).length;
      expect(failed).toBeLessThanOrEqual(FREE_ATTEMPTS);
      expect(replies.filter((reply) => reply.status === 429)).toHaveLength(20 - failed);
      expectError(
        await login(app, owner, { email, password: PASSWORD }, { label: "after the burst" }),
        429,
        "LOGIN_THROTTLED",
      );
      expect(
        (await login(app, newBrowser(), { email, password: PASSWORD }, { label: "elsewhere" })).status,
      ).toBe(200);
    },

  "known browser - a tampered cookie, or one made under another secret, counts as an unknown browser": async (
    boot,
  ) => {
    const app = await boot(THROTTLE);
    const email = "forged@example.test";
    const owner = newBrowser();
    await registerFrom(app, owner, email);
    const other = await boot({
      ...THROTTLE,
      secret: "another-suite-secret-Jq4Lx9Vn2Rb7Tz1Mk6Yc3Hw8Pd5Gf0Ss",
    });
    const foreign = newBrowser();
    await registerFrom(other, foreign, email);
    await wrongGuesses(app, newBrowser(), email, FREE_ATTEMPTS + 1);
    const real = String(owner.device);
    const tampered = `${real.slice(0, -1)}${real.endsWith("A") ? "B" : "A"}`;
    for (const device of [tampered, foreign.device, `${real}x`, "garbage"]) {
      expectError(
        await login(app, { device }, { email, password: PASSWORD }, { label: "forged" }),
        429,
        "LOGIN_THROTTLED",
      );
    }
    expect((await login(app, owner, { email, password: PASSWORD }, { label: "the real one" })).status).toBe(
      200,
    );
  },

  "login alerts - a new browser alerts, a second sign-in from it does not, the registering browser's first does not":
    async (boot) => {
      const app = await boot();
      const email = "alerts@example.test";
      const registering = newBrowser();
      await registerFrom(app, registering, email);
      expect(await loginAlerts(app, email)).toBe(0);
      expect((await login(app, registering, { email, password: PASSWORD })).status).toBe(200);
      expect(await loginAlerts(app, email)).toBe(0);
      const laptop = newBrowser();
      expect((await login(app, laptop, { email, password: PASSWORD }, { label: "new browser" })).status).toBe(
        200,
      );
      expect(await loginAlerts(app, email)).toBe(1);
      expect((await login(app, laptop, { email, password: PASSWORD }, { label: "again" })).status).toBe(200);
      expect(await loginAlerts(app, email)).toBe(1);
    },

  "header clients - deviceToken in the answer, sent back as X-Device-Token: no alert and a budget of its own":
    async (boot) => {
      const app = await boot(THROTTLE);
      const email = "header@example.test";
      await app.api("POST", "/register", { body: { email, password: PASSWORD }, label: "register" });
      const first = await app.api("POST", "/login", { body: { email, password: PASSWORD }, label: "login" });
      expect(first.status).toBe(200);
      const deviceToken = String(first.body.deviceToken);
      expect(deviceToken).toBe(cookieValue(first.cookies, DEVICE_COOKIE));
      expect(await loginAlerts(app, email)).toBe(1);
      const statuses = await wrongGuesses(app, newBrowser(), email, FREE_ATTEMPTS + 1);
      expect(statuses.at(-1)).toBe(429);
      const headers = { "x-device-token": deviceToken };
      const again = await app.api("POST", "/login", {
        body: { email, password: PASSWORD },
        headers,
        label: "header",
      });
      expect(again.status).toBe(200);
      expect(typeof again.body.deviceToken).toBe("string");
      expect(await loginAlerts(app, email)).toBe(1);
      const forged = {
        "x-device-token": `${deviceToken.slice(0, -1)}${deviceToken.endsWith("A") ? "B" : "A"}`,
      };
      expectError(
        await app.api("POST", "/login", {
          body: { email, password: PASSWORD },
          headers: forged,
          label: "forged",
        }),
        429,
        "LOGIN_THROTTLED",
      );
    },
};
