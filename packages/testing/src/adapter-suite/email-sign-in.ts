import type { EmailMessage } from "@portcullis/core";
import { expect } from "vitest";
import type { HttpReply } from "../http-client.js";
import { referenceTotp } from "../two-factor-suite.js";
import {
  APP_ORIGIN,
  type App,
  type AppTests,
  type Boot,
  expectError,
  JSON_HEADERS,
  linkToken,
  PASSWORD,
} from "./fixture.js";

/** Sign-in by email on, a short email cooldown (a test that asks twice waits it out), no login alerts. */
const bootOn = (boot: Boot) =>
  boot({ emailSignIn: { enabled: true }, email: { cooldownSeconds: 1, loginAlerts: false } });

/**
 * The newest email to `to`, of `kind` when given: a registration's verification email is sent after
 * its answer, so on a loaded machine it can arrive after an email asked for later.
 */
const lastEmailTo = (app: App, to: string, kind?: string): EmailMessage | undefined =>
  app.emails.filter((email) => email.to === to && (kind === undefined || email.kind === kind)).at(-1);

/** The 6-digit code of the newest email-sign-in email to `to` (its text part), and the link's token. */
function signInEmail(app: App, to: string): { code: string; token: string } {
  const email = lastEmailTo(app, to, "email-sign-in");
  expect(email, `no email-sign-in email to ${to}`).toBeDefined();
  const code = /^(\d{6})$/m.exec(email?.text ?? "")?.[1];
  expect(code).toMatch(/^\d{6}$/);
  const href = /href="([^"]+\?token=[^"]+)"/.exec(email?.html ?? "")?.[1]?.replace(/&amp;/g, "&") ?? "";
  expect(`${new URL(href).origin}${new URL(href).pathname}`).toBe(`${APP_ORIGIN}/sign-in/email`);
  return { code: code ?? "", token: linkToken(email) };
}

/** Registers `email` (unverified, no session) and returns nothing but the account. */
async function register(app: App, email: string): Promise<void> {
  const reply = await app.call("register", "POST", "/api/auth/register", {
    body: { email, password: PASSWORD },
  });
  expect(reply.status).toBe(200);
}

async function request(app: App, label: string, email: string): Promise<HttpReply> {
  return app.call(label, "POST", "/api/auth/email-sign-in/request", { body: { email } });
}

/** Waits out the 1-second email cooldown of `bootOn` (on the stores' own clock too). */
const afterCooldown = (app: App) => app.elapse(1_100);

/**
 * The status, code, message and headers of an error reply: what tells one answer from another
 * (not the date, nor the seconds a 429 names: a store's clock moves between two answers).
 */
const shape = (reply: HttpReply) => ({
  status: reply.status,
  code: reply.body.code,
  message: reply.body.message,
  headers: [...reply.headers].filter(([name]) => !["date", "content-length", "retry-after"].includes(name)),
});

/** N concurrent sign-ins with a code, unrecorded: their statuses. */
async function burst(app: App, email: string, code: string, n: number): Promise<number[]> {
  return Promise.all(
    Array.from({ length: n }, () =>
      fetch(`${app.server.baseUrl}/api/auth/email-sign-in`, {
        method: "POST",
        headers: JSON_HEADERS,
        body: JSON.stringify({ email, code }),
      }).then((reply) => reply.status),
    ),
  );
}

/** A 6-digit code other than `code`. */
const wrong = (code: string, n = 1) => String((Number(code) + n) % 1_000_000).padStart(6, "0");

/**
 * Registers and verifies `email`, then turns on codes by email and TOTP, email preferred: the
 * TOTP secret. One password step-up covers every change (no 2FA yet when it is taken).
 */
