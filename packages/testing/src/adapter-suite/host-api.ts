import { expect } from "vitest";
import { type App, type AppTests, expectError, PASSWORD } from "./fixture.js";

const NEW_PASSWORD = "a fresh admin-set passphrase";

/** After an admin change, the user's access token and `PASSWORD` are refused (`labels` name the two calls). */
async function expectLockedOut(
  app: App,
  account: { email: string; accessToken: string },
  labels: { me: string; login: string },
): Promise<void> {
  expectError(
    await app.call(labels.me, "GET", "/api/auth/me", { bearer: account.accessToken }),
    401,
    "ACCESS_TOKEN_INVALID",
  );
  expectError(
    await app.call(labels.login, "POST", "/api/auth/login", {
      body: { email: account.email, password: PASSWORD },
    }),
    401,
    "INVALID_CREDENTIALS",
  );
}

/**
 * The host's side of the API over HTTP: a session a host started with `auth.sessions.create` is a
 * normal session (it authenticates, is listed, refreshes and revokes), and each trusted host
 * operation (`auth.host.*`) shows through the routes.
 */
export const hostApiTests: AppTests = {
  "sessions.create - a host-started session authenticates, is listed, refreshes and is revoked like any other":
    async (boot) => {
      const app = await boot();
      const user = await app.auth.host.createUser({}, { email: "sso@example.test", emailVerified: true });
      const started = await app.auth.sessions.create(
        { request: { ip: "203.0.113.9" } },
        { userId: user.id, session: { browser: "Single sign-on" } },
      );
      expect(started.principal).toMatchObject({ userId: user.id, sessionId: started.sessionId });
      expect(started.user).toMatchObject({ email: "sso@example.test", hasPassword: false });
      const me = await app.call("me of a host session", "GET", "/api/auth/me", {
        bearer: started.accessToken,
      });
      expect(me.body).toMatchObject({ id: user.id });
      const list = await app.call("host session listed", "GET", "/api/auth/sessions", {
        bearer: started.accessToken,
      });
      expect(list.body.sessions).toMatchObject([
        { id: started.sessionId, browser: "Single sign-on", current: true },
      ]);
      const refreshed = await app.call("host session refreshed", "POST", "/api/auth/refresh", {
        bearer: started.refreshToken,
      });
      expect(refreshed.status).toBe(200);
      const revoked = await app.call(
        "host session revoked",
        "DELETE",
        `/api/auth/sessions/${started.sessionId}`,
        {
          bearer: String(refreshed.body.accessToken),
        },
      );
      expect(revoked.status).toBe(200);
      expectError(
        await app.call("me after revoke", "GET", "/api/auth/me", {
          bearer: String(refreshed.body.accessToken),
        }),
        401,
        "ACCESS_TOKEN_INVALID",
      );
      await expect(app.auth.sessions.create({}, { userId: "no-such-user" })).rejects.toMatchObject({
        code: "USER_NOT_FOUND",
      });
    },

  "host.createUser - a verified password account signs in at once; an address taken is VALIDATION_FAILED":
    async (boot) => {
      const app = await boot();
      const user = await app.auth.host.createUser(
        {},
        {
          email: " Back.Office@Example.test ",
          password: PASSWORD,
          name: "Back Office",
          emailVerified: true,
        },
      );
      expect(user).toMatchObject({
        email: "back.office@example.test",
        emailVerified: true,
        hasPassword: true,
      });
      const login = await app.call("login admin-made user", "POST", "/api/auth/login", {
        body: { email: "back.office@example.test", password: PASSWORD },
      });
      expect(login.body).toMatchObject({
        twoFactorRequired: false,
        user: { id: user.id, name: "Back Office" },
      });
      await expect(app.auth.host.createUser({}, { email: "back.office@example.test" })).rejects.toMatchObject(
        {
          code: "VALIDATION_FAILED",
        },
      );
      await expect(
        app.auth.host.createUser({}, { email: "weak@example.test", password: "password" }),
      ).rejects.toMatchObject({ code: "PASSWORD_POLICY_VIOLATION" });
    },

  "host.setPassword - ends every session, the new password signs in, the old one does not": async (boot) => {
    const app = await boot();
    const before = await app.signUp("reset-by-admin@example.test");
    await app.auth.host.setPassword({}, { userId: before.user.id, password: NEW_PASSWORD });
    await expectLockedOut(
      app,
      { email: "reset-by-admin@example.test", accessToken: before.accessToken },
      { me: "me after admin password", login: "old password" },
    );
    const login = await app.call("new password", "POST", "/api/auth/login", {
      body: { email: "reset-by-admin@example.test", password: NEW_PASSWORD },
    });
    expect(login.status).toBe(200);
    await app.auth.idle();
    expect(app.emails.some((email) => email.kind === "password-changed")).toBe(true);
  },

  "host.markEmailVerified - the user reads as verified and a verification resend is 304": async (boot) => {
    const app = await boot();
    const signedIn = await app.signUp("verify-by-admin@example.test");
    await app.auth.host.markEmailVerified({}, signedIn.user.id);
    const me = await app.call("me verified by admin", "GET", "/api/auth/me", {
      bearer: signedIn.accessToken,
    });
    expect(me.body).toMatchObject({ emailVerified: true });
    expect(
      (
        await app.call("resend after admin verify", "POST", "/api/auth/email/verification/send", {
          bearer: signedIn.accessToken,
        })
      ).status,
    ).toBe(304);
  },

  "host.deleteUser - sessions end, the address can sign up again as a new account, a second delete is USER_NOT_FOUND":
    async (boot) => {
      const app = await boot();
      const signedIn = await app.signUp("leaving@example.test");
      await app.call("reset request before delete", "POST", "/api/auth/password/reset-request", {
        body: { email: "leaving@example.test" },
      });
      await app.auth.host.deleteUser({}, signedIn.user.id);
      await expectLockedOut(
        app,
        { email: "leaving@example.test", accessToken: signedIn.accessToken },
        { me: "me after delete", login: "login after delete" },
      );
      const again = await app.signUp("leaving@example.test");
      expect(again.user.id).not.toBe(signedIn.user.id);
      expect(
        (
          await app.call("reset request after delete", "POST", "/api/auth/password/reset-request", {
            body: { email: "leaving@example.test" },
          })
        ).status,
      ).toBe(200);
      await expect(app.auth.host.deleteUser({}, signedIn.user.id)).rejects.toMatchObject({
        code: "USER_NOT_FOUND",
      });
    },
};
