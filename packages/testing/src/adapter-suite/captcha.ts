import type { AuthOptions } from "@portcullis/core";
import { expect, onTestFinished } from "vitest";
import {
  type FakeSiteverifyServer,
  GOOD_CAPTCHA_TOKEN,
  startFakeSiteverifyServer,
} from "../fake-siteverify-server.js";
import { type App, type AppTests, type Boot, expectError, PASSWORD } from "./fixture.js";

const SECRET = "captcha-secret-of-the-suite";
const ALL_ROUTES = { register: true, resetRequest: true, emailSignIn: true, verificationResend: true };

/** An app whose `captcha` asks a fake siteverify on 127.0.0.1 (stopped after the test). */
async function withSiteverify(
  boot: Boot,
  captcha: Partial<NonNullable<AuthOptions["captcha"]>> = {},
): Promise<{ app: App; provider: FakeSiteverifyServer }> {
  const provider = await startFakeSiteverifyServer(SECRET);
  onTestFinished(() => provider.stop());
  const app = await boot({
    emailSignIn: { enabled: true },
    captcha: {
      provider: "turnstile",
      secret: SECRET,
      verifyUrl: provider.verifyUrl,
      timeoutMs: 300,
      on: { ...ALL_ROUTES, loginAfterFailures: 3 },
      ...captcha,
    },
  });
  return { app, provider };
}

/** A verified account, signed in: its access token (login asks no CAPTCHA before failures). */
async function signedIn(app: App, email: string): Promise<string> {
  await app.auth.host.createUser({}, { email, password: PASSWORD, emailVerified: false });
  const login = await app.api("POST", "/login", { body: { email, password: PASSWORD } });
  expect(login.status).toBe(200);
  await app.auth.idle();
  app.emails.length = 0; // the login alert of this sign-in
  return String(login.body.accessToken);
}

/** The four routes `captcha.on` names, each with `extra` in its body and `headers`. */
function protectedCalls(app: App, accessToken: string, extra: object, headers: Record<string, string> = {}) {
  return [
    app.api("POST", "/register", {
      body: { email: "new@example.test", password: PASSWORD, ...extra },
      headers,
    }),
    app.api("POST", "/password/reset-request", { body: { email: "known@example.test", ...extra }, headers }),
    app.api("POST", "/email-sign-in/request", { body: { email: "nobody@example.test", ...extra }, headers }),
    app.api("POST", "/email/verification/send", { bearer: accessToken, body: { ...extra }, headers }),
  ];
}

