import { describe, expect, it } from "vitest";
import type { SecurityEvent } from "../events.js";
import { code, createTestAuth, PASSWORD, signIn } from "../test-support.js";

async function setup() {
  const events: SecurityEvent[] = [];
  const { auth } = createTestAuth({ onEvent: (event) => void events.push(event) });
  await auth.register({}, { email: "a@x.test", password: PASSWORD });
  await auth.register({}, { email: "b@x.test", password: PASSWORD });
  const a = await Promise.all([1, 2, 3].map(() => signIn(auth, { email: "a@x.test", password: PASSWORD })));
  const b = await signIn(auth, { email: "b@x.test", password: PASSWORD });
  return { auth, events, a, b };
}

describe("sessions.revokeOthers", () => {
  it("revokeOthers - ends every other session of the user at once, keeps the caller's and other users'", async () => {
    const { auth, events, a, b } = await setup();
    const [caller, ...others] = a;
    const principal = await auth.authenticate({ token: caller?.accessToken ?? "" });
    expect(await auth.sessions.revokeOthers({ principal })).toEqual({ success: true, revoked: 2 });
    for (const other of others) {
      expect(await code(auth.authenticate({ token: other.accessToken }))).toBe("ACCESS_TOKEN_INVALID");
      expect(await code(auth.refresh({ token: other.refreshToken }))).toBe("REFRESH_TOKEN_INVALID");
    }
    expect(await auth.authenticate({ token: caller?.accessToken ?? "" })).toMatchObject({
      sessionId: principal.sessionId,
    });
    expect(await auth.authenticate({ token: b.accessToken })).toMatchObject({ sessionId: b.sessionId });
    expect(await auth.sessions.list({ principal })).toEqual([
      expect.objectContaining({ id: principal.sessionId, current: true }),
    ]);
    expect(await auth.refresh({ token: caller?.refreshToken ?? "" })).toMatchObject({
      user: { email: "a@x.test" },
    });
    expect(events.filter((event) => event.type === "session.revoked")).toEqual([
      expect.objectContaining({
        userId: principal.userId,
        sessionId: principal.sessionId,
        reason: "revoked_others:2",
      }),
    ]);
    // Alone now: nothing more to end.
    expect(await auth.sessions.revokeOthers({ principal })).toEqual({ success: true, revoked: 0 });
  });

  it("revokeOthers - two sessions asking at once end every third session; at most one of the two survives", async () => {
    const { auth, a } = await setup();
    const [first, second, third] = a;
    const p1 = await auth.authenticate({ token: first?.accessToken ?? "" });
    const p2 = await auth.authenticate({ token: second?.accessToken ?? "" });
    const answers = await Promise.all([
      auth.sessions.revokeOthers({ principal: p1 }),
      auth.sessions.revokeOthers({ principal: p2 }),
    ]);
    expect(await code(auth.authenticate({ token: third?.accessToken ?? "" }))).toBe("ACCESS_TOKEN_INVALID");
    const alive = [];
    for (const session of [first, second]) {
      const answer = await code(auth.authenticate({ token: session?.accessToken ?? "" }));
      if (answer === "OK") alive.push(session);
      else expect(answer).toBe("ACCESS_TOKEN_INVALID");
    }
    expect(alive.length).toBeLessThanOrEqual(1);
    // Every ended session is counted once, by the request that deleted it.
    expect(answers.reduce((sum, answer) => sum + answer.revoked, 0)).toBe(3 - alive.length);
  });

  it("revokeOthers - without an issued principal is AUTHENTICATION_REQUIRED", async () => {
    const { auth, a } = await setup();
    const principal = await auth.authenticate({ token: a[0]?.accessToken ?? "" });
    // A copy of an issued principal is not one: principals come only from authenticate or sessions.create.
    expect(await code(auth.sessions.revokeOthers({ principal: { ...principal } }))).toBe(
      "AUTHENTICATION_REQUIRED",
    );
    expect(await code(auth.sessions.revokeOthers({}))).toBe("AUTHENTICATION_REQUIRED");
  });
});
