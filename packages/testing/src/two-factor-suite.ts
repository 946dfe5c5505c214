import { createHmac } from "node:crypto";
import { describe, expect } from "vitest";
import {
  type AdapterSuiteOptions,
  APP_ORIGIN,
  type App,
  type AppTests,
  cookieHeader,
  expectCode,
  PASSWORD,
  runAppTests,
} from "./adapter-suite/fixture.js";
import type { HttpReply } from "./http-client.js";

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

const ADA = "ada@example.test";
const NEW_PASSWORD = "a new long passphrase";
const TOTP_STEP = 30_000;
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0";

/**
 * Two-factor authentication over HTTP through an adapter: login → second factor → session with
 * a TOTP code computed independently, token types that never cross over, replay, concurrent
 * completions, recovery codes, per-account throttling, step-up for every 2FA change, and 2FA
 * surviving a password reset. Each test enrols its own account on its own app; time is a clock
 * the test moves, so TOTP steps are exact.
 */
export function runTwoFactorAdapterSuite(
  options: Pick<AdapterSuiteOptions, "name" | "start" | "createStores" | "transcripts">,
): void {
  describe(`two-factor conformance: ${options.name}`, () => {
    runAppTests(options, "two-factor", twoFactorTests);
  });
}

const boot2fa = (boot: Parameters<AppTests[string]>[0]) => boot({ email: { loginAlerts: false } });
const twoFactorToken = (reply: HttpReply) => ({
  "x-two-factor-authentication-token": String(reply.body.twoFactorAuthenticationToken),
});

async function passwordStep(app: App, password = PASSWORD): Promise<HttpReply> {
  const reply = await app.api("POST", "/login", { body: { email: ADA, password } });
  expect(reply.status).toBe(200);
  return reply;
}

/** Registers Ada and verifies her address from the emailed link. */
async function registerVerified(app: App): Promise<void> {
  await app.api("POST", "/register", { body: { email: ADA, password: PASSWORD } });
  await app.auth.idle();
  expect(
    (await app.api("POST", `/email/verification?token=${app.tokenFrom("email-verification")}`)).status,
  ).toBe(200);
}

/** Sets TOTP up with a step-up token: the secret and the recovery codes; the clock is one step on. */
async function confirmTotp(app: App, bearer: string, stepUpToken: string) {
  const headers = { "x-step-up-token": stepUpToken };
  const setup = await app.api("GET", "/2fa/totp/setup", { bearer, headers });
  expect(setup.status).toBe(200);
  const secret = String(setup.body.secret);
  const confirmed = await app.api("POST", "/2fa/totp/setup", {
    bearer,
    headers,
    body: { setupToken: setup.body.setupToken, code: referenceTotp(secret, app.clock.now()) },
  });
  expect(confirmed.body).toMatchObject({ twoFactorMethods: ["totp"], preferredTwoFactorMethod: "totp" });
  app.clock.advance(TOTP_STEP);
  return { secret, recoveryCodes: setup.body.recoveryCodes as string[] };
}

/** Ada, verified, with TOTP on. */
async function enrolTotp(app: App) {
  await registerVerified(app);
  const bearer = String((await passwordStep(app)).body.accessToken);
  const stepUp = await app.api("POST", "/step-up", { bearer, body: { password: PASSWORD } });
  const enrolled = await confirmTotp(app, bearer, String(stepUp.body.stepUpToken));
  return { ...enrolled, totpNow: () => referenceTotp(enrolled.secret, app.clock.now()) };
}

/** A password step and a TOTP code: the signed-in reply. */
async function signInWithTotp(app: App, code: string): Promise<HttpReply> {
  const login = await passwordStep(app);
  const done = await app.api("POST", "/2fa/login", { headers: twoFactorToken(login), body: { code } });
  expect(done.status).toBe(200);
  return done;
}

