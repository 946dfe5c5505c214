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
      // Not recorded: long lines stay out of the transcript, and a framework may refuse a path that
      // is not UTF-8 itself (Fastify: 400 FST_ERR_BAD_URL, see the adapter's README) before any adapter code.
      const revoke = async (id: string) => {
        const reply = await fetch(`${app.server.baseUrl}/api/auth/sessions/${id}`, {
          method: "DELETE",
          headers: { authorization: `Bearer ${a.accessToken}` },
        });
        return { status: reply.status, code: ((await reply.json()) as { code?: string }).code };
      };
      for (const id of ["a".repeat(10_240), "%00".repeat(3_000), `${"A".repeat(22)}%00`.repeat(200)])
        expect(await revoke(id), id.slice(0, 20)).toEqual({ status: 404, code: "NOT_FOUND" });
      for (const id of ["%C3%28", "%FF%FE%FD", "%ED%A0%80", `${"A".repeat(20)}%C0%AF`]) {
        const answer = await revoke(id);
        if (answer.code !== "FST_ERR_BAD_URL") expect(answer, id).toEqual({ status: 404, code: "NOT_FOUND" });
        else expect(answer.status, id).toBe(400);
      }
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
