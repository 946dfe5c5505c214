// The back-office tests of impersonation and of a required password change, through the adapter;
// back-office.ts runs them with the others.
import { expect } from "vitest";
import { adminCall, bootAdmin, emailTwoFactorOn, login, stepUpAs } from "./back-office-fixture.js";
import { type AppTests, cookieHeader, cookieValue, expectError, PASSWORD } from "./fixture.js";

/** An admin with a step-up, a user, and the admin's impersonation of that user started. */
async function impersonating(boot: Parameters<typeof bootAdmin>[0]) {
  const { app, events } = await bootAdmin(boot);
  const admin = await stepUpAs(app, "admin@example.test");
  const user = await app.signUp("support-me@example.test");
  const started = await adminCall(app, admin, "impersonate", "POST", `/users/${user.user.id}/impersonate`);
  return { app, events, admin, user, started };
}

/** Impersonating a user, and requiring a user to change their password, through the adapter. */
export const impersonationTests: AppTests = {
  "impersonate - /me says impersonatedBy, no step-up, no admin route, in the activity, over after an hour":
    async (boot) => {
      const { app, events, admin, user, started } = await impersonating(boot);
      expect(started.status).toBe(200);
      const bearer = String(started.body.accessToken);
      const me = await app.call("me as the user", "GET", "/api/auth/me", { bearer });
      expect(me.body).toMatchObject({ id: user.user.id, impersonatedBy: admin.user.id });
      const own = await app.call("the user's own me", "GET", "/api/auth/me", { bearer: user.accessToken });
      expect(own.body.impersonatedBy).toBeUndefined();
      expectError(
        await app.call("step-up", "POST", "/api/auth/step-up", { bearer, body: { password: PASSWORD } }),
        403,
        "IMPERSONATION_NOT_ALLOWED",
      );
      const activity = await app.call("activity", "GET", "/api/auth/activity", { bearer: user.accessToken });
      expect((activity.body.items as { type: string }[]).map((item) => item.type)).toContain(
        "impersonation.started",
      );
      expect(events.find((event) => event.type === "impersonation.started")).toMatchObject({
        actor: admin.user.id,
        userId: user.user.id,
      });
      // An admin impersonated is no admin: the session cannot step up, and the routes refuse it.
      const other = await adminCall(
        app,
        admin,
        "impersonate an admin",
        "POST",
        `/users/${admin.user.id}/impersonate`,
      );
      expectError(
        await app.call("admin route while impersonating", "GET", "/api/auth/admin/users", {
          bearer: String(other.body.accessToken),
          headers: admin.headers,
        }),
        403,
        "IMPERSONATION_NOT_ALLOWED",
      );
      const refreshed = await app.call("refresh within the hour", "POST", "/api/auth/refresh", {
        bearer: String(started.body.refreshToken),
      });
      expect(refreshed.status).toBe(200);
      const fresh = String(refreshed.body.accessToken);
      expect(
        (await app.call("me after refresh", "GET", "/api/auth/me", { bearer: fresh })).body.impersonatedBy,
      ).toBe(admin.user.id);
      app.clock.advance(3_600_000 + 10_000);
      expectError(
        await app.call("after an hour", "GET", "/api/auth/me", { bearer: fresh }),
        401,
        "ACCESS_TOKEN_EXPIRED",
      );
      const late = await app.call("refresh after the hour", "POST", "/api/auth/refresh", {
        bearer: String(refreshed.body.refreshToken),
      });
      expectError(late, 401, "SESSION_EXPIRED");
    },

  "impersonate - the impersonation cannot change the password or end the user's sessions (403 IMPERSONATION_NOT_ALLOWED); its logout is the admin's":
    async (boot) => {
      const { app, events, admin, user, started } = await impersonating(boot);
      const bearer = String(started.body.accessToken);
      const sessions = await app.call("the user's sessions", "GET", "/api/auth/sessions", {
        bearer: user.accessToken,
      });
      const ownSession = (sessions.body.sessions as { id: string; current: boolean }[]).find(
        (session) => session.current,
      );
      const refused = [
        await app.call("change the password", "POST", "/api/auth/password/change", {
          bearer,
          body: { currentPassword: PASSWORD, newPassword: "an impersonator's new passphrase" },
        }),
        await app.call("end every session", "DELETE", "/api/auth/sessions", { bearer }),
        await app.call("end the other sessions", "DELETE", "/api/auth/sessions?others=true", { bearer }),
        await app.call("end the user's session", "DELETE", `/api/auth/sessions/${ownSession?.id}`, {
          bearer,
        }),
      ];
      for (const reply of refused) expectError(reply, 403, "IMPERSONATION_NOT_ALLOWED");
      // Nothing changed: the user's session works and the password is the same.
      expect(
        (await app.call("the user's me", "GET", "/api/auth/me", { bearer: user.accessToken })).status,
      ).toBe(200);
      expect((await login(app, "the old password still works", "support-me@example.test")).status).toBe(200);
      // The other credential changes need a step-up, which an impersonation never gets.
      expectError(
        await app.call("delete the account", "DELETE", "/api/auth/me", { bearer }),
        401,
        "STEP_UP_REQUIRED",
      );
      // Ending the impersonation is allowed, and recorded as the admin's, not as the user's logout.
      expect((await app.call("end the impersonation", "POST", "/api/auth/logout", { bearer })).status).toBe(
        200,
      );
      expect(
        events
          .filter((event) => event.type === "session.revoked")
          .map(({ actor, reason }) => ({ actor, reason })),
      ).toEqual([{ actor: admin.user.id, reason: "impersonation_ended" }]);
      const activity = await app.call("activity", "GET", "/api/auth/activity", { bearer: user.accessToken });
      const revoked = (activity.body.items as { type: string; reason: string | null }[]).filter(
        (item) => item.type === "session.revoked",
      );
      expect(revoked.map((item) => item.reason)).toEqual(["impersonation_ended"]);
    },

  "impersonate - with cookie authentication: the browser's session cookies become the user's, no token in the body":
    async (boot) => {
      const { app } = await bootAdmin(boot);
      const admin = await app.signUp("admin@example.test");
      const user = await app.signUp("browser-user@example.test");
      const stepUp = await app.call("step-up by cookie", "POST", "/api/auth/step-up", {
        cookie: cookieHeader(admin.cookies),
        body: { password: PASSWORD },
      });
      expect(stepUp.status).toBe(200);
      const jar = `${cookieHeader(admin.cookies)}; ${cookieHeader(stepUp.cookies)}`;
      const started = await app.call(
        "impersonate by cookie",
        "POST",
        `/api/auth/admin/users/${user.user.id}/impersonate`,
        { cookie: jar },
      );
      expect(started.status).toBe(200);
      expect(started.body).toMatchObject({
        user: { id: user.user.id },
        accessToken: null,
        refreshToken: null,
      });
      expect(Date.parse(String(started.body.expiresAt))).toBeGreaterThan(app.clock.now());
      // Browser-session cookies (no Max-Age: they end with the browser), the step-up cookie cleared.
      const access = started.cookies.find((line) => line.startsWith("access_token="));
      const refresh = started.cookies.find((line) => line.startsWith("refresh_token="));
      expect(access).toMatch(/HttpOnly/);
      expect(access).not.toMatch(/Max-Age/);
      expect(refresh).not.toMatch(/Max-Age/);
      expect(started.cookies.some((line) => /^step_up_token=;.*Max-Age=0/.test(line))).toBe(true);
      const asUser = `access_token=${cookieValue(started.cookies, "access_token")}; refresh_token=${cookieValue(started.cookies, "refresh_token")}`;
      const me = await app.call("me with the new cookies", "GET", "/api/auth/me", { cookie: asUser });
      expect(me.body).toMatchObject({ id: user.user.id, impersonatedBy: admin.user.id });
      const refreshed = await app.call("refresh by cookie", "POST", "/api/auth/refresh", { cookie: asUser });
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.user).toMatchObject({ id: user.user.id });
      // The admin's own session is untouched on the server (its tokens still work where they are held).
      expect((await app.call("admin me", "GET", "/api/auth/me", { bearer: admin.accessToken })).body.id).toBe(
        admin.user.id,
      );
      // With header authentication the answer is as before: tokens in the body, no cookie.
      const headerAdmin = await stepUpAs(app, "admin-header@example.test");
      const byHeader = await adminCall(
        app,
        headerAdmin,
        "impersonate by header",
        "POST",
        `/users/${user.user.id}/impersonate`,
      );
      expect(typeof byHeader.body.accessToken).toBe("string");
      expect(byHeader.cookies).toEqual([]);
    },

  "requirePasswordChange - the next login answers 403 with a token; a new password set with it signs in":
    async (boot) => {
      const { app, events } = await bootAdmin(boot);
      const admin = await stepUpAs(app, "admin@example.test");
      const user = await app.signUp("change-me@example.test");
      const required = await adminCall(
        app,
        admin,
        "require",
        "POST",
        `/users/${user.user.id}/require-password-change`,
      );
      expect(required.status).toBe(200);
      expect(required.body.passwordChangeRequired).toBe(true);
      expectError(
        await app.call("ended", "GET", "/api/auth/me", { bearer: user.accessToken }),
        401,
        "ACCESS_TOKEN_INVALID",
      );
      const refused = await login(app, "login", "change-me@example.test");
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: "PASSWORD_CHANGE_REQUIRED" });
      expect(refused.body.accessToken).toBeUndefined();
      const token = String(refused.body.passwordChangeToken);
      const same = await app.call("the same password", "POST", "/api/auth/password/change-required", {
        body: { token, newPassword: PASSWORD },
      });
      expectError(same, 400, "PASSWORD_POLICY_VIOLATION");
      const newPassword = "a brand new passphrase for this account";
      const changed = await app.call("set the new password", "POST", "/api/auth/password/change-required", {
        body: { token, newPassword },
      });
      expect(changed.status).toBe(200);
      expect(changed.body.accessToken).toEqual(expect.any(String));
      const again = await app.call("the token again", "POST", "/api/auth/password/change-required", {
        body: { token, newPassword: "yet another passphrase entirely" },
      });
      expectError(again, 401, "PASSWORD_CHANGE_TOKEN_INVALID");
      expectError(await login(app, "old password", "change-me@example.test"), 401, "INVALID_CREDENTIALS");
      expect((await login(app, "new password", "change-me@example.test", newPassword)).status).toBe(200);
      expect(events.find((event) => event.type === "password_change.required")).toMatchObject({
        actor: admin.user.id,
      });
    },

  "requirePasswordChange - an account with 2FA still passes its second factor after the new password": async (
    boot,
  ) => {
    const { app } = await bootAdmin(boot);
    const user = await app.signUp("change-2fa@example.test");
    await emailTwoFactorOn(app, user.user.id);
    await app.auth.host.requirePasswordChange({ actor: "support:test" }, { userId: user.user.id });
    const refused = await login(app, "login", "change-2fa@example.test");
    expectError(refused, 403, "PASSWORD_CHANGE_REQUIRED");
    const changed = await app.call("set the new password", "POST", "/api/auth/password/change-required", {
      body: {
        token: String(refused.body.passwordChangeToken),
        newPassword: "a brand new passphrase for this account",
      },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ twoFactorRequired: true, accessToken: null });
  },
};