async function enrolBothMethods(app: App, email: string): Promise<string> {
  await register(app, email);
  await app.auth.idle();
  await app.call(
    "verify",
    "POST",
    `/api/auth/email/verification?token=${app.tokenFrom("email-verification")}`,
  );
  const login = await app.call("login", "POST", "/api/auth/login", { body: { email, password: PASSWORD } });
  const bearer = String(login.body.accessToken);
  const stepUp = await app.call("step-up", "POST", "/api/auth/step-up", {
    bearer,
    body: { password: PASSWORD },
  });
  const headers = { "x-step-up-token": String(stepUp.body.stepUpToken) };
  expect((await app.call("2fa email send", "POST", "/api/auth/2fa/email/send", { bearer })).status).toBe(200);
  const mailed = /^(\d{6})$/m.exec(lastEmailTo(app, email, "two-factor-code")?.text ?? "")?.[1];
  const enabled = await app.call("2fa email enable", "POST", "/api/auth/2fa/email/enable", {
    bearer,
    headers,
    body: { code: mailed },
  });
  expect(enabled.body).toMatchObject({ twoFactorMethods: ["email"] });
  const setup = await app.call("totp setup", "GET", "/api/auth/2fa/totp/setup", { bearer, headers });
  const secret = String(setup.body.secret);
  await app.call("totp confirm", "POST", "/api/auth/2fa/totp/setup", {
    bearer,
    headers,
    body: { setupToken: setup.body.setupToken, code: referenceTotp(secret, app.clock.now()) },
  });
  const preferred = await app.call("prefer email", "POST", "/api/auth/2fa/preferred-method", {
    bearer,
    headers,
    body: { method: "email" },
  });
  expect(preferred.body).toMatchObject({ preferredTwoFactorMethod: "email" });
  expect((preferred.body.twoFactorMethods as string[]).sort()).toEqual(["email", "totp"]);
  // The next TOTP step: the code of the setup is spent.
  app.clock.advance(30_000);
  return secret;
}

