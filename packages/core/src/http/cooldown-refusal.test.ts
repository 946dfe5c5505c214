import { afterEach, describe, expect, it, vi } from "vitest";
import type { Auth } from "../create-auth/create-auth.js";
import { CooldownError } from "../errors.js";
import type { SecurityEvent } from "../events.js";
import { createTestAuth, PASSWORD, signIn } from "../test-support.js";
import { createHttpHandler } from "./handler.js";
import type { HttpRequest } from "./types.js";

/**
 * A running email cooldown is thrown, one way everywhere: the use case throws its `CooldownError`
 * (`EMAIL_COOLDOWN_ACTIVE` with the seconds left), `Auth`'s method is that use case, and the HTTP
 * routes call `Auth`'s own methods, answering the error as a 429 with `remaining` and
 * `Retry-After`. So a host's wrapper of `Auth` answers the same, byte for byte.
 */
async function setup() {
  const events: SecurityEvent[] = [];
  const env = createTestAuth({
    allowHeaderAuthentication: true,
    email: { loginAlerts: false },
    ipLimits: { verificationSends: { max: 2, windowSeconds: 3600 } },
    onEvent: (event) => void events.push(event),
  });
  await env.auth.ready();
  // A copy of `auth`, as a host's wrapper of it: its handler must answer as `auth`'s does.
  const throwing = createHttpHandler({ ...env.auth } as Auth);
  return { ...env, events, handler: createHttpHandler(env.auth), throwing };
}

const resetRequest = (email: string, locale?: string): HttpRequest => ({
  method: "POST",
  url: `/api/auth/password/reset-request${locale ? `?locale=${locale}` : ""}`,
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ email }),
});

const sendRequest = (accessToken: string, remoteAddress = "127.0.0.1"): HttpRequest => ({
  method: "POST",
  url: "/api/auth/email/verification/send",
  headers: { authorization: `Bearer ${accessToken}` },
  remoteAddress,
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("cooldown refusals", () => {
  it("reset-request in cooldown - the 429 carries Retry-After and remaining, and equals a wrapper's, byte for byte", async () => {
    const { handler, throwing, clock } = await setup();
    expect((await handler.handle(resetRequest("ada@example.test")))?.status).toBe(200);
    clock.advance(12_500);
    for (const locale of [undefined, "de"]) {
      const answer = await handler.handle(resetRequest(" ADA@example.test", locale));
      const wrapped = await throwing.handle(resetRequest(" ADA@example.test", locale));
      expect(answer).toEqual(wrapped);
      expect(answer?.status).toBe(429);
      expect(answer?.headers).toMatchObject({
        "retry-after": "48",
        "auth-error-code": "EMAIL_COOLDOWN_ACTIVE",
      });
      expect(JSON.parse(String(answer?.body))).toMatchObject({
        code: "EMAIL_COOLDOWN_ACTIVE",
        remaining: 48,
      });
    }
  });

  it("requestPasswordReset - the public method rejects with a CooldownError carrying the seconds left", async () => {
    const { auth, clock } = await setup();
    await auth.requestPasswordReset({}, { email: "ada@example.test" });
    clock.advance(1_000);
    const refused = await auth
      .requestPasswordReset({}, { email: "ada@example.test" })
      .catch((error) => error);
    expect(refused).toBeInstanceOf(CooldownError);
    expect(refused).toMatchObject({ code: "EMAIL_COOLDOWN_ACTIVE", remainingSeconds: 59, status: 429 });
  });

  it("reset-request - 20 concurrent requests through the handler: one 200 and one email and event, 19 equal 429s", async () => {
    const { handler, sent, events, auth } = await setup();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => handler.handle(resetRequest("ada@example.test"))),
    );
    await auth.idle();
    expect(answers.filter((answer) => answer?.status === 200)).toHaveLength(1);
    const refusals = answers.filter((answer) => answer?.status === 429);
    expect(refusals).toHaveLength(19);
    expect(new Set(refusals.map((answer) => answer?.body)).size).toBe(1);
    expect(refusals[0]?.headers["retry-after"]).toBe("60");
    expect(sent).toHaveLength(1);
    expect(events.filter((event) => event.type === "password_reset.requested")).toHaveLength(1);
  });

  it("verification send in cooldown - the 429 equals a wrapper's, byte for byte; auth.resendVerification throws", async () => {
    const { auth, handler, throwing, clock } = await setup();
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    await auth.idle();
    const { accessToken } = await signIn(auth, { email: "ada@example.test", password: PASSWORD });
    clock.advance(30_000);
    const answer = await handler.handle(sendRequest(accessToken));
    expect(answer).toEqual(await throwing.handle(sendRequest(accessToken)));
    expect(answer?.status).toBe(429);
    expect(answer?.headers).toMatchObject({
      "retry-after": "30",
      "auth-error-code": "EMAIL_COOLDOWN_ACTIVE",
    });
    const principal = await auth.authenticate({ token: accessToken });
    const refused = await auth.resendVerification({ principal }).catch((error) => error);
    expect(refused).toBeInstanceOf(CooldownError);
    expect(refused).toMatchObject({ code: "EMAIL_COOLDOWN_ACTIVE", remainingSeconds: 30 });
  });

  it("verification send - the per-IP limit's ip.limited event still names the user (limits.ip's userId)", async () => {
    const { auth, handler, events } = await setup();
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    await auth.idle();
    const { accessToken } = await signIn(auth, { email: "ada@example.test", password: PASSWORD });
    const principal = await auth.authenticate({ token: accessToken });
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await handler.handle(sendRequest(accessToken, "203.0.113.7")))?.status);
    expect(statuses).toEqual([429, 429, 429]);
    const limited = events.filter((event) => event.type === "ip.limited");
    expect(limited).toHaveLength(1);
    expect(limited[0]).toMatchObject({
      userId: principal.userId,
      ip: "203.0.113.7",
      reason: "ip:verificationSends",
    });
    const codes = await Promise.all(
      [0, 1].map(() =>
        handler.handle(sendRequest(accessToken, "203.0.113.7")).then((a) => a?.headers["auth-error-code"]),
      ),
    );
    expect(codes).toEqual(["RATE_LIMITED", "RATE_LIMITED"]);
  });

  it("POST /password/reset-request - the route calls Auth's own requestPasswordReset, refusal included", async () => {
    const { auth, handler, clock } = await setup();
    const own = vi.spyOn(auth, "requestPasswordReset");
    expect((await handler.handle(resetRequest("ada@example.test")))?.status).toBe(200);
    clock.advance(1_000);
    expect((await handler.handle(resetRequest("ada@example.test")))?.status).toBe(429);
    expect(own).toHaveBeenCalledTimes(2);
    expect(own.mock.calls[0]?.[1]).toEqual({ email: "ada@example.test" });
  });

  it("POST /email/verification/send - the route calls Auth's own resendVerification, refusal included", async () => {
    const { auth, handler } = await setup();
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    await auth.idle();
    const { accessToken } = await signIn(auth, { email: "ada@example.test", password: PASSWORD });
    const own = vi.spyOn(auth, "resendVerification");
    const answer = await handler.handle(sendRequest(accessToken));
    expect(answer?.headers["auth-error-code"]).toBe("EMAIL_COOLDOWN_ACTIVE");
    expect(own).toHaveBeenCalledTimes(1);
    expect(own.mock.calls[0]?.[0]).toMatchObject({ principal: { userId: expect.any(String) } });
  });
});
