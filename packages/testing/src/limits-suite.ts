import type { AuthOptions, SecurityEvent } from "@portcullis/core";
import { describe, expect, it, onTestFinished } from "vitest";
import {
  type AdapterSuiteOptions,
  type App,
  type Boot,
  createBoot,
  expectCode,
  PASSWORD,
} from "./adapter-suite/fixture.js";
import { createCountingHasher } from "./counting-hasher.js";
import type { HttpReply } from "./http-client.js";
import { referenceTotp } from "./two-factor-suite.js";

const FREE_ATTEMPTS = 5;

const count = (replies: HttpReply[], status: number) =>
  replies.filter((reply) => reply.status === status).length;

/** An app whose hasher counts password checks, and which keeps its security events. */
interface LimitsApp extends App {
  events: SecurityEvent[];
  /** Password checks so far. */
  verifies(): number;
}

/**
 * The limits of docs/limits.md over HTTP through an adapter, on whatever stores `createStores`
 * makes: every guess counted before it is checked (N concurrent wrong passwords, 2FA codes and
 * step-up passwords get no more checks than the sequential budget, counted at the hasher), per-IP
 * limits under `trustProxy`, one address form, and the pre-verification foothold. Each test
 * builds its own apps; no event of any test carries a secret. Not part of the transcript: which
 * of many concurrent requests wins varies.
 */
export function runLimitsAdapterSuite(
  options: Pick<AdapterSuiteOptions, "name" | "start" | "createStores" | "storeNow">,
): void {
  describe(`limits under concurrency: ${options.name}`, () => {
    const boot = createBoot(options);
    const start: StartLimits = (extra) => bootLimits(boot, extra);
    for (const [name, test] of Object.entries(limitsTests)) it(name, () => test(start));
  });
}

/** Builds a `LimitsApp` for the running test; `{ trustProxy: 1 }` puts it behind a proxy. */
type StartLimits = (extra?: Partial<AuthOptions>) => Promise<LimitsApp>;