/** Sign-in by an emailed link or code (docs/concepts.md, "Sign-in by email"): answers, single use, expiry, limits, 2FA. */
export const emailSignInTests: AppTests = {
  "email sign-in - known and unknown addresses get identical answers; the code signs in once and marks the address verified":
    async (boot) => {
      const app = await bootOn(boot);
      await register(app, "code@example.test");
      const known = await request(app, "request known", "code@example.test");
      const unknown = await request(app, "request unknown", "nobody@example.test");
      expect(known.status).toBe(200);
      expect(known.body).toEqual({ cooldown: 1 });
      expect(unknown.text).toBe(known.text);
      expect([...unknown.headers].filter(([name]) => name !== "date")).toEqual(
        [...known.headers].filter(([name]) => name !== "date"),
      );
      expect(lastEmailTo(app, "nobody@example.test")?.kind).toBe("no-principal-information");
      expect(app.emails.filter((email) => email.to === "nobody@example.test")).toHaveLength(1);
      expect(await app.stores.users.findByEmail("nobody@example.test")).toBeNull();
      const { code, token } = signInEmail(app, "code@example.test");

      const signedIn = await app.call("sign in with code", "POST", "/api/auth/email-sign-in", {
        body: { email: "Code@Example.test", code: `${code.slice(0, 3)} ${code.slice(3)}` },
      });
      expect(signedIn.status, signedIn.text).toBe(200);
      expect(signedIn.body).toMatchObject({
        twoFactorRequired: false,
        user: { email: "code@example.test", emailVerified: true },
      });
      expect(signedIn.cookies.some((c) => c.startsWith("access_token=ey"))).toBe(true);
      const me = await app.call("me", "GET", "/api/auth/me", { bearer: String(signedIn.body.accessToken) });
      expect(me.body).toMatchObject({ email: "code@example.test", emailVerified: true });
      const activity = await app.call("activity", "GET", "/api/auth/activity", {
        bearer: String(signedIn.body.accessToken),
      });
      expect(activity.body.items).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ type: "login.succeeded", reason: "email" }),
          expect.objectContaining({ type: "email.verified", reason: "email_sign_in" }),
          expect.objectContaining({ type: "email_sign_in.requested" }),
        ]),
      );

      // Single use: the code again, and the link of the same email, are spent.
      expectError(
        await app.call("code again", "POST", "/api/auth/email-sign-in", {
          body: { email: "code@example.test", code },
        }),
        401,
        "EMAIL_SIGN_IN_INVALID",
      );
      expectError(
        await app.call("link of the same email", "POST", "/api/auth/email-sign-in", { body: { token } }),
        401,
        "EMAIL_SIGN_IN_INVALID",
      );
    },

  "email sign-in - the link's token signs in with a POST, once; a GET of the link signs nobody in": async (
    boot,
  ) => {
    const app = await bootOn(boot);
    await register(app, "link@example.test");
    const requested = await request(app, "request", "link@example.test");
    // Said first, so a failed request (a store timing out on a loaded machine) names its answer.
    expect(requested.status, requested.text).toBe(200);
    const { token, code } = signInEmail(app, "link@example.test");
    // What a mail scanner does: GET the link (here: the API path with the token) — nothing happens.
    const scanned = await app.call("GET with the token", "GET", `/api/auth/email-sign-in?token=${token}`);
    expect(scanned.status).toBeGreaterThanOrEqual(400);
    expect(scanned.cookies.filter((c) => /^(access|refresh)_token=[^;]/.test(c))).toEqual([]);

    const signedIn = await app.call("sign in with link", "POST", "/api/auth/email-sign-in", {
      body: { token, rememberMe: false },
    });
    expect(signedIn.status, signedIn.text).toBe(200);
    expect(signedIn.body).toMatchObject({ twoFactorRequired: false, user: { email: "link@example.test" } });
    const access = signedIn.cookies.find((c) => c.startsWith("access_token=ey"));
    expect(access).not.toMatch(/Max-Age/);
    expectError(
      await app.call("link again", "POST", "/api/auth/email-sign-in", { body: { token } }),
      401,
      "EMAIL_SIGN_IN_INVALID",
    );
    expectError(
      await app.call("code of the same email", "POST", "/api/auth/email-sign-in", {
        body: { email: "link@example.test", code },
      }),
      401,
      "EMAIL_SIGN_IN_INVALID",
    );
    // Ten concurrent uses of one fresh link: one session.
    await afterCooldown(app);
    await request(app, "request again", "link@example.test");
    const fresh = signInEmail(app, "link@example.test").token;
    const statuses = await Promise.all(
      Array.from({ length: 10 }, () =>
        fetch(`${app.server.baseUrl}/api/auth/email-sign-in`, {
          method: "POST",
          headers: JSON_HEADERS,
          body: JSON.stringify({ token: fresh }),
        }).then((reply) => reply.status),
      ),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 401)).toHaveLength(9);
  },

  "email sign-in - link and code expire after 10 minutes; a newer request invalidates the older": async (
    boot,
  ) => {
    const app = await bootOn(boot);
    await register(app, "expiry@example.test");
    await request(app, "request", "expiry@example.test");
    const first = signInEmail(app, "expiry@example.test");
    await afterCooldown(app);
    await request(app, "newer request", "expiry@example.test");
    const second = signInEmail(app, "expiry@example.test");
    expect(second.token).not.toBe(first.token);
    for (const [label, body] of [
      ["older link", { token: first.token }],
      ["older code", { email: "expiry@example.test", code: first.code }],
    ] as const) {
      if ("code" in body && body.code === second.code) continue;
      expectError(
        await app.call(label, "POST", "/api/auth/email-sign-in", { body }),
        401,
        "EMAIL_SIGN_IN_INVALID",
      );
    }
    app.clock.advance(600_000);
    expectError(
      await app.call("link after 10 minutes", "POST", "/api/auth/email-sign-in", {
        body: { token: second.token },
      }),
      401,
      "EMAIL_SIGN_IN_INVALID",
    );
    expectError(
      await app.call("code after 10 minutes", "POST", "/api/auth/email-sign-in", {
        body: { email: "expiry@example.test", code: second.code },
      }),
      401,
      "EMAIL_SIGN_IN_INVALID",
    );
    // Within the 10 minutes, a fresh email works.
    await afterCooldown(app);
    await request(app, "request after expiry", "expiry@example.test");
    app.clock.advance(599_000);
    const fresh = signInEmail(app, "expiry@example.test");
    const signedIn = await app.call("code within 10 minutes", "POST", "/api/auth/email-sign-in", {
      body: { email: "expiry@example.test", code: fresh.code },
    });
    expect(signedIn.status, signedIn.text).toBe(200);
  },

  "email sign-in - 5 wrong codes, then 429 even for the right one; 20 concurrent wrong codes get at most 5 checks; unknown addresses alike":
    async (boot) => {
      const app = await bootOn(boot);
      await register(app, "guess@example.test");
      await request(app, "request", "guess@example.test");
      await request(app, "request unknown", "ghost@example.test");
      const { code } = signInEmail(app, "guess@example.test");
      const tokens = app.stores.singleUseTokens;
      let checks = 0;
      for (const method of ["claimToken", "consumeToken"] as const) {
        const original = tokens[method]?.bind(tokens);
        if (!original) continue;
        tokens[method] = (async (purpose: string, ...rest: [string, number]) => {
          if (purpose === "email-sign-in") checks += 1;
          return original(purpose, ...rest);
        }) as never;
      }
      const known = await burst(app, "guess@example.test", wrong(code), 20);
      expect(known.filter((status) => status === 401)).toHaveLength(5);
      expect(known.filter((status) => status === 429)).toHaveLength(15);
      expect(checks).toBeLessThanOrEqual(5);
      const right = await app.call("right code after 5 wrong", "POST", "/api/auth/email-sign-in", {
        body: { email: "guess@example.test", code },
      });
      expectError(right, 429, "EMAIL_SIGN_IN_THROTTLED");

      const ghost = await burst(app, "ghost@example.test", wrong(code), 20);
      expect(ghost.filter((status) => status === 401)).toHaveLength(5);
      expect(ghost.filter((status) => status === 429)).toHaveLength(15);
      const ghostRight = await app.call("unknown address after 5 wrong", "POST", "/api/auth/email-sign-in", {
        body: { email: "ghost@example.test", code },
      });
      expect(shape(ghostRight)).toEqual(shape(right));

      // A newer request starts the count again; its code works.
      await afterCooldown(app);
      await request(app, "newer request", "guess@example.test");
      const fresh = signInEmail(app, "guess@example.test");
      const wrongOnce = await app.call("wrong code after a new request", "POST", "/api/auth/email-sign-in", {
        body: { email: "guess@example.test", code: wrong(fresh.code) },
      });
      expectError(wrongOnce, 401, "EMAIL_SIGN_IN_INVALID");
      const unknownOnce = await app.call("code for an unknown address", "POST", "/api/auth/email-sign-in", {
        body: { email: "nobody-at-all@example.test", code: fresh.code },
      });
      expect(shape(unknownOnce)).toEqual(shape(wrongOnce));
      const signedIn = await app.call("right code of the new request", "POST", "/api/auth/email-sign-in", {
        body: { email: "guess@example.test", code: fresh.code },
      });
      expect(signedIn.status, signedIn.text).toBe(200);
    },

  "email sign-in - an account with 2FA goes on to the 2FA step, where the email method is not offered":
    async (boot) => {
      const app = await bootOn(boot);
      const email = "second@example.test";
      const secret = await enrolBothMethods(app, email);
      await afterCooldown(app);
      await request(app, "request", email);
      const { code } = signInEmail(app, email);
      const before = app.emails.length;
      const step = await app.call("sign in with code", "POST", "/api/auth/email-sign-in", {
        body: { email, code },
      });
      expect(step.status, step.text).toBe(200);
      expect(step.body).toMatchObject({
        twoFactorRequired: true,
        accessToken: null,
        refreshToken: null,
        twoFactorMethods: ["totp"],
        preferredTwoFactorMethod: "totp",
        emailCodeSent: false,
      });
      expect(step.cookies.filter((c) => /^(access|refresh)_token=[^;]/.test(c))).toEqual([]);
      const twoFactor = {
        "x-two-factor-authentication-token": String(step.body.twoFactorAuthenticationToken),
      };
      expectError(
        await app.call("2fa email send refused", "POST", "/api/auth/2fa/email/send", { headers: twoFactor }),
        400,
        "TWO_FACTOR_DISABLED",
      );
      await app.auth.idle();
      expect(app.emails.length).toBe(before);
      expectError(
        await app.call("2fa email method refused", "POST", "/api/auth/2fa/login", {
          headers: twoFactor,
          body: { code: "123456", method: "email" },
        }),
        400,
        "TWO_FACTOR_DISABLED",
      );
      const done = await app.call("2fa with totp", "POST", "/api/auth/2fa/login", {
        headers: twoFactor,
        body: { code: referenceTotp(secret, app.clock.now()) },
      });
      expect(done.status, done.text).toBe(200);
      const activity = await app.call("activity", "GET", "/api/auth/activity", {
        bearer: String(done.body.accessToken),
      });
      expect((activity.body.items as { type: string; reason: string }[])[0]).toMatchObject({
        type: "login.succeeded",
        reason: "email",
      });
    },

  "email sign-in - a failing mailer is 500 EMAIL_SEND_FAILURE and the cooldown is released: a retry sends exactly once":
    async (boot) => {
      const app = await bootOn(boot);
      await register(app, "flaky@example.test");
      await app.auth.idle();
      app.mailerControl.failures = 1;
      const before = app.emails.length;
      const failed = await request(app, "mailer down", "flaky@example.test");
      expectError(failed, 500, "EMAIL_SEND_FAILURE");
      expect(failed.text).not.toContain("smtp down");
      const retry = await request(app, "mailer retry", "flaky@example.test");
      expect(retry.status).toBe(200);
      expect(app.emails.length - before).toBe(1);
      const { code } = signInEmail(app, "flaky@example.test");
      const signedIn = await app.call("sign in after the retry", "POST", "/api/auth/email-sign-in", {
        body: { email: "flaky@example.test", code },
      });
      expect(signedIn.status, signedIn.text).toBe(200);
    },

  "email sign-in - off unless enabled (404); 503 with email off; bad input is 400": async (boot) => {
    const off = await boot();
    expectError(await request(off, "request when off", "a@example.test"), 404, "NOT_FOUND");
    expectError(
      await off.call("sign in when off", "POST", "/api/auth/email-sign-in", {
        body: { token: "x".repeat(43) },
      }),
      404,
      "NOT_FOUND",
    );
    const noEmail = await boot({ emailSignIn: { enabled: true }, email: { enabled: false } });
    expectError(await request(noEmail, "request with email off", "a@example.test"), 503, "EMAIL_DISABLED");
    const app = await bootOn(boot);
    expectError(
      await app.call("neither token nor code", "POST", "/api/auth/email-sign-in", {
        body: { email: "a@example.test" },
      }),
      400,
      "VALIDATION_FAILED",
    );
    expectError(
      await app.call("token and code", "POST", "/api/auth/email-sign-in", {
        body: { token: "x".repeat(43), email: "a@example.test", code: "123456" },
      }),
      400,
      "VALIDATION_FAILED",
    );
    expectError(
      await app.call("garbage token", "POST", "/api/auth/email-sign-in", { body: { token: "not a token" } }),
      401,
      "EMAIL_SIGN_IN_INVALID",
    );
    // No answer here reached a store; a store that prepares itself (SQL migrations) is waited for.
    for (const unused of [off, noEmail, app])
      expect(await unused.stores.users.findByEmail("a@example.test")).toBeNull();
  },
};
