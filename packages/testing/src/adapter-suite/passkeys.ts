import { expect } from "vitest";
import type { HttpReply } from "../http-client.js";
import {
  type CeremonyTweaks,
  createSoftwareAuthenticator,
  type RequestOptions,
  type SoftwareAuthenticator,
} from "../software-authenticator.js";
import { APP_ORIGIN, type App, type AppTests, cookieHeader, expectError, PASSWORD } from "./fixture.js";

const WEBAUTHN = { webauthn: {} };

/** An app with passkeys on, a signed-up user with a step-up token, and an authenticator holding one passkey of theirs. */
async function withPasskey(app: App, email = "ada@example.test") {
  const user = await app.signUp(email);
  const stepUp = await app.api("POST", "/step-up", {
    bearer: user.accessToken,
    body: { password: PASSWORD },
  });
  expect(stepUp.status).toBe(200);
  const settings = {
    bearer: user.accessToken,
    headers: { "x-step-up-token": String(stepUp.body.stepUpToken) },
  };
  const authenticator = createSoftwareAuthenticator({ origin: APP_ORIGIN });
  const options = await app.api("POST", "/passkeys/register/options", {
    ...settings,
    label: "register options",
  });
  expect(options.status).toBe(200);
  const response = authenticator.register(options.body as never);
  const added = await app.api("POST", "/passkeys/register", {
    ...settings,
    body: { response, name: "Laptop" },
    label: "register",
  });
  expect(added.status, added.text).toBe(200);
  expect(added.body).toMatchObject({ id: response.id, name: "Laptop" });
  return { user, settings, authenticator, id: response.id };
}

/** Starts a sign-in in a browser: the options, and the challenge cookie to send back. */
async function startSignIn(app: App, body: object = {}) {
  const reply = await app.api("POST", "/passkeys/login/options", { body, label: "login options" });
  expect(reply.status).toBe(200);
  return { options: reply.body as unknown as RequestOptions, cookie: cookieHeader(reply.cookies) };
}

/** Answers a sign-in started with `startSignIn` from the browser holding `cookie`. */
const finishSignIn = (
  app: App,
  authenticator: SoftwareAuthenticator,
  start: { options: RequestOptions; cookie: string },
  tweaks: CeremonyTweaks = {},
  label = "login",
): Promise<HttpReply> =>
  app.api("POST", "/passkeys/login", {
    cookie: start.cookie,
    headers: { origin: APP_ORIGIN },
    body: { response: authenticator.authenticate(start.options, tweaks) },
    label,
  });

/** A sign-in answered with `tweaks`: refused with `code`. */
async function refusedSignIn(
  boot: Parameters<AppTests[string]>[0],
  tweaks: CeremonyTweaks,
  status: number,
  code: string,
) {
  const app = await boot(WEBAUTHN);
  const { authenticator } = await withPasskey(app);
  const reply = await finishSignIn(app, authenticator, await startSignIn(app), tweaks, "login refused");
  expectError(reply, status, code);
}

