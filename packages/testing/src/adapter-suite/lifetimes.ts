import { expect } from "vitest";
import type { HttpReply } from "../http-client.js";
import { type App, type AppTests, expectError, PASSWORD, type SignedIn } from "./fixture.js";

/**
 * The session lifetimes of these tests, in seconds: short, since on stores with their own clock
 * (`storeNow`) passing them is a real wait. Every step stays a second away from a limit.
 */
const IDLE_SECONDS = 2;
const LIFETIME_SECONDS = 3;
const LIMITS = { idleTimeoutSeconds: IDLE_SECONDS, absoluteLifetimeSeconds: LIFETIME_SECONDS };
/** A lifetime no idle test reaches, so only the idle timeout ends its sessions. */
const IDLE_ONLY = { idleTimeoutSeconds: IDLE_SECONDS, absoluteLifetimeSeconds: 60 };

/** Refreshes with `refreshToken` (recorded as `label`), expecting 200: the new tokens. */
async function refreshed(app: App, label: string, refreshToken: string) {
  const reply = await app.call(label, "POST", "/api/auth/refresh", { bearer: refreshToken });
  expect(reply.status, reply.text).toBe(200);
  return { accessToken: String(reply.body.accessToken), refreshToken: String(reply.body.refreshToken) };
}

/** A 401 `SESSION_EXPIRED` that clears the access and refresh cookies. */
function expectExpired(reply: HttpReply) {
  expectError(reply, 401, "SESSION_EXPIRED");
  for (const name of ["access_token", "refresh_token"])
    expect(reply.cookies.find((cookie) => cookie.startsWith(`${name}=;`))).toMatch(/Max-Age=0/);
}

/** The auth cookies of a reply: each one present, and whether it carries a Max-Age. */
function authCookies(reply: HttpReply) {
  return ["access_token", "refresh_token"].map((name) => {
    const cookie = reply.cookies.find((c) => c.startsWith(`${name}=`) && !c.startsWith(`${name}=;`));
    expect(cookie, `${name} is set`).toBeDefined();
    return { name, maxAge: /;\s*Max-Age=/i.test(cookie ?? ""), expires: /;\s*Expires=/i.test(cookie ?? "") };
  });
}

/** Signs in `email` (already registered) again, with Chrome: the new session's tokens. */
async function signInAgain(app: App, email: string): Promise<SignedIn> {
  const login = await app.call("login again", "POST", "/api/auth/login", {
    body: { email, password: PASSWORD },
  });
  expect(login.status).toBe(200);
  return {
    accessToken: String(login.body.accessToken),
    refreshToken: String(login.body.refreshToken),
    cookies: login.cookies,
    user: login.body.user as { id: string },
  };
}

