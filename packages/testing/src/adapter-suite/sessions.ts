import { expect } from "vitest";
import { type AppTests, expectError, expectTokensRefused } from "./fixture.js";

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

  "sessions - DELETE ?others=true ends every other session at once, the caller stays signed in; a bad value is 400":
    async (boot) => {
      const app = await boot();
      const [a1, a2, a3] = [
        await app.signUp("others@example.test"),
        await app.signUp("others@example.test"),
        await app.signUp("others@example.test"),
      ];
      const b = await app.signUp("others-b@example.test");
      for (const query of ["others=yes", "others=TRUE", "others=true&others=true"]) {
        const bad = await app.call(`others ${query}`, "DELETE", `/api/auth/sessions?${query}`, {
          bearer: a1.accessToken,
        });
        expectError(bad, 400, "VALIDATION_FAILED");
        expect(bad.body.errors).toEqual([expect.objectContaining({ path: "others" })]);
      }
      expect((await app.call("me after bad", "GET", "/api/auth/me", { bearer: a2.accessToken })).status).toBe(
        200,
      );

      const others = await app.call("revoke others", "DELETE", "/api/auth/sessions?others=true", {
        bearer: a1.accessToken,
      });
      expect(others.status).toBe(200);
      expect(others.body).toEqual({ success: true, revoked: 2 });
      expect(others.cookies).toEqual([]);
      await expectTokensRefused(app, ["me other", "refresh other"], a2.accessToken, a3?.refreshToken);
      expect((await app.call("me caller", "GET", "/api/auth/me", { bearer: a1.accessToken })).status).toBe(
        200,
      );
      const left = await app.call("sessions left", "GET", "/api/auth/sessions", { bearer: a1.accessToken });
      expect(left.body.sessions).toEqual([expect.objectContaining({ current: true })]);
      expect((await app.call("me b", "GET", "/api/auth/me", { bearer: b.accessToken })).status).toBe(200);
      const refreshed = await app.call("refresh caller", "POST", "/api/auth/refresh", {
        bearer: a1.refreshToken,
      });
      expect(refreshed.status).toBe(200);

      // others=false is the plain sign-out everywhere: the caller's session too, cookies cleared.
      const all = await app.call("revoke others=false", "DELETE", "/api/auth/sessions?others=false", {
        bearer: String(refreshed.body.accessToken),
      });
      expect(all.body).toEqual({ success: true, revoked: 1 });
      expect(all.cookies.length).toBeGreaterThan(0);
      expect(all.cookies.every((cookie) => /Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(cookie))).toBe(true);
    },

  "sessions - two sessions sending DELETE ?others=true at once end every third one; at most one of the two survives":
    async (boot) => {
      const app = await boot();
      const sessions = [];
      for (let i = 0; i < 4; i += 1) sessions.push(await app.signUp("race@example.test"));
      // Not recorded: which of the two requests wins (or whether both end) depends on timing.
      const send = async (method: string, path: string, bearer: string) => {
        const reply = await fetch(`${app.server.baseUrl}/api/auth${path}`, {
          method,
          headers: { authorization: `Bearer ${bearer}` },
        });
        return { status: reply.status, body: (await reply.json()) as { code?: string; revoked?: number } };
      };
      const [first, second, ...rest] = sessions.map((session) => session.accessToken);
      const answers = await Promise.all(
        [first, second].map((token) => send("DELETE", "/sessions?others=true", token ?? "")),
      );
      // A request whose session the other one ended first is refused; at least one went through.
      for (const answer of answers)
        if (answer.status !== 200)
          expect(answer).toMatchObject({ status: 401, body: { code: "ACCESS_TOKEN_INVALID" } });
      expect(answers.some((answer) => answer.status === 200)).toBe(true);
      for (const token of rest) expect((await send("GET", "/me", token ?? "")).status).toBe(401);
      const alive = [];
      for (const token of [first, second]) {
        const me = await send("GET", "/me", token ?? "");
        if (me.status === 200) alive.push(token);
        else expect(me.body.code).toBe("ACCESS_TOKEN_INVALID");
      }
      expect(alive.length).toBeLessThanOrEqual(1);
      // Each ended session was counted once, by the request that deleted it.
      const counted = answers.reduce((sum, answer) => sum + (answer.body.revoked ?? 0), 0);
      expect(counted).toBe(sessions.length - alive.length);
    },

  "sessions - revoke with an id that cannot exist (NUL, invalid UTF-8, 10 kB) is 404, never asked of the store":
    async (boot) => {
      const app = await boot();
      const a = await app.signUp("session-ids@example.test");
      for (const [label, id] of [
        ["nul", "%00"],
        ["nul inside", `${"A".repeat(11)}%00${"A".repeat(10)}`],
        ["not base64url", "aaaaaaaaaaaaaaaaaaaaa%20"],
        ["too short", "AAAAAAAAAAAAAAA"],
        ["well formed, unknown", "A".repeat(22)],
      ]) {
        expectError(
          await app.call(`revoke ${label}`, "DELETE", `/api/auth/sessions/${id}`, { bearer: a.accessToken }),
          404,
          "NOT_FOUND",
        );
      }
      // Not recorded: long lines stay out of the transcript. A path that is not UTF-8 is 404 too, on
      // every adapter (Fastify's router would refuse it itself: its plugin hands it to the core).
      const revoke = async (id: string) => {
        const reply = await fetch(`${app.server.baseUrl}/api/auth/sessions/${id}`, {
          method: "DELETE",
          headers: { authorization: `Bearer ${a.accessToken}` },
        });
        return { status: reply.status, code: ((await reply.json()) as { code?: string }).code };
      };
      for (const id of ["a".repeat(10_240), "%00".repeat(3_000), `${"A".repeat(22)}%00`.repeat(200)])
        expect(await revoke(id), id.slice(0, 20)).toEqual({ status: 404, code: "NOT_FOUND" });
      for (const id of ["%C3%28", "%FF%FE%FD", "%ED%A0%80", `${"A".repeat(20)}%C0%AF`])
        expect(await revoke(id), id).toEqual({ status: 404, code: "NOT_FOUND" });
      // The session itself is untouched.
      expect((await app.call("me after", "GET", "/api/auth/me", { bearer: a.accessToken })).status).toBe(200);
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