const limitsTests: Record<string, (start: StartLimits) => Promise<void>> = {
  "login - 35 concurrent wrong passwords for one address check at most the budget; the right one after them is 429":
    async (start) => {
      const app = await start();
      const email = "burst@example.test";
      await app.api("POST", "/register", { body: { email, password: PASSWORD } });
      const before = app.verifies();
      const replies = await Promise.all(
        Array.from({ length: FREE_ATTEMPTS + 30 }, (_, index) =>
          app.api("POST", "/login", { body: { email, password: `wrong password ${index}` } }),
        ),
      );
      expect(count(replies, 401)).toBeLessThanOrEqual(FREE_ATTEMPTS);
      expect(count(replies, 401) + count(replies, 429)).toBe(replies.length);
      expect(app.verifies() - before).toBe(count(replies, 401));
      for (const reply of replies.filter((r) => r.status === 429)) expectCode(reply, 429, "LOGIN_THROTTLED");
      expectCode(
        await app.api("POST", "/login", { body: { email, password: PASSWORD } }),
        429,
        "LOGIN_THROTTLED",
      );
      expect(app.events.some((event) => event.type === "login.throttled")).toBe(true);
    },

  "outage - 5 concurrent logins failed by the users store are given back: afterwards the address's whole budget is checked, then 429":
    async (start) => {
      const app = await start();
      const email = "outage@example.test";
      await app.api("POST", "/register", { body: { email, password: PASSWORD } });
      const findByEmail = app.stores.users.findByEmail;
      app.stores.users.findByEmail = () => Promise.reject(new Error("connect ECONNREFUSED"));
      const during = await Promise.all(
        Array.from({ length: FREE_ATTEMPTS }, () =>
          app.api("POST", "/login", { body: { email, password: "wrong password" } }),
        ),
      );
      for (const reply of during) expectCode(reply, 500, "DATABASE_FAILURE");
      app.stores.users.findByEmail = findByEmail;
      const before = app.verifies();
      const after: HttpReply[] = [];
      for (let index = 0; index <= FREE_ATTEMPTS; index++)
        after.push(await app.api("POST", "/login", { body: { email, password: `wrong password ${index}` } }));
      expect(after.map((reply) => reply.status)).toEqual([...Array(FREE_ATTEMPTS).fill(401), 429]);
      expect(app.verifies() - before).toBe(FREE_ATTEMPTS);
    },

  "2fa - 35 concurrent wrong codes over 35 2FA tokens check at most the budget; a new password step and the right code stay 429":
    async (start) => {
      const app = await start();
      const email = "totp@example.test";
      const bearer = await verifiedAccount(app, email);
      const stepUp = await app.api("POST", "/step-up", { bearer, body: { password: PASSWORD } });
      const stepUpHeaders = { "x-step-up-token": String(stepUp.body.stepUpToken) };
      const setup = await app.api("GET", "/2fa/totp/setup", { bearer, headers: stepUpHeaders });
      const secret = String(setup.body.secret);
      const confirmed = await app.api("POST", "/2fa/totp/setup", {
        bearer,
        headers: stepUpHeaders,
        body: { setupToken: setup.body.setupToken, code: referenceTotp(secret, app.clock.now()) },
      });
      expect(confirmed.status).toBe(200);
      app.clock.advance(30_000);

      const tokens: string[] = [];
      for (let index = 0; index < FREE_ATTEMPTS + 30; index++) {
        const login = await app.api("POST", "/login", { body: { email, password: PASSWORD } });
        tokens.push(String(login.body.twoFactorAuthenticationToken));
      }
      const right = referenceTotp(secret, app.clock.now());
      const wrong = right === "000000" ? "111111" : "000000";
      const replies = await Promise.all(
        tokens.map((token) =>
          app.api("POST", "/2fa/login", {
            headers: { "x-two-factor-authentication-token": token },
            body: { code: wrong },
          }),
        ),
      );
      expect(count(replies, 401)).toBeLessThanOrEqual(5);
      expect(count(replies, 401) + count(replies, 429)).toBe(replies.length);
      for (const reply of replies.filter((r) => r.status === 401))
        expectCode(reply, 401, "WRONG_TWO_FACTOR_CODE");

      const again = await app.api("POST", "/login", { body: { email, password: PASSWORD } });
      expect(again.body.twoFactorRequired).toBe(true);
      expectCode(
        await app.api("POST", "/2fa/login", {
          headers: { "x-two-factor-authentication-token": String(again.body.twoFactorAuthenticationToken) },
          body: { code: right },
        }),
        429,
        "TWO_FACTOR_THROTTLED",
      );
    },

  "step-up - 35 concurrent wrong passwords share the session's password budget; the right one on that session is then 429, the address's login is not locked":
    async (start) => {
      const app = await start();
      const email = "stepup@example.test";
      await app.api("POST", "/register", { body: { email, password: PASSWORD } });
      const login = await app.api("POST", "/login", { body: { email, password: PASSWORD } });
      const bearer = String(login.body.accessToken);
      const before = app.verifies();
      const replies = await Promise.all(
        Array.from({ length: FREE_ATTEMPTS + 30 }, (_, index) =>
          app.api("POST", "/step-up", { bearer, body: { password: `wrong password ${index}` } }),
        ),
      );
      expect(count(replies, 401)).toBeLessThanOrEqual(FREE_ATTEMPTS);
      expect(app.verifies() - before).toBe(count(replies, 401));
      for (const reply of replies.filter((r) => r.status !== 401)) expectCode(reply, 429, "LOGIN_THROTTLED");
      expectCode(
        await app.api("POST", "/step-up", { bearer, body: { password: PASSWORD } }),
        429,
        "LOGIN_THROTTLED",
      );
      expect(app.verifies() - before).toBe(count(replies, 401));
      expect((await app.api("POST", "/login", { body: { email, password: PASSWORD } })).status).toBe(200);
    },

  "per-ip - behind trustProxy 1, failed logins over distinct addresses from one IP reach 429 at the documented 100; other IPs and forged left entries change nothing":
    async (start) => {
      const app = await start({ trustProxy: 1 });
      const from = (ip: string) => ({ "x-forwarded-for": ip });
      for (let index = 0; index < 100; index += 10) {
        const batch = await Promise.all(
          Array.from({ length: 10 }, (_, offset) =>
            app.api("POST", "/login", {
              headers: from("203.0.113.7"),
              body: { email: `nobody${index + offset}@example.test`, password: "wrong password" },
            }),
          ),
        );
        for (const reply of batch) expectCode(reply, 401, "INVALID_CREDENTIALS");
      }
      const limited = await app.api("POST", "/login", {
        headers: from("203.0.113.7"),
        body: { email: "somebody-else@example.test", password: "wrong password" },
      });
      expectCode(limited, 429, "LOGIN_THROTTLED");
      expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(15 * 60);
      for (const [forwarded, email, status, code] of [
        ["10.9.8.7, 203.0.113.7", "forged@example.test", 429, "LOGIN_THROTTLED"],
        ["198.51.100.9", "other-ip@example.test", 401, "INVALID_CREDENTIALS"],
      ] as const) {
        const reply = await app.api("POST", "/login", {
          headers: from(forwarded),
          body: { email, password: "wrong password" },
        });
        expectCode(reply, status, code);
      }
      expect(app.events.some((event) => event.type === "ip.limited" && event.ip === "203.0.113.7")).toBe(
        true,
      );
    },

  "per-ip - reset requests to distinct addresses from one forwarded IP are RATE_LIMITED after 20": async (
    start,
  ) => {
    const app = await start({ trustProxy: 1 });
    const replies: HttpReply[] = [];
    for (let index = 0; index < 21; index++) {
      replies.push(
        await app.api("POST", "/password/reset-request", {
          headers: { "x-forwarded-for": "192.0.2.44" },
          body: { email: `reset${index}@example.test` },
        }),
      );
    }
    expect(count(replies, 200)).toBe(20);
    expectCode(replies[20] as HttpReply, 429, "RATE_LIMITED");
  },

  "per-ip - loopback clients without trustProxy are not limited per IP, unless they carry a proxy's forwarding header: then limited by the loopback address, with one warning naming trustProxy":
    async (start) => {
      const app = await start({ ipLimits: { failedLogins: { max: 3, windowSeconds: 900 } } });
      const wrongLogin = (index: number, headers: Record<string, string> = {}) =>
        app.api("POST", "/login", {
          headers,
          body: { email: `loop${index}@example.test`, password: "wrong password" },
        });
      // A local client (no forwarding header): never limited per IP.
      const local = await Promise.all(Array.from({ length: 10 }, (_, index) => wrongLogin(index)));
      expect(count(local, 401)).toBe(10);
      expect(app.logLines.filter((line) => line.includes("trustProxy"))).toHaveLength(0);
      // A proxy in front, trustProxy unset: every visitor is the loopback address, counted as one.
      const proxied = [];
      for (let index = 0; index < 4; index++)
        proxied.push(await wrongLogin(100 + index, { "x-forwarded-for": `203.0.113.${index}` }));
      expect(proxied.slice(0, 3).map((reply) => reply.status)).toEqual([401, 401, 401]);
      expectCode(proxied[3] as HttpReply, 429, "LOGIN_THROTTLED");
      expectCode(await wrongLogin(200, { forwarded: "for=198.51.100.7" }), 429, "LOGIN_THROTTLED");
      expectCode(await wrongLogin(201, { "x-real-ip": "198.51.100.8" }), 429, "LOGIN_THROTTLED");
      expect((await wrongLogin(202)).status).toBe(401);
      const limited = app.events.filter((event) => event.type === "ip.limited");
      expect(limited.length).toBeGreaterThan(0);
      for (const event of limited) expect(["127.0.0.1", "::1"]).toContain(event.ip);
      const warnings = app.logLines.filter((line) => line.includes("trustProxy"));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0] as string).level).toBe("warn");
    },

  "addresses - fullwidth and IDNA variants are the same account and share its cooldown": async (start) => {
    const app = await start();
    await app.api("POST", "/register", { body: { email: "erin@x.test", password: PASSWORD } });
    for (const variant of ["ｅｒｉｎ@x.test", "erin@ｘ.test", "erin@x.ｔｅｓｔ", "ＥＲＩＮ＠ｘ．test"]) {
      await app.api("POST", "/register", { body: { email: variant, password: "another passphrase" } });
      const login = await app.api("POST", "/login", { body: { email: variant, password: PASSWORD } });
      expect(login.status, variant).toBe(200);
      expect((login.body.user as { email: string }).email).toBe("erin@x.test");
    }
    expect(
      (await app.api("POST", "/password/reset-request", { body: { email: "erin@x.test" } })).status,
    ).toBe(200);
    expectCode(
      await app.api("POST", "/password/reset-request", { body: { email: "ｅｒｉｎ@ｘ.ｔｅｓｔ" } }),
      429,
      "EMAIL_COOLDOWN_ACTIVE",
    );
    await app.api("POST", "/register", { body: { email: "zoë@bücher.test", password: PASSWORD } });
    const idna = await app.api("POST", "/login", {
      body: { email: "zoë@xn--bcher-kva.test", password: PASSWORD },
    });
    expect(idna.status).toBe(200);
    expect((idna.body.user as { email: string }).email).toBe("zoë@xn--bcher-kva.test");
  },

  "foothold - whoever registers someone else's address cannot turn on 2FA; the owner's reset ends their sessions and signs in without it":
    async (start) => {
      const app = await start();
      const email = "victim@example.test";
      await app.api("POST", "/register", { body: { email, password: "intruder's passphrase" } });
      const intruder = await app.api("POST", "/login", {
        body: { email, password: "intruder's passphrase" },
      });
      const bearer = String(intruder.body.accessToken);
      const stepUp = await app.api("POST", "/step-up", {
        bearer,
        body: { password: "intruder's passphrase" },
      });
      const headers = { "x-step-up-token": String(stepUp.body.stepUpToken) };
      expectCode(await app.api("GET", "/2fa/totp/setup", { bearer, headers }), 403, "EMAIL_NOT_VERIFIED");
      expectCode(await app.api("POST", "/2fa/email/send", { bearer }), 403, "EMAIL_NOT_VERIFIED");

      await app.api("POST", "/password/reset-request", { body: { email } });
      const token = app.tokenFrom("password-reset");
      const done = await app.api("POST", `/password/reset?token=${token}`, {
        body: { newPassword: "the owner's own passphrase" },
      });
      expect(done.status).toBe(200);
      expectCode(await app.api("GET", "/me", { bearer }), 401, "ACCESS_TOKEN_INVALID");
      const owner = await app.api("POST", "/login", {
        body: { email, password: "the owner's own passphrase" },
      });
      expect(owner.body).toMatchObject({ twoFactorRequired: false, user: { emailVerified: true } });
    },

  "csrf - an Origin with the server's host but another scheme is refused; the exact own origin passes":
    async (start) => {
      const direct = await start();
      const proxied = await start({ trustProxy: 1 });
      const own = new URL(direct.server.baseUrl);
      const body = { email: "csrf@example.test", password: PASSWORD };
      expectCode(
        await direct.api("POST", "/register", { body, headers: { origin: `https://${own.host}` } }),
        403,
        "CSRF_REJECTED",
      );
      expect((await direct.api("POST", "/register", { body, headers: { origin: own.origin } })).status).toBe(
        200,
      );
      expectCode(
        await proxied.api("POST", "/register", {
          body,
          headers: { origin: `https://${new URL(proxied.server.baseUrl).host}` },
        }),
        403,
        "CSRF_REJECTED",
      );
      expect(
        (
          await proxied.api("POST", "/register", {
            body,
            headers: {
              origin: `https://${new URL(proxied.server.baseUrl).host}`,
              "x-forwarded-proto": "https",
            },
          })
        ).status,
      ).toBe(200);
    },

  "login - a 2 h clock jump, corrected: the lock taken during it lasts at most its configured length (2 s), then the right password signs in":
    async (start) => {
      const app = await start({ loginThrottle: { baseLockSeconds: 2, maxLockSeconds: 4 } });
      const email = "clock-jump@example.test";
      await app.api("POST", "/register", { body: { email, password: PASSWORD } });
      /** Retry-After of a 429 `LOGIN_THROTTLED`, checked against `remaining`. */
      const retryAfter = (reply: HttpReply) => {
        expectCode(reply, 429, "LOGIN_THROTTLED");
        expect(reply.headers.get("retry-after")).toBe(String(reply.body.remaining));
        return Number(reply.body.remaining);
      };
      app.clock.advance(2 * 3_600_000);
      for (let index = 0; index < FREE_ATTEMPTS; index++) {
        const reply = await app.api("POST", "/login", {
          body: { email, password: `wrong password ${index}` },
        });
        expect(reply.status).toBe(401);
      }
      const locked = await app.api("POST", "/login", { body: { email, password: "wrong password" } });
      expect(retryAfter(locked)).toBeLessThanOrEqual(2);
      // The clock corrected: 2 h back. The lock still ends within its 2 s, not 2 h later.
      app.clock.advance(-2 * 3_600_000);
      const after = await app.api("POST", "/login", { body: { email, password: PASSWORD } });
      expect(retryAfter(after)).toBeLessThanOrEqual(2);
      await app.elapse(2_000);
      const signedIn = await app.api("POST", "/login", { body: { email, password: PASSWORD } });
      expect(signedIn.status, signedIn.text).toBe(200);
    },

  "events - no event carries a password, token or code": async (start) => {
    const app = await start();
    const email = "events@example.test";
    const bearer = await verifiedAccount(app, email);
    await app.api("POST", "/step-up", { bearer, body: { password: "wrong password 0" } });
    // The step-up counts in the session's budget: the address's login budget is spent by logins.
    for (let index = 1; index <= FREE_ATTEMPTS + 1; index++) {
      await app.api("POST", "/login", { body: { email, password: `wrong password ${index}` } });
    }
    await app.api("POST", "/password/reset-request", { body: { email } });
    const reset = await app.api("POST", `/password/reset?token=${app.tokenFrom("password-reset")}`, {
      body: { newPassword: "the next long passphrase" },
    });
    expect(reset.status).toBe(200);
    expect(app.events.map((event) => event.type)).toContain("login.throttled");
    expectNoSecrets(app.events);
  },
};