export const passkeysTests: AppTests = {
  "POST /passkeys/login - a discoverable sign-in with a registered passkey: LoginResponse, cookies, no second factor":
    async (boot) => {
      const app = await boot(WEBAUTHN);
      const { authenticator, user, id } = await withPasskey(app);
      const start = await startSignIn(app);
      expect(start.cookie).toMatch(/^passkey_challenge=/);
      const reply = await finishSignIn(app, authenticator, start);
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body).toMatchObject({ twoFactorRequired: false, user: { id: user.user.id } });
      expect(typeof reply.body.accessToken).toBe("string");
      expect(reply.cookies.some((c) => /^access_token=.+Max-Age=/.test(c))).toBe(true);
      expect(reply.cookies.some((c) => /^passkey_challenge=;/.test(c))).toBe(true);
      const list = await app.api("GET", "/passkeys", {
        bearer: String(reply.body.accessToken),
        label: "list",
      });
      expect(list.status).toBe(200);
      expect(list.body.passkeys).toEqual([
        expect.objectContaining({ id, name: "Laptop", lastUsedAt: expect.any(String) }),
      ]);
    },
  "POST /passkeys/login - rememberMe false: the auth cookies have no Max-Age": async (boot) => {
    const app = await boot(WEBAUTHN);
    const { authenticator } = await withPasskey(app);
    const start = await startSignIn(app, { email: "ada@example.test" });
    const reply = await app.api("POST", "/passkeys/login", {
      cookie: start.cookie,
      headers: { origin: APP_ORIGIN },
      body: { response: authenticator.authenticate(start.options), rememberMe: false },
    });
    expect(reply.status, reply.text).toBe(200);
    const access = reply.cookies.find((c) => c.startsWith("access_token="));
    expect(access).toBeDefined();
    expect(access).not.toMatch(/Max-Age/);
  },
  "POST /passkeys/login - a wrong origin: 400 PASSKEY_VERIFICATION_FAILED": (boot) =>
    refusedSignIn(boot, { origin: "https://evil.example" }, 400, "PASSKEY_VERIFICATION_FAILED"),
  "POST /passkeys/login - a wrong RP ID: 400 PASSKEY_VERIFICATION_FAILED": (boot) =>
    refusedSignIn(boot, { rpId: "evil.example" }, 400, "PASSKEY_VERIFICATION_FAILED"),
  "POST /passkeys/login - user verification missing: 400 PASSKEY_VERIFICATION_FAILED": (boot) =>
    refusedSignIn(boot, { userVerified: false }, 400, "PASSKEY_VERIFICATION_FAILED"),
  "POST /passkeys/login - a counter going backwards: 400 PASSKEY_VERIFICATION_FAILED": async (boot) => {
    const app = await boot(WEBAUTHN);
    const { authenticator } = await withPasskey(app);
    expect((await finishSignIn(app, authenticator, await startSignIn(app), { counter: 9 })).status).toBe(200);
    const reply = await finishSignIn(
      app,
      authenticator,
      await startSignIn(app),
      { counter: 4 },
      "login backwards",
    );
    expectError(reply, 400, "PASSKEY_VERIFICATION_FAILED");
  },
  "POST /passkeys/login - an unknown credential: 401 PASSKEY_UNKNOWN": async (boot) => {
    const app = await boot(WEBAUTHN);
    await withPasskey(app);
    const stranger = createSoftwareAuthenticator({ origin: APP_ORIGIN });
    stranger.register({
      challenge: "AAAA",
      rp: { id: "app.example.test", name: "x" },
      user: { id: "AAAA", name: "x" },
    });
    expectError(
      await finishSignIn(app, stranger, await startSignIn(app), {}, "login unknown"),
      401,
      "PASSKEY_UNKNOWN",
    );
  },
  "POST /passkeys/login - a replayed challenge, or one from another browser: 400 PASSKEY_CHALLENGE_INVALID":
    async (boot) => {
      const app = await boot(WEBAUTHN);
      const { authenticator } = await withPasskey(app);
      const start = await startSignIn(app);
      const response = authenticator.authenticate(start.options);
      const send = (cookie: string, label: string) =>
        app.api("POST", "/passkeys/login", {
          cookie,
          headers: { origin: APP_ORIGIN },
          body: { response },
          label,
        });
      const other = await startSignIn(app);
      expectError(await send(other.cookie, "login other browser"), 400, "PASSKEY_CHALLENGE_INVALID");
      const again = await startSignIn(app);
      const fresh = authenticator.authenticate(again.options);
      const first = await app.api("POST", "/passkeys/login", {
        cookie: again.cookie,
        headers: { origin: APP_ORIGIN },
        body: { response: fresh },
      });
      expect(first.status).toBe(200);
      const replay = await app.api("POST", "/passkeys/login", {
        cookie: again.cookie,
        headers: { origin: APP_ORIGIN },
        body: { response: fresh },
        label: "login replayed",
      });
      expectError(replay, 400, "PASSKEY_CHALLENGE_INVALID");
    },
  "POST /passkeys/login - an expired challenge (5 minutes): 400 PASSKEY_CHALLENGE_EXPIRED": async (boot) => {
    const app = await boot(WEBAUTHN);
    const { authenticator } = await withPasskey(app);
    const start = await startSignIn(app);
    // The core's clock decides the 5 minutes (a store with its own clock would make this a real wait).
    app.clock.advance(5 * 60 * 1000 + 1000);
    expectError(
      await finishSignIn(app, authenticator, start, {}, "login expired"),
      400,
      "PASSKEY_CHALLENGE_EXPIRED",
    );
  },
  "POST /passkeys/login - 20 concurrent verifications of one challenge: exactly one 200": async (boot) => {
    const app = await boot(WEBAUTHN);
    const { authenticator } = await withPasskey(app);
    const start = await startSignIn(app);
    const replies = await Promise.all(
      Array.from({ length: 20 }, () =>
        app.api("POST", "/passkeys/login", {
          cookie: start.cookie,
          headers: { origin: APP_ORIGIN },
          body: { response: authenticator.authenticate(start.options, { counter: 50 }) },
          record: false,
        }),
      ),
    );
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(1);
    for (const reply of replies.filter((r) => r.status !== 200))
      expectError(reply, 400, "PASSKEY_CHALLENGE_INVALID");
  },
  "POST /passkeys/login - failed sign-ins are counted per client IP before the check: 429 LOGIN_THROTTLED with Retry-After, the right passkey too":
    async (boot) => {
      const app = await boot({
        ...WEBAUTHN,
        trustProxy: 1,
        ipLimits: { failedLogins: { max: 3, windowSeconds: 900 } },
      });
      const { authenticator } = await withPasskey(app);
      const from = (ip: string, tweaks: CeremonyTweaks, label?: string) =>
        startSignIn(app).then((start) =>
          app.api("POST", "/passkeys/login", {
            cookie: start.cookie,
            headers: { origin: APP_ORIGIN, "x-forwarded-for": ip },
            body: { response: authenticator.authenticate(start.options, tweaks) },
            ...(label ? { label } : { record: false }),
          }),
        );
      const wrong = { origin: "https://evil.test" };
      for (let i = 0; i < 3; i += 1)
        expectError(await from("203.0.113.7", wrong), 400, "PASSKEY_VERIFICATION_FAILED");
      const throttled = await from("203.0.113.7", {}, "login throttled per IP");
      expectError(throttled, 429, "LOGIN_THROTTLED");
      expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await from("198.51.100.9", {})).status).toBe(200);
    },
  "POST /passkeys/step-up - a passkey step-up renames; the last way to sign in cannot be removed: 409 LAST_SIGN_IN_METHOD":
    async (boot) => {
      const app = await boot(WEBAUTHN);
      const { authenticator, user, id } = await withPasskey(app);
      const bearer = user.accessToken;
      const options = await app.api("POST", "/passkeys/step-up/options", {
        bearer,
        label: "step-up options",
      });
      expect(options.status).toBe(200);
      const stepUp = await app.api("POST", "/passkeys/step-up", {
        bearer,
        body: { response: authenticator.authenticate(options.body as unknown as RequestOptions) },
        label: "step-up",
      });
      expect(stepUp.status, stepUp.text).toBe(200);
      expect(stepUp.body.twoFactorRequired).toBe(false);
      const settings = { bearer, headers: { "x-step-up-token": String(stepUp.body.stepUpToken) } };
      const renamed = await app.api("PATCH", `/passkeys/${id}`, {
        ...settings,
        body: { name: "Phone" },
        label: "rename",
      });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({ id, name: "Phone" });
      expectError(
        await app.api("PATCH", `/passkeys/${id}`, { bearer, body: { name: "x" } }),
        401,
        "STEP_UP_REQUIRED",
      );
      await app.stores.users.update(user.user.id, { passwordHash: null });
      expectError(
        await app.api("DELETE", `/passkeys/${id}`, { ...settings, label: "delete last" }),
        409,
        "LAST_SIGN_IN_METHOD",
      );
      await app.stores.users.update(user.user.id, { identityProviders: ["github"] });
      expect((await app.api("DELETE", `/passkeys/${id}`, { ...settings, label: "delete" })).status).toBe(200);
      expectError(await app.api("DELETE", `/passkeys/${id}`, settings), 404, "NOT_FOUND");
    },
  "POST /passkeys/login/options - an address without passkeys gets stand-in entries shaped like real ones: the same fields, transports, varied id lengths, the same answer each time":
    async (boot) => {
      const app = await boot(WEBAUTHN);
      const { id } = await withPasskey(app, "has-passkey@example.test");
      const options = async (email: string) => {
        const reply = await app.api("POST", "/passkeys/login/options", { body: { email }, record: false });
        expect(reply.status).toBe(200);
        return reply.body as { allowCredentials: Record<string, unknown>[] } & Record<string, unknown>;
      };
      const known = await options("has-passkey@example.test");
      expect(known.allowCredentials.map((entry) => entry.id)).toEqual([id]);
      const shape = (answer: Record<string, unknown>) => Object.keys(answer).sort();
      const entryShape = (entry: Record<string, unknown>) =>
        Object.entries(entry)
          .map(([key, value]) => `${key}:${Array.isArray(value) ? "array" : typeof value}`)
          .sort();
      const standIns = [];
      for (let index = 0; index < 24; index++)
        standIns.push(await options(`no-passkey-${index}@example.test`));
      const lengths = new Set<number>();
      for (const answer of standIns) {
        expect(shape(answer)).toEqual(shape(known));
        expect(answer.allowCredentials.length).toBeGreaterThan(0);
        for (const entry of answer.allowCredentials) {
          expect(entryShape(entry)).toEqual(entryShape(known.allowCredentials[0] as Record<string, unknown>));
          expect(entry.type).toBe("public-key");
          const transports = entry.transports as string[];
          expect(transports.length).toBeGreaterThan(0);
          for (const transport of transports)
            expect(["ble", "hybrid", "internal", "nfc", "smart-card", "usb"]).toContain(transport);
          expect(transports).toEqual([...transports].sort());
          const bytes = Buffer.from(String(entry.id), "base64url");
          expect(bytes.toString("base64url")).toBe(entry.id);
          expect(bytes.length).toBeGreaterThanOrEqual(16);
          expect(bytes.length).toBeLessThanOrEqual(64);
          lengths.add(bytes.length);
        }
      }
      // Real credential ids vary in length by authenticator: so do the stand-ins.
      expect(lengths.size).toBeGreaterThan(1);
      // Deterministic per address: asking again (or in another case) gives the same entries.
      expect((await options("NO-PASSKEY-0@example.test")).allowCredentials).toEqual(
        standIns[0]?.allowCredentials,
      );
    },
  "POST /passkeys/login/options - the sign-in challenges kept in the store are capped whatever the client IP: past webauthn.maxOutstandingChallenges, 429 RATE_LIMITED":
    async (boot) => {
      const app = await boot({ webauthn: { maxOutstandingChallenges: 5 }, trustProxy: 1 });
      const start = (index: number, body: object = {}) =>
        app.api("POST", "/passkeys/login/options", {
          headers: { "x-forwarded-for": `203.0.113.${index}` },
          body,
          record: false,
        });
      const replies = [];
      for (let index = 0; index < 8; index++) replies.push(await start(index));
      expect(replies.filter((reply) => reply.status === 200)).toHaveLength(5);
      for (const reply of replies.filter((r) => r.status !== 200)) expectError(reply, 429, "RATE_LIMITED");
      expectError(await start(100, { email: "someone@example.test" }), 429, "RATE_LIMITED");
    },
  "POST /passkeys/register - needs a step-up; without webauthn every passkey route is 404 NOT_FOUND": async (
    boot,
  ) => {
    const app = await boot();
    const user = await app.signUp("ada@example.test");
    expectError(
      await app.api("POST", "/passkeys/register/options", { bearer: user.accessToken }),
      401,
      "STEP_UP_REQUIRED",
    );
    expectError(
      await app.api("POST", "/passkeys/login/options", { body: {}, label: "off" }),
      404,
      "NOT_FOUND",
    );
    expectError(await app.api("GET", "/passkeys", { bearer: user.accessToken }), 404, "NOT_FOUND");
  },
};
