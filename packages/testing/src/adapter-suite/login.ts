import { expect } from "vitest";
import type { HttpReply } from "../http-client.js";
import {
  type App,
  type AppTests,
  cookieHeader,
  cookieValue,
  expectError,
  expectTokensRefused,
  PASSWORD,
  type SignedIn,
} from "./fixture.js";

/** Signing in, refresh rotation, logout, throttling, and where tokens may come from. */
export const loginTests: AppTests = {
  "login flow - register, login, /me by bearer and by cookie, refresh, reuse revokes, logout": async (
    boot,
  ) => {
    const app = await boot({ refreshReuseIntervalSeconds: 1 });
    const signedIn = await app.signUp("flow@example.test");
    await expectBearerAndCookieAlike(app, signedIn);
    await expectRotationAndReuse(app, signedIn);
    await expectLogoutEndsTheSession(app, await app.signUp("flow@example.test"));
  },

  "login - repeated failures for one address are 429 LOGIN_THROTTLED with Retry-After, known or not": async (
    boot,
  ) => {
    const app = await boot();
    await app.signUp("throttle@example.test");
    for (const email of ["throttle@example.test", "throttle-unknown@example.test"]) {
      const replies: HttpReply[] = [];
      for (let i = 0; i < 6; i++) {
        replies.push(
          await app.call(`throttle ${email} ${i}`, "POST", "/api/auth/login", {
            body: { email, password: "wrong password 123" },
          }),
        );
      }
      expect(replies.slice(0, 5).map((reply) => reply.status)).toEqual([401, 401, 401, 401, 401]);
      const throttled = replies[5] as HttpReply;
      expectError(throttled, 429, "LOGIN_THROTTLED");
      expect(throttled.headers.get("retry-after")).toBe(String(throttled.body.remaining));
    }
  },

  "login - wrong password, unknown email and a password-less account answer byte for byte alike": async (
    boot,
  ) => {
    const app = await boot();
    await app.signUp("known@example.test");
    await app.stores.users.create({
      id: "social-user-0000000000",
      email: "social@example.test",
      emailVerified: true,
      name: null,
      passwordHash: null,
      identityProviders: ["github"],
      twoFactor: {
        methods: [],
        preferredMethod: null,
        totpSecretEncrypted: null,
        recoveryCodeHashes: [],
      },
      createdAt: app.clock.now(),
    });
    const attempts = await Promise.all(
      ["known@example.test", "unknown@example.test", "social@example.test"].map((email) =>
        app.call(`login failure ${email}`, "POST", "/api/auth/login", {
          body: { email, password: "wrong password 123" },
        }),
      ),
    );
    const comparable = (reply: HttpReply) => ({
      status: reply.status,
      headers: [...reply.headers].filter(([name]) => name !== "date"),
      cookies: reply.cookies,
      body: { ...reply.body, timestamp: "" },
    });
    for (const reply of attempts) expectError(reply, 401, "INVALID_CREDENTIALS");
    expect(comparable(attempts[1] as HttpReply)).toEqual(comparable(attempts[0] as HttpReply));
    expect(comparable(attempts[2] as HttpReply)).toEqual(comparable(attempts[0] as HttpReply));
  },

  "login - token fields are null and bearer headers are ignored; cookies still work": async (boot) => {
    const app = await boot({ allowHeaderAuthentication: false, email: { enabled: false } });
    await app.call("no-header register", "POST", "/api/auth/register", {
      body: { email: "c@example.test", password: PASSWORD },
    });
    const login = await app.call("no-header login", "POST", "/api/auth/login", {
      body: { email: "c@example.test", password: PASSWORD },
    });
    expect(login.body).toMatchObject({
      accessToken: null,
      refreshToken: null,
      twoFactorRequired: false,
      twoFactorAuthenticationToken: null,
    });
    const access = cookieValue(login.cookies, "access_token") ?? "";
    expectError(
      await app.call("no-header bearer", "GET", "/api/auth/me", { bearer: access }),
      401,
      "AUTHENTICATION_REQUIRED",
    );
    expect(
      (await app.call("no-header cookie", "GET", "/api/auth/me", { cookie: cookieHeader(login.cookies) }))
        .status,
    ).toBe(200);
  },

  "preferHeaderAuthentication - the preferred source alone decides": async (boot) => {
    for (const prefer of [true, false]) {
      const app = await boot({ preferHeaderAuthentication: prefer, email: { enabled: false } });
      const { accessToken, cookies } = await app.signUp(`prefer-${prefer}@example.test`);
      const validCookie = cookieHeader(cookies);
      const headerWins = await app.call(`prefer ${prefer} bad cookie`, "GET", "/api/auth/me", {
        bearer: accessToken,
        cookie: "access_token=bad",
      });
      const cookieWins = await app.call(`prefer ${prefer} bad header`, "GET", "/api/auth/me", {
        bearer: "bad",
        cookie: validCookie,
      });
      if (prefer) {
        expect(headerWins.status).toBe(200);
        expectError(cookieWins, 401, "ACCESS_TOKEN_INVALID");
      } else {
        expectError(headerWins, 401, "ACCESS_TOKEN_INVALID");
        expect(cookieWins.status).toBe(200);
      }
    }
  },
};