/** The CAPTCHA (`captcha`): the routes bots push want a token the provider accepts. */
export const captchaTests: AppTests = {
  "captcha - without a token, register, reset request, email sign-in request and resend answer 400 CAPTCHA_REQUIRED, and nothing is created or mailed":
    async (boot) => {
      const { app, provider } = await withSiteverify(boot);
      const accessToken = await signedIn(app, "known@example.test");
      for (const reply of await Promise.all(protectedCalls(app, accessToken, {})))
        expectError(reply, 400, "CAPTCHA_REQUIRED");
      await app.auth.idle();
      expect(app.emails).toEqual([]);
      expect(await app.stores.users.findByEmail("new@example.test")).toBeNull();
      expect(provider.requests).toEqual([]);
      // The same answer for an address nobody has (enumeration safety).
      const unknown = await app.api("POST", "/password/reset-request", {
        body: { email: "ghost@example.test" },
      });
      expectError(unknown, 400, "CAPTCHA_REQUIRED");
    },

  "captcha - a token the provider refuses is 400 CAPTCHA_INVALID; a good one in the body or the X-Captcha-Token header goes through":
    async (boot) => {
      const { app, provider } = await withSiteverify(boot);
      const accessToken = await signedIn(app, "known@example.test");
      for (const reply of await Promise.all(protectedCalls(app, accessToken, { captchaToken: "forged" })))
        expectError(reply, 400, "CAPTCHA_INVALID");
      await app.auth.idle();
      expect(app.emails).toEqual([]);
      const inBody = await Promise.all(
        protectedCalls(app, accessToken, { captchaToken: GOOD_CAPTCHA_TOKEN }),
      );
      expect(inBody.map((reply) => reply.status)).toEqual([200, 200, 200, 200]);
      const header = { "x-captcha-token": GOOD_CAPTCHA_TOKEN };
      const byHeader = await app.api("POST", "/password/reset-request", {
        body: { email: "ghost@example.test" },
        headers: header,
      });
      expect(byHeader.status).toBe(200);
      expect(provider.requests.at(-1)).toEqual({
        secret: SECRET,
        response: GOOD_CAPTCHA_TOKEN,
        remoteip: "127.0.0.1",
      });
    },

  "captcha - a provider that is down or answers garbage refuses (CAPTCHA_INVALID, logged); failOpen lets the request through":
    async (boot) => {
      const closed = await withSiteverify(boot);
      const open = await withSiteverify(boot, { failOpen: true });
      const reset = (app: App, email: string) =>
        app.api("POST", "/password/reset-request", { body: { email, captchaToken: GOOD_CAPTCHA_TOKEN } });
      closed.provider.garbage = "<html>oops</html>";
      open.provider.garbage = "{}";
      expectError(await reset(closed.app, "a@example.test"), 400, "CAPTCHA_INVALID");
      expect((await reset(open.app, "a@example.test")).status).toBe(200);
      await Promise.all([closed.provider.stop(), open.provider.stop()]);
      expectError(await reset(closed.app, "b@example.test"), 400, "CAPTCHA_INVALID");
      expect((await reset(open.app, "b@example.test")).status).toBe(200);
      expect(closed.app.logLines.filter((line) => line.includes('"captcha.unavailable"'))).toHaveLength(2);
      expect(open.app.logLines.filter((line) => line.includes('"failOpen":true'))).toHaveLength(2);
    },

  "captcha - a slow provider is refused after timeoutMs while other requests are answered meanwhile": async (
    boot,
  ) => {
    const { app, provider } = await withSiteverify(boot);
    provider.delayMs = 2000;
    const started = performance.now();
    let refusedAfter = Number.POSITIVE_INFINITY;
    const slow = app
      .api("POST", "/register", {
        body: { email: "slow@example.test", password: PASSWORD, captchaToken: GOOD_CAPTCHA_TOKEN },
      })
      .then((reply) => {
        refusedAfter = performance.now() - started;
        return reply;
      });
    // Once the check is waiting on the provider, the server answers another request at once.
    while (provider.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const other = await app.api("GET", "/password/reset/cooldown?email=x%40example.test");
    const answeredMeanwhile = performance.now() - started;
    expect(other.status).toBe(200);
    expectError(await slow, 400, "CAPTCHA_INVALID");
    expect(answeredMeanwhile).toBeLessThan(refusedAfter);
    expect(refusedAfter).toBeGreaterThanOrEqual(290);
    expect(refusedAfter).toBeLessThan(1500);
    expect(await app.stores.users.findByEmail("slow@example.test")).toBeNull();
  },

  "captcha - login asks for a token only after 3 failures of the address (known or not); a missing token costs no attempt":
    async (boot) => {
      const { app } = await withSiteverify(boot);
      await app.auth.host.createUser(
        {},
        { email: "known@example.test", password: PASSWORD, emailVerified: true },
      );
      for (const email of ["known@example.test", "ghost@example.test"]) {
        for (let failure = 0; failure < 3; failure++) {
          const wrong = await app.api("POST", "/login", { body: { email, password: "wrong password!" } });
          expectError(wrong, 401, "INVALID_CREDENTIALS");
        }
        for (let asked = 0; asked < 5; asked++)
          expectError(
            await app.api("POST", "/login", { body: { email, password: PASSWORD } }),
            400,
            "CAPTCHA_REQUIRED",
          );
        const forged = await app.api("POST", "/login", {
          body: { email, password: PASSWORD, captchaToken: "forged" },
        });
        expectError(forged, 400, "CAPTCHA_INVALID");
      }
      const right = await app.api("POST", "/login", {
        body: { email: "known@example.test", password: PASSWORD },
        headers: { "x-captcha-token": GOOD_CAPTCHA_TOKEN },
      });
      expect(right.status).toBe(200);
      // The right password cleared the failures: the next login asks nothing.
      const again = await app.api("POST", "/login", {
        body: { email: "known@example.test", password: PASSWORD },
      });
      expect(again.status).toBe(200);
    },
};
