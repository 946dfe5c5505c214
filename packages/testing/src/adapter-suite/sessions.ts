import { expect } from "vitest";
import { type AppTests, expectError } from "./fixture.js";

/** Listing and revoking sessions; missing, malformed and forged tokens. */
export const sessionsTests: AppTests = {
  "sessions - list marks the current one; revoke one; another user's id is 404; revoke all": async (boot) => {
    const app = await boot();
    const a1 = await app.signUp("sessions@example.test");
    const a2 = await app.signUp("sessions@example.test");
    const b = await app.signUp("other-sessions@example.test");
    const list = await app.call("sessions list", "GET", "/api/auth/sessions", { bearer: a1.accessToken });
    expect(list.status).toBe(200);
    const sessions = list.body.sessions as {
      id: string;
      current: boolean;
      browser: string;
      os: string;
    }[];
    expect(sessions).toHaveLength(2);
    expect(sessions.filter((s) => s.current)).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ browser: "Firefox 130", os: "Linux" });
    const other = sessions.find((s) => !s.current);

    const bSessions = await app.call("sessions list b", "GET", "/api/auth/sessions", {
      bearer: b.accessToken,
    });
    const bId = (bSessions.body.sessions as { id: string }[])[0]?.id;
    expectError(
      await app.call("revoke foreign", "DELETE", `/api/auth/sessions/${bId}`, { bearer: a1.accessToken }),
      404,
      "NOT_FOUND",
    );

    const revoke = await app.call("revoke one", "DELETE", `/api/auth/sessions/${other?.id}`, {
      bearer: a1.accessToken,
    });
    expect(revoke.status).toBe(200);
    expectError(
      await app.call("me revoked", "GET", "/api/auth/me", { bearer: a2.accessToken }),
      401,
      "ACCESS_TOKEN_INVALID",
    );

    await app.signUp("sessions@example.test");
    const all = await app.call("revoke all", "DELETE", "/api/auth/sessions", { bearer: a1.accessToken });
    expect(all.body).toEqual({ success: true, revoked: 2 });
    expectError(
      await app.call("me after all", "GET", "/api/auth/me", { bearer: a1.accessToken }),
      401,
      "ACCESS_TOKEN_INVALID",
    );
    expect((await app.call("me b", "GET", "/api/auth/me", { bearer: b.accessToken })).status).toBe(200);
  },

  "tokens - missing, malformed and forged access tokens are 401 with their codes, never 500": async (
    boot,
  ) => {
    const app = await boot();
    expectError(await app.call("me no token", "GET", "/api/auth/me"), 401, "AUTHENTICATION_REQUIRED");
    expectError(
      await app.call("me garbage", "GET", "/api/auth/me", { bearer: "garbage" }),
      401,
      "ACCESS_TOKEN_INVALID",
    );
    const none = `${Buffer.from('{"alg":"none","typ":"at+jwt"}').toString("base64url")}.${Buffer.from('{"sub":"x"}').toString("base64url")}.`;
    expectError(
      await app.call("me alg none", "GET", "/api/auth/me", { bearer: none }),
      401,
      "ACCESS_TOKEN_INVALID",
    );
    expectError(
      await app.call("refresh garbage", "POST", "/api/auth/refresh", { bearer: "garbage" }),
      401,
      "REFRESH_TOKEN_INVALID",
    );
    expectError(await app.call("refresh none", "POST", "/api/auth/refresh"), 401, "REFRESH_TOKEN_INVALID");
  },
};
