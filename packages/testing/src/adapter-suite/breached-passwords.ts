import type { AuthOptions } from "@portcullis/core";
import { expect, onTestFinished } from "vitest";
import { expectOnlyPrefixes, type FakeRangeServer, startFakeRangeServer } from "../fake-range-server.js";
import { type App, type AppTests, type Boot, expectError } from "./fixture.js";

/** In the fake range API's corpus. */
const BREACHED = "breached passphrase 2019";
const CLEAN = "a clean passphrase nobody leaked";

/** An app whose `breachedPasswords` asks a fake range API on 127.0.0.1, stopped after the test. */
async function withRangeApi(
  boot: Boot,
  options: Partial<NonNullable<AuthOptions["breachedPasswords"]>> = {},
): Promise<{ app: App; api: FakeRangeServer }> {
  const api = await startFakeRangeServer([BREACHED]);
  onTestFinished(() => api.stop());
  const app = await boot({ breachedPasswords: { rangeUrl: api.rangeUrl, timeoutMs: 300, ...options } });
  return { app, api };
}

/** Breached passwords (`breachedPasswords`): refused where they are chosen, flagged at login. */
export const breachedPasswordsTests: AppTests = {
  "breached passwords - register and reset refuse a password of the corpus (400, localized field error); the request carries the 5-character prefix only":
    async (boot) => {
      const { app, api } = await withRangeApi(boot);
      // The field error in each locale.
      for (const [label, query, message] of [
        ["register breached", "", "This password appears in a known data breach. Choose another one."],
        [
          "register breached de",
          "?locale=de",
          "Dieses Passwort taucht in einem bekannten Datenleck auf. Bitte wähle ein anderes.",
        ],
      ] as const) {
        const refused = await app.call(label, "POST", `/api/auth/register${query}`, {
          body: { email: "leaked@example.test", password: BREACHED },
        });
        expectError(refused, 400, "PASSWORD_BREACHED");
        expect(refused.body.errors).toEqual([{ path: "password", code: "password_breached", message }]);
      }
      const created = await app.call("register clean", "POST", "/api/auth/register", {
        body: { email: "leaked@example.test", password: CLEAN },
      });
      expect(created.body).toEqual({ success: true });

      await app.call("reset request", "POST", "/api/auth/password/reset-request", {
        body: { email: "leaked@example.test" },
      });
      await app.auth.idle();
      const token = app.tokenFrom("password-reset");
      const reset = await app.call("reset breached", "POST", `/api/auth/password/reset?token=${token}`, {
        body: { newPassword: BREACHED },
      });
      expectError(reset, 400, "PASSWORD_BREACHED");
      expect(reset.body.errors).toMatchObject([{ path: "newPassword", code: "password_breached" }]);
      // The link still works for a password outside the corpus.
      const accepted = await app.call("reset clean", "POST", `/api/auth/password/reset?token=${token}`, {
        body: { newPassword: "another clean passphrase" },
      });
      expect(accepted.status).toBe(200);
      expectOnlyPrefixes(api, [BREACHED, CLEAN, "another clean passphrase"]);
    },

  "breached passwords - a login with a password of the corpus signs in with passwordBreached: true; others have no such field":
    async (boot) => {
      const { app } = await withRangeApi(boot);
      await app.auth.host.createUser(
        {},
        { email: "old@example.test", password: BREACHED, emailVerified: true },
      );
      const flagged = await app.call("login breached", "POST", "/api/auth/login", {
        body: { email: "old@example.test", password: BREACHED },
      });
      expect(flagged.status).toBe(200);
      expect(flagged.body).toMatchObject({ twoFactorRequired: false, passwordBreached: true });
      expect(flagged.cookies.some((cookie) => cookie.startsWith("access_token="))).toBe(true);
      await app.signUp("fresh@example.test");
      const clean = await app.call("login clean", "POST", "/api/auth/login", {
        body: { email: "fresh@example.test", password: "correct horse battery staple" },
      });
      expect(clean.status).toBe(200);
      expect(clean.body).not.toHaveProperty("passwordBreached");
    },

  "breached passwords - the range API down or slow: allowed within timeoutMs; 503 BREACHED_PASSWORD_CHECK_FAILURE with failClosed, where logins still work":
    async (boot) => {
      const open = await withRangeApi(boot, { timeoutMs: 200 });
      const closed = await withRangeApi(boot, { timeoutMs: 200, failClosed: true });
      await closed.app.auth.host.createUser(
        {},
        { email: "closed@example.test", password: BREACHED, emailVerified: true },
      );
      open.api.delayMs = 2000;
      closed.api.delayMs = 2000;
      const started = performance.now();
      const slow = await open.app.call("register, API slow", "POST", "/api/auth/register", {
        body: { email: "slow@example.test", password: BREACHED },
      });
      expect(slow.status).toBe(200);
      expect(performance.now() - started).toBeLessThan(1500);
      expectError(
        await closed.app.call("register, API slow, failClosed", "POST", "/api/auth/register", {
          body: { email: "slow@example.test", password: CLEAN },
        }),
        503,
        "BREACHED_PASSWORD_CHECK_FAILURE",
      );
      await open.api.stop();
      await closed.api.stop();
      const down = await open.app.call("register, API down", "POST", "/api/auth/register", {
        body: { email: "down@example.test", password: CLEAN },
      });
      expect(down.status).toBe(200);
      expectError(
        await closed.app.call("register, API down, failClosed", "POST", "/api/auth/register", {
          body: { email: "down@example.test", password: CLEAN },
        }),
        503,
        "BREACHED_PASSWORD_CHECK_FAILURE",
      );
      const login = await closed.app.call("login, API down, failClosed", "POST", "/api/auth/login", {
        body: { email: "closed@example.test", password: BREACHED },
      });
      expect(login.status).toBe(200);
      expect(login.body).not.toHaveProperty("passwordBreached");
    },
};
