import {
  type Auth,
  type AuthOptions,
  type Clock,
  createArgon2Hasher,
  createAuth,
  type EmailMessage,
  type PasswordHasher,
  type SecurityEvent,
  silentLogger,
} from "@portcullis/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdapterSuiteOptions, StartedServer } from "./adapter-suite.js";
import { referenceTotp } from "./two-factor-suite.js";
import { waitFor } from "./wait.js";

const PASSWORD = "correct horse battery staple";
const APP_ORIGIN = "https://app.example.test";
const FREE_ATTEMPTS = 5;

interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

type Call = (
  method: string,
  path: string,
  init?: { body?: unknown; headers?: Record<string, string>; bearer?: string },
) => Promise<Reply>;

const count = (replies: Reply[], status: number) => replies.filter((reply) => reply.status === status).length;

/**
 * The limits of CONTRACT §8 over HTTP through an adapter, on whatever stores `createStores`
 * makes: every guess counted before it is checked (N concurrent wrong passwords, 2FA codes and
 * step-up passwords get no more checks than the sequential budget, counted at the hasher), per-IP
 * limits under `trustProxy`, one address form, and the pre-verification foothold.
 */
export function runLimitsAdapterSuite(
  options: Pick<AdapterSuiteOptions, "name" | "start" | "createStores">,
): void {
  describe(`limits under concurrency: ${options.name}`, () => {
    let now = Date.UTC(2026, 5, 1, 12);
    const clock: Clock & { advance(ms: number): void } = {
      now: () => now,
      advance: (ms) => {
        now += ms;
      },
    };
    const emails: EmailMessage[] = [];
    const events: SecurityEvent[] = [];
    const servers: StartedServer[] = [];
    const cheap = createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 });
    let verifies = 0;
    const hasher: PasswordHasher = {
      hash: (password) => cheap.hash(password),
      verify: (hash, password) => {
        verifies += 1;
        return cheap.verify(hash, password);
      },
      needsRehash: (hash) => cheap.needsRehash(hash),
    };

    const start = async (
      extra: Partial<AuthOptions> = {},
    ): Promise<{ auth: Auth; call: Call; base: string }> => {
      const auth = createAuth({
        secret: "limits-suite-secret-0123456789-abcdefghij",
        stores: options.createStores(clock),
        clock,
        logger: silentLogger,
        appOrigin: APP_ORIGIN,
        mailer: { send: async (message) => void emails.push(message) },
        passwordHasher: hasher,
        email: { loginAlerts: false },
        onEvent: (event) => void events.push(event),
        ...extra,
      });
      await auth.ready();
      const server = await options.start(auth);
      servers.push(server);
      const call: Call = async (method, path, init = {}) => {
        const headers: Record<string, string> = {
          ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
          ...init.headers,
        };
        if (init.bearer) headers.authorization = `Bearer ${init.bearer}`;
        const response = await fetch(`${server.baseUrl}/api/auth${path}`, {
          method,
          headers,
          body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
        });
        const text = await response.text();
        return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : {} };
      };
      return { auth, call, base: server.baseUrl };
    };

    const expectCode = (reply: Reply, status: number, code: string) => {
      expect(reply.status, JSON.stringify(reply.body)).toBe(status);
      expect(reply.headers.get("auth-error-code")).toBe(code);
      if (status === 429) expect(Number(reply.headers.get("retry-after"))).toBeGreaterThan(0);
    };

    /** Registers, verifies from the emailed link, and signs in: the access token. */
    const verifiedAccount = async (call: Call, email: string): Promise<string> => {
      await call("POST", "/register", { body: { email, password: PASSWORD } });
      const message = await waitFor(() =>
        emails.find((sent) => sent.kind === "email-verification" && sent.to === email),
      );
      const token = /\?token=([\w-]+)/.exec(message.text)?.[1];
      expect((await call("POST", `/email/verification?token=${token}`)).status).toBe(200);
      const login = await call("POST", "/login", { body: { email, password: PASSWORD } });
      expect(login.status).toBe(200);
      return String(login.body.accessToken);
    };

    let direct: Awaited<ReturnType<typeof start>>;
    let proxied: Awaited<ReturnType<typeof start>>;
    beforeAll(async () => {
      direct = await start();
      proxied = await start({ trustProxy: 1 });
    });
    afterAll(async () => {
      for (const server of servers) await server.close();
    });

    it("login - 35 concurrent wrong passwords for one address check at most the budget; the right one after them is 429", async () => {
      const email = "burst@example.test";
      await direct.call("POST", "/register", { body: { email, password: PASSWORD } });
      const before = verifies;
      const replies = await Promise.all(
        Array.from({ length: FREE_ATTEMPTS + 30 }, (_, index) =>
          direct.call("POST", "/login", { body: { email, password: `wrong password ${index}` } }),
        ),
      );
      expect(count(replies, 401)).toBeLessThanOrEqual(FREE_ATTEMPTS);
      expect(count(replies, 401) + count(replies, 429)).toBe(replies.length);
      expect(verifies - before).toBe(count(replies, 401));
      for (const reply of replies.filter((r) => r.status === 429)) expectCode(reply, 429, "LOGIN_THROTTLED");
      expectCode(
        await direct.call("POST", "/login", { body: { email, password: PASSWORD } }),
        429,
        "LOGIN_THROTTLED",
      );
      expect(events.some((event) => event.type === "login.throttled")).toBe(true);
    });

    it("2fa - 35 concurrent wrong codes over 35 2FA tokens check at most the budget; a new password step and the right code stay 429", async () => {
      const email = "totp@example.test";
      const bearer = await verifiedAccount(direct.call, email);
      const stepUp = await direct.call("POST", "/step-up", { bearer, body: { password: PASSWORD } });
      const stepUpHeaders = { "x-step-up-token": String(stepUp.body.stepUpToken) };
      const setup = await direct.call("GET", "/2fa/totp/setup", { bearer, headers: stepUpHeaders });
      const secret = String(setup.body.secret);
      const confirmed = await direct.call("POST", "/2fa/totp/setup", {
        bearer,
        headers: stepUpHeaders,
        body: { setupToken: setup.body.setupToken, code: referenceTotp(secret, clock.now()) },
      });
      expect(confirmed.status).toBe(200);
      clock.advance(30_000);

      const tokens: string[] = [];
      for (let index = 0; index < FREE_ATTEMPTS + 30; index++) {
        const login = await direct.call("POST", "/login", { body: { email, password: PASSWORD } });
        tokens.push(String(login.body.twoFactorAuthenticationToken));
      }
      const right = referenceTotp(secret, clock.now());
      const wrong = right === "000000" ? "111111" : "000000";
      const replies = await Promise.all(
        tokens.map((token) =>
          direct.call("POST", "/2fa/login", {
            headers: { "x-two-factor-authentication-token": token },
            body: { code: wrong },
          }),
        ),
      );
      expect(count(replies, 401)).toBeLessThanOrEqual(5);
      expect(count(replies, 401) + count(replies, 429)).toBe(replies.length);
      for (const reply of replies.filter((r) => r.status === 401))
        expectCode(reply, 401, "WRONG_TWO_FACTOR_CODE");

      const again = await direct.call("POST", "/login", { body: { email, password: PASSWORD } });
      expect(again.body.twoFactorRequired).toBe(true);
      expectCode(
        await direct.call("POST", "/2fa/login", {
          headers: { "x-two-factor-authentication-token": String(again.body.twoFactorAuthenticationToken) },
          body: { code: right },
        }),
        429,
        "TWO_FACTOR_THROTTLED",
      );
    });

    it("step-up - 35 concurrent wrong passwords share the address's login budget; login with the right password is then 429", async () => {
      const email = "stepup@example.test";
      await direct.call("POST", "/register", { body: { email, password: PASSWORD } });
      const login = await direct.call("POST", "/login", { body: { email, password: PASSWORD } });
      const bearer = String(login.body.accessToken);
      const before = verifies;
      const replies = await Promise.all(
        Array.from({ length: FREE_ATTEMPTS + 30 }, (_, index) =>
          direct.call("POST", "/step-up", { bearer, body: { password: `wrong password ${index}` } }),
        ),
      );
      expect(count(replies, 401)).toBeLessThanOrEqual(FREE_ATTEMPTS);
      expect(verifies - before).toBe(count(replies, 401));
      for (const reply of replies.filter((r) => r.status !== 401)) expectCode(reply, 429, "LOGIN_THROTTLED");
      expectCode(
        await direct.call("POST", "/login", { body: { email, password: PASSWORD } }),
        429,
        "LOGIN_THROTTLED",
      );
    });

    it("per-ip - behind trustProxy 1, failed logins over distinct addresses from one IP reach 429 at the documented 100; other IPs and forged left entries change nothing", async () => {
      const from = (ip: string) => ({ "x-forwarded-for": ip });
      for (let index = 0; index < 100; index += 10) {
        const batch = await Promise.all(
          Array.from({ length: 10 }, (_, offset) =>
            proxied.call("POST", "/login", {
              headers: from("203.0.113.7"),
              body: { email: `nobody${index + offset}@example.test`, password: "wrong password" },
            }),
          ),
        );
        for (const reply of batch) expectCode(reply, 401, "INVALID_CREDENTIALS");
      }
      const limited = await proxied.call("POST", "/login", {
        headers: from("203.0.113.7"),
        body: { email: "somebody-else@example.test", password: "wrong password" },
      });
      expectCode(limited, 429, "LOGIN_THROTTLED");
      expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(15 * 60);
      expectCode(
        await proxied.call("POST", "/login", {
          headers: from("10.9.8.7, 203.0.113.7"),
          body: { email: "forged@example.test", password: "wrong password" },
        }),
        429,
        "LOGIN_THROTTLED",
      );
      expectCode(
        await proxied.call("POST", "/login", {
          headers: from("198.51.100.9"),
          body: { email: "other-ip@example.test", password: "wrong password" },
        }),
        401,
        "INVALID_CREDENTIALS",
      );
      expect(events.some((event) => event.type === "ip.limited" && event.ip === "203.0.113.7")).toBe(true);
    });

    it("per-ip - reset requests to distinct addresses from one forwarded IP are RATE_LIMITED after 20", async () => {
      const replies: Reply[] = [];
      for (let index = 0; index < 21; index++) {
        replies.push(
          await proxied.call("POST", "/password/reset-request", {
            headers: { "x-forwarded-for": "192.0.2.44" },
            body: { email: `reset${index}@example.test` },
          }),
        );
      }
      expect(count(replies, 200)).toBe(20);
      expectCode(replies[20] as Reply, 429, "RATE_LIMITED");
    });

    it("per-ip - loopback clients without trustProxy are not limited per IP (a forwarded header is ignored)", async () => {
      const replies: Reply[] = [];
      for (let index = 0; index < 110; index += 10) {
        replies.push(
          ...(await Promise.all(
            Array.from({ length: 10 }, (_, offset) =>
              direct.call("POST", "/login", {
                headers: { "x-forwarded-for": "203.0.113.99" },
                body: { email: `loop${index + offset}@example.test`, password: "wrong password" },
              }),
            ),
          )),
        );
      }
      expect(count(replies, 401)).toBe(110);
    });

    it("addresses - fullwidth and IDNA variants are the same account and share its cooldown", async () => {
      await direct.call("POST", "/register", { body: { email: "erin@x.test", password: PASSWORD } });
      for (const variant of ["ｅｒｉｎ@x.test", "erin@ｘ.test", "erin@x.ｔｅｓｔ", "ＥＲＩＮ＠ｘ．test"]) {
        await direct.call("POST", "/register", { body: { email: variant, password: "another passphrase" } });
        const login = await direct.call("POST", "/login", { body: { email: variant, password: PASSWORD } });
        expect(login.status, variant).toBe(200);
        expect((login.body.user as { email: string }).email).toBe("erin@x.test");
      }
      expect(
        (await direct.call("POST", "/password/reset-request", { body: { email: "erin@x.test" } })).status,
      ).toBe(200);
      expectCode(
        await direct.call("POST", "/password/reset-request", { body: { email: "ｅｒｉｎ@ｘ.ｔｅｓｔ" } }),
        429,
        "EMAIL_COOLDOWN_ACTIVE",
      );
      await direct.call("POST", "/register", { body: { email: "zoë@bücher.test", password: PASSWORD } });
      const idna = await direct.call("POST", "/login", {
        body: { email: "zoë@xn--bcher-kva.test", password: PASSWORD },
      });
      expect(idna.status).toBe(200);
      expect((idna.body.user as { email: string }).email).toBe("zoë@xn--bcher-kva.test");
    });

    it("foothold - whoever registers someone else's address cannot turn on 2FA; the owner's reset ends their sessions and signs in without it", async () => {
      const email = "victim@example.test";
      await direct.call("POST", "/register", { body: { email, password: "intruder's passphrase" } });
      const intruder = await direct.call("POST", "/login", {
        body: { email, password: "intruder's passphrase" },
      });
      const bearer = String(intruder.body.accessToken);
      const stepUp = await direct.call("POST", "/step-up", {
        bearer,
        body: { password: "intruder's passphrase" },
      });
      const headers = { "x-step-up-token": String(stepUp.body.stepUpToken) };
      expectCode(await direct.call("GET", "/2fa/totp/setup", { bearer, headers }), 403, "EMAIL_NOT_VERIFIED");
      expectCode(await direct.call("POST", "/2fa/email/send", { bearer }), 403, "EMAIL_NOT_VERIFIED");

      await direct.call("POST", "/password/reset-request", { body: { email } });
      const reset = await waitFor(() =>
        emails.find((sent) => sent.kind === "password-reset" && sent.to === email),
      );
      const token = /\?token=([\w-]+)/.exec(reset.text)?.[1];
      const done = await direct.call("POST", `/password/reset?token=${token}`, {
        body: { newPassword: "the owner's own passphrase" },
      });
      expect(done.status).toBe(200);
      expectCode(await direct.call("GET", "/me", { bearer }), 401, "ACCESS_TOKEN_INVALID");
      const owner = await direct.call("POST", "/login", {
        body: { email, password: "the owner's own passphrase" },
      });
      expect(owner.body).toMatchObject({ twoFactorRequired: false, user: { emailVerified: true } });
    });

    it("csrf - an Origin with the server's host but another scheme is refused; the exact own origin passes", async () => {
      const own = new URL(direct.base);
      const body = { email: "csrf@example.test", password: PASSWORD };
      expectCode(
        await direct.call("POST", "/register", { body, headers: { origin: `https://${own.host}` } }),
        403,
        "CSRF_REJECTED",
      );
      expect((await direct.call("POST", "/register", { body, headers: { origin: own.origin } })).status).toBe(
        200,
      );
      expectCode(
        await proxied.call("POST", "/register", {
          body,
          headers: { origin: `https://${new URL(proxied.base).host}` },
        }),
        403,
        "CSRF_REJECTED",
      );
      expect(
        (
          await proxied.call("POST", "/register", {
            body,
            headers: { origin: `https://${new URL(proxied.base).host}`, "x-forwarded-proto": "https" },
          })
        ).status,
      ).toBe(200);
    });

    it("events - no event carries a password, token or code", () => {
      const text = JSON.stringify(events);
      expect(events.length).toBeGreaterThan(0);
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain("wrong password");
      expect(text).not.toMatch(/token=|\$argon2/);
    });
  });
}
