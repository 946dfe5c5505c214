import type { AuthOptions } from "@portcullis/core";
import { describe, expect, it } from "vitest";
import { createCountingHasher } from "../counting-hasher.js";
import type { HttpReply } from "../http-client.js";
import {
  type AdapterSuiteOptions,
  type App,
  type AppTests,
  type Boot,
  createBoot,
  expectCode,
  expectError,
  expectTokensRefused,
  PASSWORD,
  runAppTests,
} from "./fixture.js";

const NEW_PASSWORD = "a different long passphrase";
const FREE_ATTEMPTS = 5;

/** A step-up of `bearer`'s session: the `X-Step-Up-Token` header. */
async function stepUpHeaders(app: App, bearer: string): Promise<Record<string, string>> {
  const stepUp = await app.call("step-up", "POST", "/api/auth/step-up", {
    bearer,
    body: { password: PASSWORD },
  });
  expect(stepUp.status).toBe(200);
  return { "x-step-up-token": String(stepUp.body.stepUpToken) };
}

const login = (app: App, label: string, email: string, password: string) =>
  app.call(label, "POST", "/api/auth/login", { body: { email, password } });

/** `bearer`'s account asks to move to `newEmail` (with a step-up); the reply. */
async function requestChange(
  app: App,
  bearer: string,
  newEmail: string,
  label = "email change",
): Promise<HttpReply> {
  const headers = await stepUpHeaders(app, bearer);
  return app.call(label, "POST", "/api/auth/email/change", { bearer, headers, body: { newEmail } });
}