/** Idle timeout, absolute lifetime and "remember me" (`rememberMe: false`: browser-session cookies). */
export const lifetimesTests: AppTests = {
  "refresh - idle timeout: a refresh within it works and restarts it; after it, 401 SESSION_EXPIRED and the cookies cleared":
    async (boot) => {
      const app = await boot(IDLE_ONLY);
      const signedIn = await app.signUp("idle@example.test");
      await app.elapse((IDLE_SECONDS - 1) * 1000);
      const first = await refreshed(app, "refresh within the idle timeout", signedIn.refreshToken);
      await app.elapse((IDLE_SECONDS - 1) * 1000);
      // Past the idle timeout counted from the sign-in, within it counted from the refresh.
      const second = await refreshed(app, "refresh within the idle timeout again", first.refreshToken);
      await app.elapse((IDLE_SECONDS + 1) * 1000);
      expectExpired(
        await app.call("refresh after the idle timeout", "POST", "/api/auth/refresh", {
          bearer: second.refreshToken,
        }),
      );
      expectError(
        await app.call("me after the idle timeout", "GET", "/api/auth/me", { bearer: second.accessToken }),
        401,
        "ACCESS_TOKEN_INVALID",
      );
      expectError(
        await app.call("refresh the ended session", "POST", "/api/auth/refresh", {
          bearer: second.refreshToken,
        }),
        401,
        "REFRESH_TOKEN_INVALID",
      );
    },

  "refresh - absolute lifetime: the session ends however regularly it is refreshed": async (boot) => {
    const app = await boot(LIMITS);
    const signedIn = await app.signUp("absolute@example.test");
    await app.elapse(1_000);
    const first = await refreshed(app, "refresh after 1 s", signedIn.refreshToken);
    await app.elapse(1_000);
    const second = await refreshed(app, "refresh after 2 s", first.refreshToken);
    await app.elapse(1_500);
    expectExpired(
      await app.call("refresh after the lifetime", "POST", "/api/auth/refresh", {
        bearer: second.refreshToken,
      }),
    );
  },

  "sessions - a session past its idle timeout is not listed": async (boot) => {
    const app = await boot(IDLE_ONLY);
    const email = "listed@example.test";
    const idle = await app.signUp(email);
    const active = await signInAgain(app, email);
    await app.elapse(1_000);
    const refreshedActive = await refreshed(app, "refresh the active session", active.refreshToken);
    await app.elapse(1_500);
    const latest = await refreshed(app, "refresh the active session again", refreshedActive.refreshToken);
    const list = await app.call("list sessions", "GET", "/api/auth/sessions", { bearer: latest.accessToken });
    expect(list.status).toBe(200);
    const sessions = list.body.sessions as { current: boolean }[];
    expect(sessions).toHaveLength(1);
    expect(sessions[0]?.current).toBe(true);
    expectExpired(
      await app.call("refresh the idle session", "POST", "/api/auth/refresh", { bearer: idle.refreshToken }),
    );
  },

  "login - rememberMe false: the auth cookies have no Max-Age, at sign-in and on every refresh": async (
    boot,
  ) => {
    const app = await boot();
    const email = "no-remember@example.test";
    await app.call("register", "POST", "/api/auth/register", { body: { email, password: PASSWORD } });
    expectError(
      await app.call("login with rememberMe as text", "POST", "/api/auth/login", {
        body: { email, password: PASSWORD, rememberMe: "no" },
      }),
      400,
      "VALIDATION_FAILED",
    );
    const login = await app.call("login without remember me", "POST", "/api/auth/login", {
      body: { email, password: PASSWORD, rememberMe: false },
    });
    expect(login.status).toBe(200);
    for (const cookie of authCookies(login)) expect(cookie).toMatchObject({ maxAge: false, expires: false });
    const refresh = await app.call("refresh without remember me", "POST", "/api/auth/refresh", {
      bearer: String(login.body.refreshToken),
    });
    expect(refresh.status).toBe(200);
    for (const cookie of authCookies(refresh))
      expect(cookie).toMatchObject({ maxAge: false, expires: false });
    const remembered = await app.call("login with remember me", "POST", "/api/auth/login", {
      body: { email, password: PASSWORD, rememberMe: true },
    });
    for (const cookie of authCookies(remembered)) expect(cookie.maxAge).toBe(true);
    const again = await app.call("refresh with remember me", "POST", "/api/auth/refresh", {
      bearer: String(remembered.body.refreshToken),
    });
    for (const cookie of authCookies(again)) expect(cookie.maxAge).toBe(true);
  },

  "login and refresh - accessTokenExpiresAt is the new access token's expiry (its exp)": async (boot) => {
    /** The answer's `accessTokenExpiresAt` in ms, and the access token's `exp` and `iat` in ms. */
    const expiry = (reply: HttpReply) => {
      const claims = JSON.parse(atob(String(reply.body.accessToken).split(".")[1] ?? "")) as Record<
        string,
        number
      >;
      const at = String(reply.body.accessTokenExpiresAt);
      expect(at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      return { at: Date.parse(at), exp: (claims.exp ?? 0) * 1000, iat: (claims.iat ?? 0) * 1000 };
    };
    const app = await boot();
    await app.signUp("expiry@example.test");
    const login = await app.call("login", "POST", "/api/auth/login", {
      body: { email: "expiry@example.test", password: PASSWORD },
    });
    const first = expiry(login);
    expect(first.at).toBe(first.exp);
    expect(first.exp - first.iat).toBe(app.auth.options.accessTokenTtlSeconds * 1000);
    const refresh = await app.call("refresh", "POST", "/api/auth/refresh", {
      bearer: String(login.body.refreshToken),
    });
    const second = expiry(refresh);
    expect(second.at).toBe(second.exp);
    expect(second.at).toBeGreaterThanOrEqual(first.at);
  },

  "login and refresh - accessTokenExpiresAt (the token's exp) is never past the session's idle or absolute end":
    async (boot) => {
      const app = await boot(LIMITS);
      const email = "expiry-limits@example.test";
      await app.signUp(email);
      /** What the answer's access token has left after its `iat`, in ms; `accessTokenExpiresAt` is its `exp`. */
      const lifetime = (reply: HttpReply) => {
        expect(reply.status, reply.text).toBe(200);
        const claims = JSON.parse(atob(String(reply.body.accessToken).split(".")[1] ?? "")) as Record<
          string,
          number
        >;
        const exp = (claims.exp ?? 0) * 1000;
        expect(Date.parse(String(reply.body.accessTokenExpiresAt))).toBe(exp);
        return exp - (claims.iat ?? 0) * 1000;
      };
      const login = await app.call("login with a 2 s idle timeout", "POST", "/api/auth/login", {
        body: { email, password: PASSWORD },
      });
      // The idle timeout (2 s), not the access token's own lifetime.
      expect(lifetime(login)).toBeLessThanOrEqual(IDLE_SECONDS * 1000);
      await app.elapse(1_000);
      const first = await app.call("refresh 1 s in", "POST", "/api/auth/refresh", {
        bearer: String(login.body.refreshToken),
      });
      expect(lifetime(first)).toBeLessThanOrEqual(IDLE_SECONDS * 1000);
      await app.elapse(1_000);
      // 2 s in, 1 s before the absolute end (3 s): at most that second, not the idle timeout.
      const second = await app.call("refresh 2 s in", "POST", "/api/auth/refresh", {
        bearer: String(first.body.refreshToken),
      });
      expect(lifetime(second)).toBeLessThanOrEqual((LIFETIME_SECONDS - 2) * 1000);
    },
};
