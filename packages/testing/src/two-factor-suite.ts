import { createHmac } from "node:crypto";
import {
  type Auth,
  type Clock,
  createArgon2Hasher,
  createAuth,
  type EmailMessage,
  silentLogger,
} from "@portcullis/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdapterSuiteOptions, StartedServer } from "./adapter-suite.js";
import { waitFor } from "./wait.js";

const PASSWORD = "correct horse battery staple";
const JSON_HEADERS = { "content-type": "application/json" };

/** RFC 6238 TOTP written out independently of the library: HMAC-SHA-1, dynamic truncation, 6 digits. */
export function referenceTotp(secretBase32: string, timestampMs: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const char of secretBase32.replace(/=+$/, ""))
    bits += alphabet.indexOf(char).toString(2).padStart(5, "0");
  const key = Buffer.from((bits.match(/.{8}/g) ?? []).map((byte) => Number.parseInt(byte, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(timestampMs / 30_000)));
  const mac = createHmac("sha1", key).update(counter).digest();
  const offset = (mac[mac.length - 1] ?? 0) & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, "0");
}

interface Reply {
  status: number;
  headers: Headers;
  cookies: string[];
  body: Record<string, unknown>;
}

/**
 * Two-factor authentication over HTTP through an adapter: login → second factor → session with
 * a TOTP code computed independently, token types that never cross over, replay, concurrent
 * completions, recovery codes, per-account throttling, step-up for every 2FA change, and 2FA
 * surviving a password reset. Time is a clock the suite moves, so TOTP steps are exact.
 */