const twoFactorTests: AppTests = {
  "setup - TOTP needs a verified address and a step-up token; the step-up cookie lasts five minutes": async (
    boot,
  ) => {
    const app = await boot2fa(boot);
    await app.api("POST", "/register", { body: { email: ADA, password: PASSWORD } });
    const bearer = String((await passwordStep(app)).body.accessToken);
    // 2FA needs a verified address (docs/limits.md): before, setup answers EMAIL_NOT_VERIFIED.
    const early = await app.api("POST", "/step-up", { bearer, body: { password: PASSWORD } });
    expectCode(
      await app.api("GET", "/2fa/totp/setup", {
        bearer,
        headers: { "x-step-up-token": String(early.body.stepUpToken) },
      }),
      403,
      "EMAIL_NOT_VERIFIED",
    );
    await app.auth.idle();
    expect(
      (await app.api("POST", `/email/verification?token=${app.tokenFrom("email-verification")}`)).status,
    ).toBe(200);
    expectCode(await app.api("GET", "/2fa/totp/setup", { bearer }), 401, "STEP_UP_REQUIRED");
    const stepUp = await app.api("POST", "/step-up", { bearer, body: { password: PASSWORD } });
    expect(stepUp.body).toMatchObject({ twoFactorRequired: false, stepUpToken: expect.any(String) });
    expect(stepUp.cookies.find((c) => c.startsWith("step_up_token="))).toMatch(
      /; Max-Age=300; Path=\/api\/auth; HttpOnly; SameSite=Strict$/,
    );
    const { recoveryCodes } = await confirmTotp(app, bearer, String(stepUp.body.stepUpToken));
    expect(recoveryCodes.length).toBeGreaterThan(0);
    expect((await app.api("GET", "/me", { bearer })).body).toMatchObject({ twoFactorMethods: ["totp"] });
  },

  "login - the password step sets only the 2FA cookie and token; a TOTP code finishes it": async (boot) => {
    const app = await boot2fa(boot);
    const { totpNow } = await enrolTotp(app);
    const login = await passwordStep(app);
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
    expectCode(await app.api("GET", "/me", { bearer: token }), 401, "ACCESS_TOKEN_INVALID");
    expectCode(
      await app.api("POST", "/2fa/login", {
        headers: { "x-two-factor-authentication-token": token },
        body: {},
      }),
      400,
      "TWO_FACTOR_CODE_MISSING",
    );
    const done = await app.api("POST", "/2fa/login", {
      cookie: `two_factor_authentication_token=${token}`,
      body: { code: totpNow() },
    });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      twoFactorRequired: false,
      twoFactorAuthenticationToken: null,
      user: { email: ADA },
    });
    expect(done.cookies.find((c) => c.startsWith("two_factor_authentication_token=;"))).toMatch(/Max-Age=0/);
    await expectTokensNeverCross(app, String(done.body.accessToken), token, totpNow());
  },

  "login - a used code is refused in a new login; 20 concurrent completions with one code give one session":
    async (boot) => {
      const app = await boot2fa(boot);
      const { totpNow } = await enrolTotp(app);
      const used = totpNow();
      await signInWithTotp(app, used);
      const replayToken = twoFactorToken(await passwordStep(app));
      expectCode(
        await app.api("POST", "/2fa/login", { headers: replayToken, body: { code: used } }),
        401,
        "WRONG_TWO_FACTOR_CODE",
      );
      app.clock.advance(TOTP_STEP);
      const code = totpNow();
      // Which of the concurrent completions wins varies: they stay out of the transcript.
      const statuses = await Promise.all(
        Array.from({ length: 20 }, () =>
          app
            .api("POST", "/2fa/login", { headers: replayToken, body: { code }, record: false })
            .then((r) => r.status),
        ),
      );
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    },

  "credentials - /2fa/login and /2fa/recover judge only the 2FA token: a revoked, expired, garbage or other account's access cookie beside it changes nothing":
    async (boot) => {
      const app = await boot2fa(boot);
      const { totpNow, recoveryCodes } = await enrolTotp(app);
      // An access token that has expired (its session lives on), one of a revoked session, another account's live one.
      const expired = String((await signInWithTotp(app, totpNow())).body.accessToken);
      app.clock.advance(15 * 60_000 + TOTP_STEP);
      const revoked = String((await signInWithTotp(app, totpNow())).body.accessToken);
      const revoke = await app.api("DELETE", "/sessions", { label: "revoke every session", bearer: revoked });
      expect(revoke.status).toBe(200);
      const other = (await app.signUp("other@example.test")).accessToken;
      const beside: [string, string][] = [
        ["expired", expired],
        ["revoked", revoked],
        ["garbage", "not-a-token"],
        ["another account's live one", other],
      ];
      for (const [index, [kind, accessToken]] of beside.entries()) {
        app.clock.advance(TOTP_STEP);
        const login = await passwordStep(app);
        const cookie = `access_token=${accessToken}; ${cookieHeader(login.cookies)}`;
        const done = await app.api("POST", "/2fa/login", {
          label: `2FA cookie and a ${kind} access cookie`,
          cookie,
          body: { code: totpNow() },
        });
        expect(done.status, done.text).toBe(200);
        expect(done.body).toMatchObject({ twoFactorRequired: false, user: { email: ADA } });
        const again = await passwordStep(app);
        const recovered = await app.api("POST", "/2fa/recover", {
          label: `recovery: 2FA cookie and a ${kind} access cookie`,
          cookie: `access_token=${accessToken}; ${cookieHeader(again.cookies)}`,
          body: { code: recoveryCodes[index] ?? "" },
        });
        expect(recovered.status, recovered.text).toBe(200);
        expect(recovered.body).toMatchObject({ twoFactorRequired: false, user: { email: ADA } });
      }
    },

  "recovery - a recovery code finishes a login once": async (boot) => {
    const app = await boot2fa(boot);
    const { recoveryCodes } = await enrolTotp(app);
    const recover = async (code: string) =>
      app.api("POST", "/2fa/recover", { headers: twoFactorToken(await passwordStep(app)), body: { code } });
    const code = recoveryCodes[0] ?? "";
    const ok = await recover(code);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ twoFactorRequired: false, accessToken: expect.any(String) });
    expectCode(await recover(code), 401, "WRONG_TWO_FACTOR_CODE");
  },

  "recovery - a used recovery code mails the owner a notice in the request's locale, with the codes left":
    async (boot) => {
      const app = await boot2fa(boot);
      const { recoveryCodes } = await enrolTotp(app);
      await app.auth.idle();
      app.emails.length = 0;
      const ok = await app.api("POST", "/2fa/recover?locale=de", {
        headers: { ...twoFactorToken(await passwordStep(app)), "user-agent": FIREFOX },
        body: { code: recoveryCodes[0] },
      });
      expect(ok.status).toBe(200);
      await app.auth.idle();
      // Login alerts are off here: the notice is sent all the same, and instead of one.
      expect(app.emails.map((email) => email.kind)).toEqual(["recovery-code-used"]);
      const notice = app.emails[0];
      expect(notice).toMatchObject({ to: ADA, locale: "de" });
      expect(notice?.text).toContain(`Du hast noch ${recoveryCodes.length - 1} Wiederherstellungscodes.`);
      expect(notice?.text).toContain("Browser: Firefox 130");
      expect(notice?.html).toContain(`${APP_ORIGIN}/settings/security`);
    },

  "settings - disabling 2FA without a step-up token is 401 STEP_UP_REQUIRED": async (boot) => {
    const app = await boot2fa(boot);
    const { totpNow } = await enrolTotp(app);
    const bearer = String((await signInWithTotp(app, totpNow())).body.accessToken);
    app.clock.advance(TOTP_STEP);
    expectCode(await app.api("DELETE", "/2fa/totp", { bearer }), 401, "STEP_UP_REQUIRED");
    expectCode(
      await app.api("DELETE", "/2fa/totp", { bearer, headers: { "x-step-up-token": bearer } }),
      401,
      "STEP_UP_REQUIRED",
    );
    const stepUp = await app.api("POST", "/step-up", { bearer, body: { password: PASSWORD } });
    expect(stepUp.body).toMatchObject({ twoFactorRequired: true, stepUpToken: null });
    expectCode(
      await app.api("POST", "/2fa/preferred-method", { bearer, body: { method: "totp" } }),
      401,
      "STEP_UP_REQUIRED",
    );
    expect((await app.api("GET", "/me", { bearer })).body).toMatchObject({ twoFactorMethods: ["totp"] });
  },

  "reset - a password reset leaves 2FA on: the next login still asks for the second factor": async (boot) => {
    const app = await boot2fa(boot);
    await enrolTotp(app);
    await app.api("POST", "/password/reset-request", { body: { email: ADA } });
    const reset = await app.api("POST", `/password/reset?token=${app.tokenFrom("password-reset")}`, {
      body: { newPassword: NEW_PASSWORD },
    });
    expect(reset.status).toBe(200);
    const login = await passwordStep(app, NEW_PASSWORD);
    expect(login.body).toMatchObject({ twoFactorRequired: true, accessToken: null });
  },

  "throttle - wrong codes are limited per account (new password steps do not reset it): 429 with Retry-After":
    async (boot) => {
      const app = await boot2fa(boot);
      const { totpNow } = await enrolTotp(app);
      const replies: HttpReply[] = [];
      while (replies.length < 6 && replies.at(-1)?.status !== 429) {
        const token = twoFactorToken(await passwordStep(app));
        replies.push(await app.api("POST", "/2fa/login", { headers: token, body: { code: "000000" } }));
      }
      const throttled = replies.at(-1) as HttpReply;
      expectCode(throttled, 429, "TWO_FACTOR_THROTTLED");
      expect(Number(throttled.headers.get("retry-after"))).toBe(throttled.body.remaining);
      for (const reply of replies.slice(0, -1)) expectCode(reply, 401, "WRONG_TWO_FACTOR_CODE");
      app.clock.advance(TOTP_STEP);
      const right = await app.api("POST", "/2fa/login", {
        headers: twoFactorToken(await passwordStep(app)),
        body: { code: totpNow() },
      });
      expectCode(right, 429, "TWO_FACTOR_THROTTLED");
    },
};

/** An access token is no 2FA token, and a used 2FA token is no longer one. */
async function expectTokensNeverCross(app: App, access: string, usedToken: string, code: string) {
  expect((await app.api("GET", "/me", { bearer: access })).status).toBe(200);
  expectCode(
    await app.api("POST", "/2fa/login", {
      headers: { "x-two-factor-authentication-token": access },
      body: { code: "123456" },
    }),
    401,
    "TWO_FACTOR_TOKEN_INVALID",
  );
  expectCode(
    await app.api("POST", "/2fa/login", {
      headers: { "x-two-factor-authentication-token": usedToken },
      body: { code },
    }),
    401,
    "TWO_FACTOR_TOKEN_INVALID",
  );
}
