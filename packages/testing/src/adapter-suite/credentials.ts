import type { RouteAuth } from "@portcullis/core";
import { expect } from "vitest";
import { type App, type AppTests, cookieHeader, cookieValue, expectError, PASSWORD } from "./fixture.js";

/** The 6-digit code of the newest 2FA email. */
const latestCode = (app: App) =>
  /(\d{6})/.exec(
    app.emails.filter((message) => message.kind === "two-factor-code").at(-1)?.text ?? "",
  )?.[1] ?? "";

/** The 401 of each kind of route when the request brings no credential at all. */
const WITHOUT_ANY: Partial<Record<RouteAuth, string>> = {
  access: "AUTHENTICATION_REQUIRED",
  "step-up": "AUTHENTICATION_REQUIRED",
  "access-and-two-factor": "AUTHENTICATION_REQUIRED",
  "access-or-two-factor": "AUTHENTICATION_REQUIRED",
  "two-factor": "TWO_FACTOR_TOKEN_INVALID",
  refresh: "REFRESH_TOKEN_INVALID",
};

/** The 401 of a route needing an access token and one more, when it brings a live access token alone. */
const WITH_ACCESS_ALONE: Partial<Record<RouteAuth, string>> = {
  "step-up": "STEP_UP_REQUIRED",
  "access-and-two-factor": "TWO_FACTOR_TOKEN_INVALID",
};

interface Operation {
  method: string;
  /** Under the prefix, `{name}` segments filled in. */
  path: string;
  auth: RouteAuth;
}

/** Every route of the table, read from the mounted OpenAPI document (written from the table). */
async function routeTable(app: App): Promise<Operation[]> {
  const reply = await app.call("openapi", "GET", "/api/auth/openapi.json", { record: false });
  expect(reply.status).toBe(200);
  const paths = reply.body.paths as Record<string, Record<string, { "x-portcullis-auth": RouteAuth }>>;
  const operations = Object.entries(paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path: path.replace(/^\/api\/auth/, "").replace(/\{\w+\}/g, "unknown"),
      auth: operation["x-portcullis-auth"],
    })),
  );
  expect(operations.length).toBeGreaterThan(20);
  return operations;
}

/** A body that is not JSON (for the methods that have one): the credentials are checked first, never a 415. */
const notJson = (route: Operation) => (route.method === "GET" ? {} : { raw: "not json" });

const needs = (auth: RouteAuth, table: Partial<Record<RouteAuth, string>>) => table[auth] !== undefined;

/**
 * Every route's declared credential is enforced by the HTTP layer before the route runs: the tests
 * are generated from the route table, so a new route is covered the day it is added.
 */
