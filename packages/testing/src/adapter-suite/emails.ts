import { expect } from "vitest";
import { APP_ORIGIN, type AppTests, cookieHeader, expectError, PASSWORD } from "./fixture.js";

/** Side-effect emails, logs, and email switched off. */
export const emailsTests: AppTests = {
  "emails - a login sends a login alert whose link uses the configured origin, whatever the Host header says; not the first sign-in after signing up":
    async (boot) => {
      const app = await boot();
      const registered = await app.call("register alert", "POST", "/api/auth/register", {
        body: { email: "alert@example.test", password: PASSWORD },
      });
      // The registering browser (its device cookie) is known to the account: no alert.
      await app.call("first login, no alert", "POST", "/api/auth/login", {
        body: { email: "alert@example.test", password: PASSWORD },
        cookie: cookieHeader(registered.cookies),
      });
      await app.auth.idle();
      expect(app.emails.map((email) => email.kind)).toEqual(["email-verification"]);
      app.emails.length = 0;
      // Right after the first, from a browser the account does not know: an alert.
      await app.call("login alert", "POST", "/api/auth/login", {
        body: { email: "alert@example.test", password: PASSWORD },
        headers: { "x-forwarded-host": "evil.test" },
      });
      await app.auth.idle();
      expect(app.emails).toHaveLength(1);
      const alert = app.emails[0];
      expect(alert).toMatchObject({ to: "alert@example.test", kind: "login-alert", locale: "en" });
      expect(alert?.html).toContain(`${APP_ORIGIN}/settings/security`);
      expect(alert?.html).not.toContain("evil.test");
    },

  "logs - no password or token reaches a log line": async (boot) => {
    const app = await boot({ refreshReuseIntervalSeconds: 1 });
    const { accessToken, refreshToken } = await app.signUp("logs@example.test");
    await app.call("logs refresh", "POST", "/api/auth/refresh", { bearer: refreshToken });
    await app.elapse(1_001); // past the refresh reuse interval: the replay is reuse
    await app.call("logs reuse", "POST", "/api/auth/refresh", { bearer: refreshToken });
    const log = app.logLines.join("\n");
    expect(log.length).toBeGreaterThan(0);
    for (const secret of [PASSWORD, accessToken, refreshToken]) expect(log).not.toContain(secret);
  },

  "emails disabled - verification resend and reset request are 503 EMAIL_DISABLED": async (boot) => {
    const app = await boot({ email: { enabled: false } });
    const { accessToken } = await app.signUp("disabled@example.test");
    expectError(
      await app.call("disabled resend", "POST", "/api/auth/email/verification/send", {
        bearer: accessToken,
      }),
      503,
      "EMAIL_DISABLED",
    );
    expectError(
      await app.call("disabled resend no token", "POST", "/api/auth/email/verification/send"),
      401,
      "AUTHENTICATION_REQUIRED",
    );
    expectError(
      await app.call("disabled reset", "POST", "/api/auth/password/reset-request", {
        body: { email: "disabled@example.test" },
      }),
      503,
      "EMAIL_DISABLED",
    );
    expect(app.emails).toEqual([]);
  },
};
