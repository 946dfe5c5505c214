import { expect } from "vitest";
import { type AppTests, expectError, JSON_HEADERS } from "./fixture.js";

/** Password reset: identical answers, one cooldown per address, failing mailers. */
export const resetTests: AppTests = {
  "reset - known and unknown addresses get identical answers; the emailed link works once and revokes sessions":
    async (boot) => {
      const app = await boot();
      const { accessToken } = await app.signUp("reset@example.test");
      const known = await app.call("reset request known", "POST", "/api/auth/password/reset-request", {
        body: { email: "reset@example.test" },
      });
      const unknown = await app.call("reset request unknown", "POST", "/api/auth/password/reset-request", {
        body: { email: "nobody@example.test" },
      });
      expect(known.status).toBe(200);
      expect(known.body).toEqual({ cooldown: 60 });
      expect(unknown.text).toBe(known.text);
      expect([...unknown.headers].filter(([name]) => name !== "date")).toEqual(
        [...known.headers].filter(([name]) => name !== "date"),
      );
      expect(
        app.emails.filter((email) => email.to === "nobody@example.test").map((email) => email.kind),
      ).toEqual(["no-principal-information"]);

      const token = app.tokenFrom("password-reset");
      const weak = await app.call("reset weak", "POST", `/api/auth/password/reset?token=${token}`, {
        body: { newPassword: "short" },
      });
      expectError(weak, 400, "PASSWORD_POLICY_VIOLATION");
      const reset = await app.call("reset", "POST", `/api/auth/password/reset?token=${token}`, {
        body: { newPassword: "a brand new passphrase" },
      });
      expect(reset.status).toBe(200);
      expect(reset.body).toEqual({ success: true });
      expect(reset.cookies.find((c) => c.startsWith("access_token=;"))).toMatch(/Max-Age=0/);
      const again = await app.call("reset again", "POST", `/api/auth/password/reset?token=${token}`, {
        body: { newPassword: "a brand new passphrase" },
      });
      expectError(again, 401, "PASSWORD_RESET_TOKEN_INVALID");
      expectError(
        await app.call("me after reset", "GET", "/api/auth/me", { bearer: accessToken }),
        401,
        "ACCESS_TOKEN_INVALID",
      );
      const login = await app.call("login new password", "POST", "/api/auth/login", {
        body: { email: "reset@example.test", password: "a brand new passphrase" },
      });
      expect(login.status).toBe(200);
      expectError(
        await app.call("reset no token", "POST", "/api/auth/password/reset", {
          body: { newPassword: "a brand new passphrase" },
        }),
        401,
        "PASSWORD_RESET_TOKEN_INVALID",
      );
    },

  "reset - User@X.test and ' user@x.test ' share one cooldown: 429 with remaining and Retry-After": async (
    boot,
  ) => {
    const app = await boot();
    const first = await app.call("cooldown first", "POST", "/api/auth/password/reset-request", {
      body: { email: "Variant@X.test" },
    });
    expect(first.status).toBe(200);
    const second = await app.call("cooldown variant", "POST", "/api/auth/password/reset-request", {
      body: { email: " variant@x.test " },
    });
    expectError(second, 429, "EMAIL_COOLDOWN_ACTIVE");
    expect(second.body.remaining).toBeGreaterThan(0);
    expect(second.headers.get("retry-after")).toBe(String(second.body.remaining));
    const remaining = await app.call(
      "cooldown get",
      "GET",
      "/api/auth/password/reset/cooldown?email=VARIANT%40x.test",
    );
    expect(remaining.status).toBe(200);
    expect((remaining.body as { remaining: number }).remaining).toBeGreaterThan(0);
    const none = await app.call(
      "cooldown none",
      "GET",
      "/api/auth/password/reset/cooldown?email=fresh%40x.test",
    );
    expect(none.body).toEqual({ remaining: 0 });
    expectError(
      await app.call("cooldown bad email", "GET", "/api/auth/password/reset/cooldown?email=nope"),
      400,
      "VALIDATION_FAILED",
    );
  },

  "reset - 50 concurrent requests for one address send exactly one email": async (boot) => {
    const app = await boot();
    const before = app.emails.length;
    const replies = await Promise.all(
      Array.from({ length: 50 }, () =>
        fetch(`${app.server.baseUrl}/api/auth/password/reset-request`, {
          method: "POST",
          headers: JSON_HEADERS,
          body: JSON.stringify({ email: "burst@example.test" }),
        }).then((reply) => reply.status),
      ),
    );
    expect(replies.filter((status) => status === 200)).toHaveLength(1);
    expect(replies.filter((status) => status === 429)).toHaveLength(49);
    expect(app.emails.length - before).toBe(1);
  },

  "reset - a failing mailer is 500 EMAIL_SEND_FAILURE, the cooldown is released, a retry sends exactly once":
    async (boot) => {
      const app = await boot();
      app.mailerControl.failures = 1;
      const before = app.emails.length;
      const failed = await app.call("mailer down", "POST", "/api/auth/password/reset-request", {
        body: { email: "flaky@example.test" },
      });
      expectError(failed, 500, "EMAIL_SEND_FAILURE");
      expect(failed.text).not.toContain("smtp down");
      expect(
        (
          await app.call(
            "mailer down cooldown",
            "GET",
            "/api/auth/password/reset/cooldown?email=flaky%40example.test",
          )
        ).body,
      ).toEqual({
        remaining: 0,
      });
      expect(
        (
          await app.call("mailer retry", "POST", "/api/auth/password/reset-request", {
            body: { email: "flaky@example.test" },
          })
        ).status,
      ).toBe(200);
      expect(app.emails.length - before).toBe(1);
    },
};