export const credentialsTests: AppTests = {
  "routes - every route that declares a credential answers 401 with its code without one, before its body is read":
    async (boot) => {
      const app = await boot();
      const routes = (await routeTable(app)).filter((route) => needs(route.auth, WITHOUT_ANY));
      expect(routes.map((route) => route.auth)).toEqual(
        expect.arrayContaining(["access", "step-up", "two-factor", "refresh", "access-or-two-factor"]),
      );
      for (const route of routes) {
        const reply = await app.api(route.method, route.path, {
          label: `${route.auth}: no credential`,
          ...notJson(route),
        });
        expectError(reply, 401, WITHOUT_ANY[route.auth] ?? "");
      }
    },

  "routes - every route that needs an access token answers 401 ACCESS_TOKEN_INVALID with a revoked one":
    async (boot) => {
      const app = await boot();
      const { accessToken } = await app.signUp("revoked@example.test");
      const routes = (await routeTable(app)).filter(
        (route) => WITHOUT_ANY[route.auth] === "AUTHENTICATION_REQUIRED",
      );
      const revoke = await app.api("DELETE", "/sessions", {
        label: "revoke every session",
        bearer: accessToken,
      });
      expect(revoke.status).toBe(200);
      for (const route of routes) {
        const reply = await app.api(route.method, route.path, {
          label: `${route.auth}: revoked`,
          bearer: accessToken,
        });
        expectError(reply, 401, "ACCESS_TOKEN_INVALID");
      }
    },

  "routes - every route that needs a step-up or 2FA token besides the access token answers 401 with a live access token alone":
    async (boot) => {
      const app = await boot();
      const { accessToken } = await app.signUp("stepup@example.test");
      const routes = (await routeTable(app)).filter((route) => needs(route.auth, WITH_ACCESS_ALONE));
      expect(routes.filter((route) => route.auth === "step-up").length).toBeGreaterThan(5);
      for (const route of routes) {
        const reply = await app.api(route.method, route.path, {
          label: `${route.auth}: access token alone`,
          bearer: accessToken,
          ...notJson(route),
        });
        expectError(reply, 401, WITH_ACCESS_ALONE[route.auth] ?? "");
      }
    },
  "POST /2fa/email/send - a login's 2FA token counts beside a stale access cookie; a live access token beside a dead 2FA cookie is the signed-in user's":
    async (boot) => {
      // No clock is moved: a cooldown on Redis runs on Redis's own clock. The setup code starts the
      // 2FA email cooldown, so each send below reaches the use case and answers 429; a send judged
      // on the wrong credential would be a 401 instead.
      const app = await boot({ email: { loginAlerts: false } });
      const email = "mailed@example.test";
      const first = await app.signUp(email);
      await app.auth.idle();
      const verified = await app.api(
        "POST",
        `/email/verification?token=${app.tokenFrom("email-verification")}`,
        {
          label: "verify",
        },
      );
      expect(verified.status).toBe(200);
      // Email 2FA on: step-up, a setup code, the code.
      const bearer = first.accessToken;
      const stepUp = await app.api("POST", "/step-up", {
        label: "step-up",
        bearer,
        body: { password: PASSWORD },
      });
      const stepUpHeader = { "x-step-up-token": String(stepUp.body.stepUpToken) };
      expect((await app.api("POST", "/2fa/email/send", { label: "setup code", bearer })).status).toBe(200);
      const enabled = await app.api("POST", "/2fa/email/enable", {
        label: "enable",
        bearer,
        headers: stepUpHeader,
        body: { code: latestCode(app) },
      });
      expect(enabled.body).toMatchObject({ twoFactorMethods: ["email"] });
      // The session ends elsewhere; the browser keeps its access cookie. A new login's 2FA step:
      await app.api("DELETE", "/sessions", { label: "revoke every session", bearer });
      const login = await app.api("POST", "/login", { label: "login", body: { email, password: PASSWORD } });
      expect(login.body.twoFactorRequired).toBe(true);
      // The setup code's cooldown held the login's code back, and the answer says so.
      expect(login.body).toMatchObject({ emailCodeSent: false, emailCodeCooldown: expect.any(Number) });
      expect(login.body.emailCodeCooldown).toBeGreaterThan(0);
      expect(login.body.emailCodeCooldown).toBeLessThanOrEqual(60);
      const stale = `access_token=${cookieValue(first.cookies, "access_token")}`;
      const resend = await app.api("POST", "/2fa/email/send", {
        label: "resend: stale access cookie and the login's 2FA cookie",
        cookie: `${stale}; ${cookieHeader(login.cookies)}`,
      });
      expectError(resend, 429, "EMAIL_COOLDOWN_ACTIVE");
      // Signed in (a host-started session): a live access token counts, whatever 2FA cookie is beside it.
      const started = await app.auth.sessions.create(
        { request: { ip: "203.0.113.9" } },
        { userId: String(enabled.body.id) },
      );
      const signedIn = await app.api("POST", "/2fa/email/send", {
        label: "send: live access cookie and a dead 2FA cookie",
        cookie: `access_token=${started.accessToken}; two_factor_authentication_token=not-a-live-token`,
      });
      expectError(signedIn, 429, "EMAIL_COOLDOWN_ACTIVE");
    },

  "POST /2fa/email/send - a login's 2FA cookie counts before another account's live access cookie": async (
    boot,
  ) => {
    const app = await boot({ email: { loginAlerts: false } });
    const signedIn = await app.signUp("signed-in@example.test");
    const email = await emailTwoFactorUser(app, "second@example.test");
    const login = await app.api("POST", "/login", { label: "login", body: { email, password: PASSWORD } });
    expect(login.body).toMatchObject({ twoFactorRequired: true, emailCodeSent: true, emailCodeCooldown: 60 });
    await app.auth.idle();
    const mailed = () => app.emails.filter((message) => message.kind === "two-factor-code").map((m) => m.to);
    expect(mailed()).toEqual([email]);
    const resend = await app.api("POST", "/2fa/email/send", {
      label: "resend: another account's live access cookie and the login's 2FA cookie",
      cookie: `access_token=${signedIn.accessToken}; ${cookieHeader(login.cookies)}`,
    });
    // The login's user is judged (their code's cooldown runs), not the signed-in account.
    expectError(resend, 429, "EMAIL_COOLDOWN_ACTIVE");
    await app.auth.idle();
    expect(mailed()).toEqual([email]);
  },

  "POST /login - with email 2FA, a second sign-in within the cooldown says no code was sent, and the code mailed before still works":
    async (boot) => {
      const app = await boot({ email: { loginAlerts: false } });
      const email = await emailTwoFactorUser(app, "twice@example.test");
      const first = await app.api("POST", "/login", {
        label: "first login",
        body: { email, password: PASSWORD },
      });
      expect(first.body).toMatchObject({ emailCodeSent: true, emailCodeCooldown: 60 });
      await app.auth.idle();
      const code = latestCode(app);
      const second = await app.api("POST", "/login", {
        label: "second login",
        body: { email, password: PASSWORD },
      });
      expect(second.body).toMatchObject({ twoFactorRequired: true, emailCodeSent: false });
      expect(second.body.emailCodeCooldown).toBeGreaterThan(0);
      expect(second.body.emailCodeCooldown).toBeLessThanOrEqual(60);
      await app.auth.idle();
      expect(app.emails.filter((message) => message.kind === "two-factor-code")).toHaveLength(1);
      const done = await app.api("POST", "/2fa/login", {
        label: "the code mailed for the first login finishes the second",
        cookie: cookieHeader(second.cookies),
        body: { code },
      });
      expect(done.status, done.text).toBe(200);
      expect(done.body).toMatchObject({
        twoFactorRequired: false,
        user: { email },
        emailCodeSent: false,
        emailCodeCooldown: null,
      });
    },

  "GET /2fa/email/cooldown - a login's 2FA token alone answers its user's cooldown, a stale access cookie beside it changes nothing":
    async (boot) => {
      const app = await boot({ email: { loginAlerts: false } });
      const email = await emailTwoFactorUser(app, "cooldown@example.test");
      // An earlier session of this browser ended elsewhere: its access cookie stays behind.
      const ended = await app.signUp("ended@example.test");
      await app.api("DELETE", "/sessions", { label: "revoke every session", bearer: ended.accessToken });
      const stale = `access_token=${cookieValue(ended.cookies, "access_token")}`;
      const login = await app.api("POST", "/login", { label: "login", body: { email, password: PASSWORD } });
      expect(login.body).toMatchObject({
        twoFactorRequired: true,
        emailCodeSent: true,
        accessTokenExpiresAt: null,
      });
      const twoFactor = cookieHeader(login.cookies);
      for (const [label, cookie] of [
        ["cooldown: the 2FA cookie alone", twoFactor],
        ["cooldown: a stale access cookie and the 2FA cookie", `${stale}; ${twoFactor}`],
      ] as const) {
        const reply = await app.api("GET", "/2fa/email/cooldown", { label, cookie });
        expect(reply.status, reply.text).toBe(200);
        expect(reply.body.remaining).toBeGreaterThan(0);
        expect(reply.body.remaining).toBeLessThanOrEqual(60);
      }
      // Asking did not spend the 2FA token: the mailed code finishes the sign-in.
      await app.auth.idle();
      const done = await app.api("POST", "/2fa/login", {
        label: "the code finishes the sign-in",
        cookie: `${stale}; ${twoFactor}`,
        body: { code: latestCode(app) },
      });
      expect(done.status, done.text).toBe(200);
      // Without a live credential: the 2FA token's 401 once it is spent, the access token's alone.
      expectError(
        await app.api("GET", "/2fa/email/cooldown", {
          label: "cooldown: a spent 2FA cookie",
          cookie: twoFactor,
        }),
        401,
        "TWO_FACTOR_TOKEN_INVALID",
      );
      expectError(
        await app.api("GET", "/2fa/email/cooldown", {
          label: "cooldown: a stale access cookie alone",
          cookie: stale,
        }),
        401,
        "ACCESS_TOKEN_INVALID",
      );
    },
};

/** A verified user with email 2FA on and preferred, set in the store (no code mailed yet): the address. */
async function emailTwoFactorUser(app: App, email: string): Promise<string> {
  const user = await app.auth.host.createUser({}, { email, password: PASSWORD, emailVerified: true });
  await app.stores.users.update(user.id, {
    twoFactor: {
      methods: ["email"],
      preferredMethod: "email",
      totpSecretEncrypted: null,
      recoveryCodeHashes: [],
    },
  });
  return email;
}