/** The account's own self-service over HTTP (docs/concepts.md, "Account self-service"); deterministic, so it has a transcript. */
export const selfServiceTests: AppTests = {
  "POST /password/change - wrong current password 401, policy 400; success ends the other sessions, keeps the caller's, mails password-changed":
    async (boot) => {
      const app = await boot({ email: { loginAlerts: false } });
      const email = "change-password@example.test";
      const a = await app.signUp(email);
      const b = await app.signUp(email);
      const change = (label: string, body: unknown) =>
        app.call(label, "POST", "/api/auth/password/change", { bearer: a.accessToken, body });
      expectError(
        await app.call("no token", "POST", "/api/auth/password/change", {
          body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
        }),
        401,
        "AUTHENTICATION_REQUIRED",
      );
      expectError(
        await change("wrong current", { currentPassword: "not the password", newPassword: NEW_PASSWORD }),
        401,
        "INVALID_CREDENTIALS",
      );
      expectError(
        await change("short new", { currentPassword: PASSWORD, newPassword: "short" }),
        400,
        "PASSWORD_POLICY_VIOLATION",
      );
      expectError(await change("missing field", { currentPassword: PASSWORD }), 400, "VALIDATION_FAILED");
      const changed = await change("change", { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
      expect(changed.status).toBe(200);
      expect(changed.body).toEqual({ success: true });
      expect(changed.cookies).toEqual([]);
      expect((await app.call("caller stays", "GET", "/api/auth/me", { bearer: a.accessToken })).status).toBe(
        200,
      );
      await expectTokensRefused(app, ["other ended", "other refresh"], b.accessToken, b.refreshToken);
      expectError(await login(app, "old password", email, PASSWORD), 401, "INVALID_CREDENTIALS");
      expect((await login(app, "new password", email, NEW_PASSWORD)).status).toBe(200);
      await app.auth.idle();
      const mail = app.emails.filter((message) => message.kind === "password-changed");
      expect(mail.map((message) => message.to)).toEqual([email]);
      expect(mail[0]?.text).toContain("every other session");
    },

  "POST /password/change - an account without a password is 400 PASSWORD_NOT_SET": async (boot) => {
    const app = await boot();
    const user = await app.auth.host.createUser(
      {},
      { email: "no-password@example.test", emailVerified: true },
    );
    const started = await app.auth.sessions.create({}, { userId: user.id });
    expectError(
      await app.call("no password", "POST", "/api/auth/password/change", {
        bearer: started.accessToken,
        body: { currentPassword: "anything at all", newPassword: NEW_PASSWORD },
      }),
      400,
      "PASSWORD_NOT_SET",
    );
  },

  "POST /email/change - needs a step-up; a free and a taken address get the same answer, a link or the registration-attempt email; the cooldown runs per new address":
    async (boot) => {
      const app = await boot({ email: { loginAlerts: false } });
      const a = await app.signUp("mover@example.test");
      await app.signUp("taken@example.test");
      expectError(
        await app.call("no step-up", "POST", "/api/auth/email/change", {
          bearer: a.accessToken,
          body: { newEmail: "free@example.test" },
        }),
        401,
        "STEP_UP_REQUIRED",
      );
      const same = await requestChange(app, a.accessToken, " Mover@Example.test ", "same address");
      expectError(same, 400, "VALIDATION_FAILED");
      expect(same.body.errors).toEqual([
        expect.objectContaining({ path: "newEmail", code: "email_unchanged" }),
      ]);
      const free = await requestChange(app, a.accessToken, "free@example.test", "free address");
      const taken = await requestChange(app, a.accessToken, "TAKEN@example.test", "taken address");
      expect(free.status).toBe(200);
      expect(taken.status).toBe(200);
      expect(free.body).toEqual({ cooldown: 60 });
      expect(taken.body).toEqual(free.body);
      const again = await requestChange(app, a.accessToken, "free@example.test", "free again");
      expectError(again, 429, "EMAIL_COOLDOWN_ACTIVE");
      await app.auth.idle();
      const sent = app.emails.map((message) => [message.kind, message.to]);
      expect(sent).toContainEqual(["email-change", "free@example.test"]);
      expect(sent).toContainEqual(["registration-attempt", "taken@example.test"]);
      expect(sent.filter(([kind]) => kind === "email-change")).toHaveLength(1);
      expect(
        (await app.call("me unchanged", "GET", "/api/auth/me", { bearer: a.accessToken })).body,
      ).toMatchObject({
        email: "mover@example.test",
      });
    },

  "POST /email/change/confirm - the account moves to the new address, verified; the old address signs in to nothing; the old one gets a notice; the link works once":
    async (boot) => {
      const app = await boot({ email: { loginAlerts: false } });
      const a = await app.signUp("before@example.test");
      expect((await requestChange(app, a.accessToken, "after@example.test")).status).toBe(200);
      await app.auth.idle();
      const token = app.tokenFrom("email-change");
      expectError(
        await app.call(
          "garbage token",
          "POST",
          "/api/auth/email/change/confirm?token=not-a-token-at-all-really",
        ),
        401,
        "EMAIL_CHANGE_TOKEN_INVALID",
      );
      const confirmed = await app.call("confirm", "POST", `/api/auth/email/change/confirm?token=${token}`);
      expect(confirmed.status).toBe(200);
      expect(confirmed.body).toMatchObject({
        id: a.user.id,
        email: "after@example.test",
        emailVerified: true,
      });
      expectError(
        await app.call("confirm again", "POST", `/api/auth/email/change/confirm?token=${token}`),
        401,
        "EMAIL_CHANGE_TOKEN_INVALID",
      );
      expectError(
        await login(app, "old address", "before@example.test", PASSWORD),
        401,
        "INVALID_CREDENTIALS",
      );
      const fresh = await login(app, "new address", "after@example.test", PASSWORD);
      expect(fresh.status).toBe(200);
      expect(fresh.body.user).toMatchObject({ id: a.user.id, email: "after@example.test" });
      expect((await app.call("session kept", "GET", "/api/auth/me", { bearer: a.accessToken })).status).toBe(
        200,
      );
      await app.auth.idle();
      const notice = app.emails.filter((message) => message.kind === "email-changed");
      expect(notice.map((message) => message.to)).toEqual(["before@example.test"]);
      expect(notice[0]?.text).toContain("after@example.test");
    },

  "DELETE /me - needs a step-up; the account, its sessions and its address's login are gone, the address is free again, the old address gets an email":
    async (boot) => {
      const app = await boot({ email: { loginAlerts: false } });
      const email = "leaving@example.test";
      const a = await app.signUp(email);
      const b = await app.signUp(email);
      expectError(
        await app.call("no step-up", "DELETE", "/api/auth/me", { bearer: a.accessToken }),
        401,
        "STEP_UP_REQUIRED",
      );
      const headers = await stepUpHeaders(app, a.accessToken);
      const deleted = await app.call("delete", "DELETE", "/api/auth/me", { bearer: a.accessToken, headers });
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ success: true });
      expect(deleted.cookies.some((cookie) => cookie.startsWith("access_token=;"))).toBe(true);
      for (const [label, token] of [
        ["caller gone", a.accessToken],
        ["other gone", b.accessToken],
      ] as const) {
        expectError(
          await app.call(label, "GET", "/api/auth/me", { bearer: token }),
          401,
          "ACCESS_TOKEN_INVALID",
        );
      }
      expectError(
        await app.call("refresh gone", "POST", "/api/auth/refresh", { bearer: b.refreshToken }),
        401,
        "REFRESH_TOKEN_INVALID",
      );
      expectError(await login(app, "login gone", email, PASSWORD), 401, "INVALID_CREDENTIALS");
      expect(await app.stores.users.findByEmail(email)).toBeNull();
      await app.auth.idle();
      const mail = app.emails.filter((message) => message.kind === "account-deleted");
      expect(mail.map((message) => message.to)).toEqual([email]);
      const again = await app.signUp(email);
      expect(again.user.id).not.toBe(a.user.id);
    },

  "GET /me/export - needs a step-up; the user, sessions, 2FA methods and activity, without hashes, secrets or tokens":
    async (boot) => {
      const app = await boot({ email: { loginAlerts: false } });
      const a = await app.signUp("export@example.test");
      await app.signUp("export@example.test");
      expectError(
        await app.call("no step-up", "GET", "/api/auth/me/export", { bearer: a.accessToken }),
        401,
        "STEP_UP_REQUIRED",
      );
      const headers = await stepUpHeaders(app, a.accessToken);
      const exported = await app.call("export", "GET", "/api/auth/me/export", {
        bearer: a.accessToken,
        headers,
      });
      expect(exported.status).toBe(200);
      expect(exported.body.user).toMatchObject({
        id: a.user.id,
        email: "export@example.test",
        hasPassword: true,
      });
      expect(exported.body.twoFactor).toEqual({ methods: [], preferredMethod: null, recoveryCodesLeft: 0 });
      const sessions = exported.body.sessions as { current: boolean; browser: string }[];
      expect(sessions).toHaveLength(2);
      expect(sessions.filter((session) => session.current)).toHaveLength(1);
      expect(sessions[0]).toMatchObject({ browser: "Firefox 130" });
      const types = (exported.body.activity as { type: string }[]).map((item) => item.type);
      expect(types).toContain("login.succeeded");
      const text = exported.text;
      const stored = await app.stores.users.findById(a.user.id);
      for (const secret of [
        stored?.passwordHash,
        a.accessToken,
        a.refreshToken,
        headers["x-step-up-token"],
        PASSWORD,
      ]) {
        expect(text).not.toContain(String(secret));
      }
      expect(text).not.toMatch(/hash|secret|token/i);
    },
};