export function runTwoFactorAdapterSuite(
  options: Pick<AdapterSuiteOptions, "name" | "start" | "createStores">,
): void {
  describe(`two-factor conformance: ${options.name}`, () => {
    let now = Date.UTC(2026, 5, 1, 12);
    const clock: Clock & { advance(ms: number): void } = {
      now: () => now,
      advance: (ms) => {
        now += ms;
      },
    };
    const emails: EmailMessage[] = [];
    let auth: Auth;
    let server: StartedServer;
    let secret = "";
    let recoveryCodes: string[] = [];

    const call = async (
      method: string,
      path: string,
      init: { body?: unknown; headers?: Record<string, string>; bearer?: string; cookie?: string } = {},
    ): Promise<Reply> => {
      const headers: Record<string, string> = {
        ...(init.body !== undefined ? JSON_HEADERS : {}),
        ...init.headers,
      };
      if (init.bearer) headers.authorization = `Bearer ${init.bearer}`;
      if (init.cookie) headers.cookie = init.cookie;
      const response = await fetch(`${server.baseUrl}/api/auth${path}`, {
        method,
        headers,
        body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      });
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        cookies: response.headers.getSetCookie(),
        body: text ? JSON.parse(text) : {},
      };
    };
    const expectCode = (reply: Reply, status: number, code: string) => {
      expect(reply.status, JSON.stringify(reply.body)).toBe(status);
      expect(reply.headers.get("auth-error-code")).toBe(code);
    };
    const passwordStep = async () => {
      const reply = await call("POST", "/login", { body: { email: "ada@example.test", password: PASSWORD } });
      expect(reply.status).toBe(200);
      return reply;
    };
    const totpNow = () => referenceTotp(secret, clock.now());
    const nextStep = () => clock.advance(30_000);

    beforeAll(async () => {
      auth = createAuth({
        secret: "two-factor-suite-secret-0123456789-abcdef",
        stores: options.createStores(clock),
        clock,
        logger: silentLogger,
        appOrigin: "https://app.example.test",
        mailer: { send: async (message) => void emails.push(message) },
        passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
        email: { loginAlerts: false },
      });
      server = await options.start(auth);
      await call("POST", "/register", { body: { email: "ada@example.test", password: PASSWORD } });
      const login = await passwordStep();
      const bearer = String(login.body.accessToken);
      // 2FA needs a verified address (CONTRACT §8): before, setup answers EMAIL_NOT_VERIFIED.
      const early = await call("POST", "/step-up", { bearer, body: { password: PASSWORD } });
      expectCode(
        await call("GET", "/2fa/totp/setup", {
          bearer,
          headers: { "x-step-up-token": String(early.body.stepUpToken) },
        }),
        403,
        "EMAIL_NOT_VERIFIED",
      );
      const verification = await waitFor(() => emails.find((email) => email.kind === "email-verification"));
      const link = /https:\/\/\S+\?token=([\w-]+)/.exec(verification.text)?.[1];
      expect((await call("POST", `/email/verification?token=${link}`)).status).toBe(200);
      const stepUp = await call("POST", "/step-up", { bearer, body: { password: PASSWORD } });
      expect(stepUp.body).toMatchObject({ twoFactorRequired: false, stepUpToken: expect.any(String) });
      expect(stepUp.cookies.find((c) => c.startsWith("step_up_token="))).toMatch(
        /; Max-Age=300; Path=\/api\/auth; HttpOnly; SameSite=Strict$/,
      );
      const stepUpHeaders = { "x-step-up-token": String(stepUp.body.stepUpToken) };
      const setup = await call("GET", "/2fa/totp/setup", { bearer, headers: stepUpHeaders });
      expect(setup.status).toBe(200);
      secret = String(setup.body.secret);
      recoveryCodes = setup.body.recoveryCodes as string[];
      const confirmed = await call("POST", "/2fa/totp/setup", {
        bearer,
        headers: stepUpHeaders,
        body: { setupToken: setup.body.setupToken, code: totpNow() },
      });
      expect(confirmed.body).toMatchObject({ twoFactorMethods: ["totp"], preferredTwoFactorMethod: "totp" });
      nextStep();
    });
    afterAll(async () => {
      await server?.close();
    });

    it("login - the password step sets only the 2FA cookie and token; a TOTP code finishes it", async () => {
      const login = await passwordStep();
      expect(login.body).toMatchObject({
        user: null,
        accessToken: null,
        refreshToken: null,
        twoFactorRequired: true,
        twoFactorMethods: ["totp"],
        preferredTwoFactorMethod: "totp",
        twoFactorAuthenticationToken: expect.any(String),
      });
      expect(login.cookies).toHaveLength(1);
      const token = String(login.body.twoFactorAuthenticationToken);
      expect(login.cookies[0]).toBe(
        `two_factor_authentication_token=${token}; Max-Age=300; Path=/; HttpOnly; SameSite=Strict`,
      );

      expectCode(await call("GET", "/me", { bearer: token }), 401, "ACCESS_TOKEN_INVALID");
      expectCode(
        await call("POST", "/2fa/login", {
          headers: { "x-two-factor-authentication-token": token },
          body: {},
        }),
        400,
        "TWO_FACTOR_CODE_MISSING",
      );
      const done = await call("POST", "/2fa/login", {
        cookie: `two_factor_authentication_token=${token}`,
        body: { code: totpNow() },
      });
      expect(done.status).toBe(200);
      expect(done.body).toMatchObject({
        twoFactorRequired: false,
        twoFactorAuthenticationToken: null,
        user: { email: "ada@example.test" },
      });
      expect(done.cookies.find((c) => c.startsWith("two_factor_authentication_token=;"))).toMatch(
        /Max-Age=0/,
      );
      const access = String(done.body.accessToken);
      expect((await call("GET", "/me", { bearer: access })).status).toBe(200);
      expectCode(
        await call("POST", "/2fa/login", {
          headers: { "x-two-factor-authentication-token": access },
          body: { code: "123456" },
        }),
        401,
        "TWO_FACTOR_TOKEN_INVALID",
      );
      expectCode(
        await call("POST", "/2fa/login", {
          headers: { "x-two-factor-authentication-token": token },
          body: { code: totpNow() },
        }),
        401,
        "TWO_FACTOR_TOKEN_INVALID",
      );
    });

    it("login - a used code is refused in a new login; 20 concurrent completions with one code give one session", async () => {
      nextStep();
      const used = totpNow();
      const first = await passwordStep();
      expect(
        (
          await call("POST", "/2fa/login", {
            headers: { "x-two-factor-authentication-token": String(first.body.twoFactorAuthenticationToken) },
            body: { code: used },
          })
        ).status,
      ).toBe(200);
      const replay = await passwordStep();
      const replayToken = {
        "x-two-factor-authentication-token": String(replay.body.twoFactorAuthenticationToken),
      };
      expectCode(
        await call("POST", "/2fa/login", { headers: replayToken, body: { code: used } }),
        401,
        "WRONG_TWO_FACTOR_CODE",
      );
      nextStep();
      const code = totpNow();
      const statuses = await Promise.all(
        Array.from({ length: 20 }, () =>
          call("POST", "/2fa/login", { headers: replayToken, body: { code } }).then((r) => r.status),
        ),
      );
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      nextStep();
    });

    it("recovery - a recovery code finishes a login once", async () => {
      const recover = async (code: string) => {
        const login = await passwordStep();
        return call("POST", "/2fa/recover", {
          headers: { "x-two-factor-authentication-token": String(login.body.twoFactorAuthenticationToken) },
          body: { code },
        });
      };
      const code = recoveryCodes[0] ?? "";
      const ok = await recover(code);
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ twoFactorRequired: false, accessToken: expect.any(String) });
      expectCode(await recover(code), 401, "WRONG_TWO_FACTOR_CODE");
    });

    it("settings - disabling 2FA without a step-up token is 401 STEP_UP_REQUIRED", async () => {
      nextStep();
      const login = await passwordStep();
      const done = await call("POST", "/2fa/login", {
        headers: { "x-two-factor-authentication-token": String(login.body.twoFactorAuthenticationToken) },
        body: { code: totpNow() },
      });
      nextStep();
      const bearer = String(done.body.accessToken);
      expectCode(await call("DELETE", "/2fa/totp", { bearer }), 401, "STEP_UP_REQUIRED");
      expectCode(
        await call("DELETE", "/2fa/totp", { bearer, headers: { "x-step-up-token": bearer } }),
        401,
        "STEP_UP_REQUIRED",
      );
      const stepUp = await call("POST", "/step-up", { bearer, body: { password: PASSWORD } });
      expect(stepUp.body).toMatchObject({ twoFactorRequired: true, stepUpToken: null });
      expectCode(
        await call("POST", "/2fa/preferred-method", { bearer, body: { method: "totp" } }),
        401,
        "STEP_UP_REQUIRED",
      );
      expect((await call("GET", "/me", { bearer })).body).toMatchObject({ twoFactorMethods: ["totp"] });
    });

    it("reset - a password reset leaves 2FA on: the next login still asks for the second factor", async () => {
      await call("POST", "/password/reset-request", { body: { email: "ada@example.test" } });
      const reset = emails.filter((email) => email.kind === "password-reset").at(-1);
      const token = /token=([\w-]+)/.exec(reset?.html ?? "")?.[1];
      expect(
        (
          await call("POST", `/password/reset?token=${token}`, {
            body: { newPassword: "a new long passphrase" },
          })
        ).status,
      ).toBe(200);
      const login = await call("POST", "/login", {
        body: { email: "ada@example.test", password: "a new long passphrase" },
      });
      expect(login.body).toMatchObject({ twoFactorRequired: true, accessToken: null });
      await call("POST", "/password/reset-request", { body: { email: "ada@example.test" } });
    });

    it("throttle - wrong codes are limited per account (new password steps do not reset it): 429 with Retry-After", async () => {
      const replies: Reply[] = [];
      while (replies.length < 6 && replies.at(-1)?.status !== 429) {
        const login = await call("POST", "/login", {
          body: { email: "ada@example.test", password: "a new long passphrase" },
        });
        const token = {
          "x-two-factor-authentication-token": String(login.body.twoFactorAuthenticationToken),
        };
        replies.push(await call("POST", "/2fa/login", { headers: token, body: { code: "000000" } }));
      }
      const throttled = replies.at(-1) as Reply;
      expectCode(throttled, 429, "TWO_FACTOR_THROTTLED");
      expect(Number(throttled.headers.get("retry-after"))).toBe(throttled.body.remaining);
      for (const reply of replies.slice(0, -1)) expectCode(reply, 401, "WRONG_TWO_FACTOR_CODE");
      nextStep();
      const login = await call("POST", "/login", {
        body: { email: "ada@example.test", password: "a new long passphrase" },
      });
      const right = await call("POST", "/2fa/login", {
        headers: { "x-two-factor-authentication-token": String(login.body.twoFactorAuthenticationToken) },
        body: { code: totpNow() },
      });
      expectCode(right, 429, "TWO_FACTOR_THROTTLED");
    });
  });
}