async function bootLimits(boot: Boot, extra: Partial<AuthOptions> = {}): Promise<LimitsApp> {
  const { passwordHasher, verifies } = createCountingHasher();
  const events: SecurityEvent[] = [];
  const app = await boot({
    passwordHasher,
    email: { loginAlerts: false },
    onEvent: (event) => void events.push(event),
    ...extra,
  });
  onTestFinished(() => expectNoSecrets(events));
  return { ...app, events, verifies };
}

/** No event carries a password, token or code. */
function expectNoSecrets(events: SecurityEvent[]): void {
  const text = JSON.stringify(events);
  expect(text).not.toContain(PASSWORD);
  expect(text).not.toContain("wrong password");
  expect(text).not.toMatch(/token=|\$argon2/);
}

/** Registers, verifies from the emailed link, and signs in: the access token. */
async function verifiedAccount(app: App, email: string): Promise<string> {
  await app.api("POST", "/register", { body: { email, password: PASSWORD } });
  await app.auth.idle();
  const message = app.emails.find((sent) => sent.kind === "email-verification" && sent.to === email);
  const token = /\?token=([\w-]+)/.exec(message?.text ?? "")?.[1];
  expect((await app.api("POST", `/email/verification?token=${token}`)).status).toBe(200);
  const login = await app.api("POST", "/login", { body: { email, password: PASSWORD } });
  expect(login.status).toBe(200);
  return String(login.body.accessToken);
}