/** An app whose hasher counts password checks. */
async function bootCounting(boot: Boot, extra: Partial<AuthOptions> = {}) {
  const { passwordHasher, verifies } = createCountingHasher();
  const app = await boot({ passwordHasher, email: { loginAlerts: false }, ...extra });
  return { app, verifies };
}

const count = (replies: HttpReply[], status: number) =>
  replies.filter((reply) => reply.status === status).length;

/** Self-service under concurrency: which request wins varies, so no transcript. */
const selfServiceConcurrencyTests: AppTests = {
  "POST /password/change - 20 concurrent wrong current passwords get no more checks than sequential ones; the right one after them is 429":
    async (boot) => {
      const { app, verifies } = await bootCounting(boot);
      const email = "guessing@example.test";
      const a = await app.signUp(email);
      const before = verifies();
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          app.api("POST", "/password/change", {
            bearer: a.accessToken,
            body: { currentPassword: `wrong guess ${index}`, newPassword: NEW_PASSWORD },
          }),
        ),
      );
      expect(count(replies, 401)).toBeLessThanOrEqual(FREE_ATTEMPTS);
      expect(count(replies, 401) + count(replies, 429)).toBe(20);
      expect(verifies() - before).toBe(count(replies, 401));
      for (const reply of replies.filter((r) => r.status === 429)) expectCode(reply, 429, "LOGIN_THROTTLED");
      expectCode(
        await app.api("POST", "/password/change", {
          bearer: a.accessToken,
          body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
        }),
        429,
        "LOGIN_THROTTLED",
      );
      expect(verifies() - before).toBe(count(replies, 401));
    },

  "POST /step-up - an address locked by someone else's failed logins leaves the signed-in owner's step-up and password change alone; a session's own wrong passwords are still 429":
    async (boot) => {
      const { app, verifies } = await bootCounting(boot);
      const email = "locked-owner@example.test";
      const owner = await app.signUp(email);
      const guessing = await app.signUp(email);
      for (let i = 0; i <= FREE_ATTEMPTS; i++) await login(app, `attacker ${i}`, email, `wrong guess ${i}`);
      expectCode(await login(app, "attacker, right password", email, PASSWORD), 429, "LOGIN_THROTTLED");
      // A session guessing: its own budget, by the login's rules; the right password too once spent.
      for (let i = 0; i < FREE_ATTEMPTS; i++) {
        const wrong = await app.api("POST", "/step-up", {
          bearer: guessing.accessToken,
          body: { password: `another wrong guess ${i}` },
        });
        expectCode(wrong, 401, "INVALID_CREDENTIALS");
      }
      const before = verifies();
      for (const [path, body] of [
        ["/step-up", { password: PASSWORD }],
        ["/password/change", { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }],
      ] as const) {
        const refused = await app.api("POST", path, { bearer: guessing.accessToken, body });
        expectCode(refused, 429, "LOGIN_THROTTLED");
        expect(refused.headers.get("retry-after")).toBe(String(refused.body.remaining));
      }
      expect(verifies()).toBe(before);
      // The owner's session: neither the address's lock nor the other session's counts.
      const stepUp = await app.api("POST", "/step-up", {
        bearer: owner.accessToken,
        body: { password: PASSWORD },
      });
      expect(stepUp.status).toBe(200);
      expect(typeof stepUp.body.stepUpToken).toBe("string");
      const changed = await app.api("POST", "/password/change", {
        bearer: owner.accessToken,
        body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
      });
      expect(changed.status).toBe(200);
    },

  "POST /email/change/confirm - two accounts confirming one new address at once: one moves, the other gets 409 EMAIL_ADDRESS_TAKEN and keeps its address":
    async (boot) => {
      const { app } = await bootCounting(boot);
      const target = "contested@example.test";
      const a = await app.signUp("first-claimant@example.test");
      const b = await app.signUp("second-claimant@example.test");
      expect((await requestChange(app, a.accessToken, target)).status).toBe(200);
      await app.auth.idle();
      const tokenA = app.tokenFrom("email-change");
      // The cooldown of the new address would refuse the second request: end it, as its window would.
      await app.stores.cooldowns.release(`email:email-change:${target}`);
      expect((await requestChange(app, b.accessToken, target)).status).toBe(200);
      await app.auth.idle();
      const tokenB = app.tokenFrom("email-change");
      expect(tokenB).not.toBe(tokenA);
      const replies = await Promise.all(
        [tokenA, tokenB].map((token) => app.api("POST", `/email/change/confirm?token=${token}`)),
      );
      expect(replies.map((reply) => reply.status).sort()).toEqual([200, 409]);
      const lost = replies.find((reply) => reply.status === 409);
      if (lost) expectError(lost, 409, "EMAIL_ADDRESS_TAKEN");
      const winner = replies.find((reply) => reply.status === 200)?.body.id;
      const owner = await app.stores.users.findByEmail(target);
      expect(owner?.id).toBe(winner);
      const loser = winner === a.user.id ? b : a;
      const loserEmail = loser === a ? "first-claimant@example.test" : "second-claimant@example.test";
      expect((await app.api("GET", "/me", { bearer: loser.accessToken })).body).toMatchObject({
        email: loserEmail,
      });
      expect(
        (await app.api("POST", "/login", { body: { email: loserEmail, password: PASSWORD } })).status,
      ).toBe(200);
    },
};

/** The concurrency tests of self-service (no transcript), part of `runAdapterSuite`. */
export function runSelfServiceConcurrencySuite(
  options: Pick<AdapterSuiteOptions, "name" | "start" | "createStores" | "storeNow">,
): void {
  describe(`self-service under concurrency: ${options.name}`, () => {
    const boot = createBoot(options);
    for (const [name, test] of Object.entries(selfServiceConcurrencyTests)) it(name, () => test(boot));
  });
}

/**
 * The whole self-service area (docs/concepts.md, "Account self-service"), without transcripts, and its concurrency tests: for
 * stores the whole adapter suite does not run on (Redis, SQL). No test moves the clock.
 */
export function runSelfServiceAdapterSuite(
  options: Pick<AdapterSuiteOptions, "name" | "start" | "createStores" | "storeNow">,
): void {
  describe(`self-service: ${options.name}`, () => runAppTests(options, "self-service", selfServiceTests));
  runSelfServiceConcurrencySuite(options);
}