/** The login's cookies carry its tokens; `/me` answers the same by bearer and by cookie. */
async function expectBearerAndCookieAlike(app: App, { accessToken, refreshToken, cookies, user }: SignedIn) {
  expect(cookieValue(cookies, "access_token")).toBe(accessToken);
  expect(cookieValue(cookies, "refresh_token")).toBe(refreshToken);
  const byBearer = await app.call("me bearer", "GET", "/api/auth/me", { bearer: accessToken });
  expect(byBearer.status).toBe(200);
  expect(byBearer.body).toMatchObject({
    id: user.id,
    email: "flow@example.test",
    emailVerified: false,
    hasPassword: true,
  });
  expect(byBearer.text).not.toMatch(/argon2|passwordHash|refreshToken/);
  const byCookie = await app.call("me cookie", "GET", "/api/auth/me", { cookie: cookieHeader(cookies) });
  expect(byCookie.text).toBe(byBearer.text);
}

/** A refresh rotates both tokens; reusing the old refresh token revokes the whole family. */
async function expectRotationAndReuse(app: App, { accessToken, refreshToken }: SignedIn) {
  const refreshed = await app.call("refresh", "POST", "/api/auth/refresh", { bearer: refreshToken });
  expect(refreshed.status).toBe(200);
  const newAccess = String(refreshed.body.accessToken);
  const newRefresh = String(refreshed.body.refreshToken);
  expect(newRefresh).not.toBe(refreshToken);
  expect(cookieValue(refreshed.cookies, "refresh_token")).toBe(newRefresh);
  expect((await app.call("me new", "GET", "/api/auth/me", { bearer: newAccess })).status).toBe(200);
  expectError(
    await app.call("me old access", "GET", "/api/auth/me", { bearer: accessToken }),
    401,
    "ACCESS_TOKEN_INVALID",
  );
  // Past the refresh reuse interval (1 s in this test's auth): within it, the old token answers the new ones.
  await app.elapse(1_001);
  const reuse = await app.call("refresh reuse", "POST", "/api/auth/refresh", {
    cookie: `refresh_token=${refreshToken}`,
  });
  expectError(reuse, 401, "REFRESH_TOKEN_INVALID");
  expect(reuse.cookies.some((c) => c.startsWith("refresh_token=;") && c.includes("Max-Age=0"))).toBe(true);
  await expectTokensRefused(app, ["me after reuse", "refresh after reuse"], newAccess, newRefresh);
}

/** Logout clears every auth cookie and ends both tokens. */
async function expectLogoutEndsTheSession(app: App, { accessToken, refreshToken }: SignedIn) {
  const logout = await app.call("logout", "POST", "/api/auth/logout", { bearer: accessToken });
  expect(logout.status).toBe(200);
  expect(logout.body).toEqual({ success: true });
  for (const name of ["access_token", "refresh_token", "two_factor_authentication_token", "step_up_token"]) {
    expect(logout.cookies.find((c) => c.startsWith(`${name}=;`))).toMatch(/Max-Age=0/);
  }
  await expectTokensRefused(app, ["me after logout", "refresh after logout"], accessToken, refreshToken);
}
