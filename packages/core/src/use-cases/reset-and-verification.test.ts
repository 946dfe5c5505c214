import { describe, expect, it } from "vitest";
import type { SecurityEvent } from "../events.js";
import type { EmailMessage } from "../ports/mailer.js";
import {
  APP_ORIGIN,
  code,
  createTestAuth,
  EMAIL_TWO_FACTOR,
  identityProviderUser,
  PASSWORD,
  signIn,
} from "../test-support.js";

const NEW_PASSWORD = "a brand new passphrase";

async function setup(options: { emailEnabled?: boolean; onEvent?: (event: SecurityEvent) => void } = {}) {
  const env = createTestAuth({
    email: { enabled: options.emailEnabled ?? true, loginAlerts: false },
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
  });
  const tokenOf = (message: EmailMessage | undefined) => {
    const link = /href="([^"]+\?token=[^"]+)"/.exec(message?.html ?? "")?.[1]?.replace(/&amp;/g, "&");
    if (!link) throw new Error(`no token link in ${message?.kind}`);
    const url = new URL(link);
    expect(url.origin).toBe(APP_ORIGIN);
    return url.searchParams.get("token") ?? "";
  };
  const lastOf = (kind: string) => env.sent.filter((message) => message.kind === kind).at(-1);
  await env.auth.ready();
  return { ...env, tokenOf, lastOf };
}

describe("password reset", () => {
  it("requestPasswordReset - known and unknown addresses get the same answer; reset vs No Principal Information email", async () => {
    const { auth, sent } = await setup();
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    await auth.idle();
    sent.length = 0;
    expect(await auth.requestPasswordReset({}, { email: "ada@example.test" })).toEqual({ cooldown: 60 });
    expect(await auth.requestPasswordReset({}, { email: "nobody@example.test" })).toEqual({ cooldown: 60 });
    expect(sent.map((message) => [message.kind, message.to])).toEqual([
      ["password-reset", "ada@example.test"],
      ["no-principal-information", "nobody@example.test"],
    ]);
    expect(sent[1]?.html).toContain(`${APP_ORIGIN}/signup`);
  });

  it("requestPasswordReset - remaining stays within (0, cooldown] when a store's clock is ahead (instances that disagree)", async () => {
    const { auth, stores } = await setup();
    await auth.requestPasswordReset({}, { email: "skew@x.test" });
    // Another instance, 1.5 s ahead, wrote the cooldown: the store answers more than the cooldown.
    const { acquire, remainingMs } = stores.cooldowns;
    stores.cooldowns.acquire = async (key, ttlMs) => ({
      ...(await acquire.call(stores.cooldowns, key, ttlMs)),
      remainingMs: ttlMs + 1_500,
    });
    stores.cooldowns.remainingMs = async (key) => (await remainingMs.call(stores.cooldowns, key)) + 1_500;
    const blocked = await auth.requestPasswordReset({}, { email: "skew@x.test" }).catch((error) => error);
    expect(blocked).toMatchObject({ code: "EMAIL_COOLDOWN_ACTIVE", remainingSeconds: 60 });
    expect(await auth.getPasswordResetCooldown({}, "skew@x.test")).toEqual({ remaining: 60 });
  });

  it("requestPasswordReset - address variants share one cooldown: 429 with remaining, counting down", async () => {
    const { auth, clock, sent } = await setup();
    await auth.requestPasswordReset({}, { email: "User@X.test" });
    const blocked = await auth.requestPasswordReset({}, { email: " user@x.test " }).catch((error) => error);
    expect(blocked).toMatchObject({ code: "EMAIL_COOLDOWN_ACTIVE", remainingSeconds: 60 });
    clock.advance(45_500);
    expect(await auth.getPasswordResetCooldown({}, "USER@x.test")).toEqual({ remaining: 15 });
    clock.advance(14_500);
    expect(await auth.getPasswordResetCooldown({}, "user@x.test")).toEqual({ remaining: 0 });
    await auth.requestPasswordReset({}, { email: "user@x.test" });
    expect(sent).toHaveLength(2);
    expect(await code(auth.getPasswordResetCooldown({}, "not an email"))).toBe("VALIDATION_FAILED");
  });

  it("requestPasswordReset - 50 concurrent requests for one address send exactly one email", async () => {
    const { auth, sent } = await setup();
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    await auth.idle();
    sent.length = 0;
    const results = await Promise.all(
      Array.from({ length: 50 }, () => code(auth.requestPasswordReset({}, { email: "ada@example.test" }))),
    );
    expect(results.filter((result) => result === "OK")).toHaveLength(1);
    expect(results.filter((result) => result === "EMAIL_COOLDOWN_ACTIVE")).toHaveLength(49);
    expect(sent).toHaveLength(1);
  });

  it("requestPasswordReset - a throwing mailer is EMAIL_SEND_FAILURE, the cooldown is released and the link inert; a retry sends once", async () => {
    const { auth, mailer, sent, tokenOf } = await setup();
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    await auth.idle();
    let failedHtml = "";
    mailer.fail = new Error("smtp down");
    const original = mailer.send;
    mailer.send = async (message) => {
      failedHtml = message.html;
      throw new Error("smtp down");
    };
    expect(await code(auth.requestPasswordReset({}, { email: "ada@example.test" }))).toBe(
      "EMAIL_SEND_FAILURE",
    );
    expect(await auth.getPasswordResetCooldown({}, "ada@example.test")).toEqual({ remaining: 0 });
    const inert = tokenOf({ html: failedHtml } as EmailMessage);
    expect(await code(auth.resetPassword({ token: inert }, { newPassword: NEW_PASSWORD }))).toBe(
      "PASSWORD_RESET_TOKEN_INVALID",
    );
    mailer.fail = undefined;
    mailer.send = original;
    sent.length = 0;
    expect(await auth.requestPasswordReset({}, { email: "ada@example.test" })).toEqual({ cooldown: 60 });
    expect(sent).toHaveLength(1);
  });

  it("resetPassword - the link works once, revokes every session, keeps 2FA, signs nobody in, sends password-changed", async () => {
    const { auth, stores, sent, tokenOf, lastOf } = await setup();
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    const user = await stores.users.findByEmail("ada@example.test");
    const sessions = [
      await signIn(auth, { email: "ada@example.test", password: PASSWORD }),
      await signIn(auth, { email: "ada@example.test", password: PASSWORD }),
    ];
    await stores.users.update(user?.id ?? "", {
      emailVerified: true,
      twoFactor: EMAIL_TWO_FACTOR,
    });
    await auth.requestPasswordReset({}, { email: "ada@example.test" });
    const token = tokenOf(lastOf("password-reset"));
    expect(await auth.resetPassword({ token }, { newPassword: NEW_PASSWORD })).toEqual({ success: true });
    expect(await code(auth.resetPassword({ token }, { newPassword: NEW_PASSWORD }))).toBe(
      "PASSWORD_RESET_TOKEN_INVALID",
    );
    for (const session of sessions) {
      expect(await code(auth.authenticate({ token: session.accessToken }))).toBe("ACCESS_TOKEN_INVALID");
      expect(await code(auth.refresh({ token: session.refreshToken }))).toBe("REFRESH_TOKEN_INVALID");
    }
    expect(await stores.sessions.listSessions(user?.id ?? "")).toEqual([]);
    expect((await stores.users.findById(user?.id ?? ""))?.twoFactor.methods).toEqual(["email"]);
    expect(await code(auth.login({}, { email: "ada@example.test", password: PASSWORD }))).toBe(
      "INVALID_CREDENTIALS",
    );
    const again = await auth.login({}, { email: "ada@example.test", password: NEW_PASSWORD });
    expect(again).toMatchObject({ twoFactorRequired: true, twoFactorMethods: ["email"] });
    expect(again).not.toHaveProperty("accessToken");
    await auth.idle();
    expect(sent.some((message) => message.kind === "password-changed")).toBe(true);
  });

  it("resetPassword - the policy is checked before the token is consumed", async () => {
    const { auth, tokenOf, lastOf } = await setup();
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    await auth.requestPasswordReset({}, { email: "ada@example.test" });
    const token = tokenOf(lastOf("password-reset"));
    expect(await code(auth.resetPassword({ token }, { newPassword: "short" }))).toBe(
      "PASSWORD_POLICY_VIOLATION",
    );
    // @ts-expect-error: a number is no password (JavaScript callers get VALIDATION_FAILED)
    expect(await code(auth.resetPassword({ token }, { newPassword: 42 }))).toBe("VALIDATION_FAILED");
    expect(await code(auth.resetPassword({ token }, { newPassword: NEW_PASSWORD }))).toBe("OK");
  });

  it("resetPassword - TTL-1 s works, TTL+1 s is PASSWORD_RESET_TOKEN_EXPIRED; a newer email invalidates older links", async () => {
    const { auth, clock, tokenOf, lastOf } = await setup();
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    await auth.requestPasswordReset({}, { email: "ada@example.test" });
    const first = tokenOf(lastOf("password-reset"));
    clock.advance(30 * 60_000 - 1_000);
    expect(await code(auth.resetPassword({ token: first }, { newPassword: NEW_PASSWORD }))).toBe("OK");

    await auth.requestPasswordReset({}, { email: "ada@example.test" });
    const expiring = tokenOf(lastOf("password-reset"));
    clock.advance(30 * 60_000 + 1_000);
    expect(await code(auth.resetPassword({ token: expiring }, { newPassword: NEW_PASSWORD }))).toBe(
      "PASSWORD_RESET_TOKEN_EXPIRED",
    );

    await auth.requestPasswordReset({}, { email: "ada@example.test" });
    const older = tokenOf(lastOf("password-reset"));
    clock.advance(61_000);
    await auth.requestPasswordReset({}, { email: "ada@example.test" });
    const newer = tokenOf(lastOf("password-reset"));
    expect(await code(auth.resetPassword({ token: older }, { newPassword: NEW_PASSWORD }))).toBe(
      "PASSWORD_RESET_TOKEN_INVALID",
    );
    expect(await code(auth.resetPassword({ token: newer }, { newPassword: NEW_PASSWORD }))).toBe("OK");
  });

  it("resetPassword - an account without a password sets its first one", async () => {
    const { auth, stores, tokenOf, lastOf } = await setup();
    await stores.users.create(identityProviderUser("social-0000000000000000", "grace@example.test"));
    await auth.requestPasswordReset({}, { email: "grace@example.test" });
    await auth.resetPassword({ token: tokenOf(lastOf("password-reset")) }, { newPassword: NEW_PASSWORD });
    expect(await code(signIn(auth, { email: "grace@example.test", password: NEW_PASSWORD }))).toBe("OK");
  });

  it("tokens - bound to purpose: reset, verification and access tokens never work for another endpoint", async () => {
    const { auth, tokenOf, lastOf } = await setup();
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    await auth.idle();
    await auth.requestPasswordReset({}, { email: "ada@example.test" });
    const reset = tokenOf(lastOf("password-reset"));
    const verification = tokenOf(lastOf("email-verification"));
    const { accessToken, refreshToken } = await signIn(auth, {
      email: "ada@example.test",
      password: PASSWORD,
    });
    for (const token of [verification, accessToken, refreshToken, "garbage"]) {
      expect(await code(auth.resetPassword({ token }, { newPassword: NEW_PASSWORD }))).toBe(
        "PASSWORD_RESET_TOKEN_INVALID",
      );
    }
    for (const token of [reset, accessToken, refreshToken, undefined]) {
      expect(await code(auth.verifyEmail({ token }))).toBe("EMAIL_VERIFICATION_TOKEN_INVALID");
    }
    for (const token of [reset, verification]) {
      expect(await code(auth.authenticate({ token }))).toBe("ACCESS_TOKEN_INVALID");
      expect(await code(auth.refresh({ token }))).toBe("REFRESH_TOKEN_INVALID");
    }
    expect(await code(auth.verifyEmail({ token: verification }))).toBe("OK");
    expect(await code(auth.resetPassword({ token: reset }, { newPassword: NEW_PASSWORD }))).toBe("OK");
  });

  it("email disabled - reset requests and verification sends are EMAIL_DISABLED; register sends nothing", async () => {
    const { auth, sent } = await setup({ emailEnabled: false });
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    const { accessToken } = await signIn(auth, { email: "ada@example.test", password: PASSWORD });
    expect(await code(auth.requestPasswordReset({}, { email: "ada@example.test" }))).toBe("EMAIL_DISABLED");
    expect(
      await code(auth.resendVerification({ principal: await auth.authenticate({ token: accessToken }) })),
    ).toBe("EMAIL_DISABLED");
    await auth.idle();
    expect(sent).toEqual([]);
  });
});

describe("email verification", () => {
  it("register - sends the first verification email; the link verifies once, then 304; events for both", async () => {
    const events: SecurityEvent[] = [];
    const { auth, tokenOf, lastOf } = await setup({ onEvent: (event) => void events.push(event) });
    const request = { ip: "203.0.113.7" };
    await auth.register({ request }, { email: "ada@example.test", password: PASSWORD });
    await auth.idle();
    const token = tokenOf(lastOf("email-verification"));
    const verified = await auth.verifyEmail({ token, request });
    expect(verified).toMatchObject({ email: "ada@example.test", emailVerified: true });
    expect(events.map((event) => [event.type, event.reason, event.userId, event.ip])).toEqual([
      ["user.created", "register", verified.id, "203.0.113.7"],
      ["email.verified", "link", verified.id, "203.0.113.7"],
    ]);
    expect(await code(auth.verifyEmail({ token }))).toBe("EMAIL_ALREADY_VERIFIED");
    expect(await code(auth.verifyEmail({ token }))).toBe("EMAIL_ALREADY_VERIFIED");
    expect(await code(auth.verifyEmail({ token: "A".repeat(43) }))).toBe("EMAIL_VERIFICATION_TOKEN_INVALID");
  });

  it("resendVerification - in the contract's order: 404, 304, 429, then 200 with the cooldown", async () => {
    const { auth, stores, sent, tokenOf, lastOf } = await setup();
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    await auth.idle();
    const principal = await auth.authenticate({
      token: (await signIn(auth, { email: "ada@example.test", password: PASSWORD })).accessToken,
    });
    expect(await code(auth.resendVerification({ principal }))).toBe("EMAIL_COOLDOWN_ACTIVE");
    expect(await auth.getVerificationCooldown({ principal })).toEqual({ remaining: 60 });
    await stores.cooldowns.release("email:email-verification:ada@example.test");
    sent.length = 0;
    expect(await auth.resendVerification({ principal, request: { locale: "de" } })).toEqual({ cooldown: 60 });
    expect(sent).toMatchObject([{ kind: "email-verification", locale: "de", to: "ada@example.test" }]);
    await auth.verifyEmail({ token: tokenOf(lastOf("email-verification")) });
    expect(await code(auth.resendVerification({ principal }))).toBe("EMAIL_ALREADY_VERIFIED");
    await stores.users.delete(principal.userId);
    expect(await code(auth.resendVerification({ principal }))).toBe("USER_NOT_FOUND");
  });

  it("verifyEmail - expired after 24 h; bound to the exact address it was sent to", async () => {
    const { auth, stores, clock, tokenOf, lastOf } = await setup();
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    await auth.idle();
    const token = tokenOf(lastOf("email-verification"));
    clock.advance(24 * 3600_000 + 1_000);
    expect(await code(auth.verifyEmail({ token }))).toBe("EMAIL_VERIFICATION_TOKEN_EXPIRED");

    const principal = await auth.authenticate({
      token: (await signIn(auth, { email: "ada@example.test", password: PASSWORD })).accessToken,
    });
    await auth.resendVerification({ principal });
    const fresh = tokenOf(lastOf("email-verification"));
    const findById = stores.users.findById;
    stores.users.findById = async (id) => {
      const user = await findById(id);
      return user && { ...user, email: "changed@example.test" };
    };
    expect(await code(auth.verifyEmail({ token: fresh }))).toBe("EMAIL_VERIFICATION_TOKEN_INVALID");
  });
});

describe("failing ports", () => {
  const boom = () => Promise.reject(new Error("store down"));

  it("UserStore down - DATABASE_FAILURE, no cooldown left, no email", async () => {
    const { auth, stores, sent } = await setup();
    stores.users.findByEmail = boom;
    expect(await code(auth.requestPasswordReset({}, { email: "ada@example.test" }))).toBe("DATABASE_FAILURE");
    expect(await auth.getPasswordResetCooldown({}, "ada@example.test")).toEqual({ remaining: 0 });
    expect(sent).toEqual([]);
  });

  it("CooldownStore down - EMAIL_COOLDOWN_CACHE_FAILURE and no email (fail closed)", async () => {
    const { auth, stores, sent } = await setup();
    stores.cooldowns.acquire = boom;
    stores.cooldowns.remainingMs = boom;
    expect(await code(auth.requestPasswordReset({}, { email: "ada@example.test" }))).toBe(
      "EMAIL_COOLDOWN_CACHE_FAILURE",
    );
    expect(await code(auth.getPasswordResetCooldown({}, "ada@example.test"))).toBe(
      "EMAIL_COOLDOWN_CACHE_FAILURE",
    );
    expect(sent).toEqual([]);
  });

  it("SingleUseTokenStore down - reset: DATABASE_FAILURE; verification: EMAIL_VERIFICATION_TOKEN_CREATION_FAILURE; cooldowns released", async () => {
    const { auth, stores, sent } = await setup();
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    await auth.idle();
    const principal = await auth.authenticate({
      token: (await signIn(auth, { email: "ada@example.test", password: PASSWORD })).accessToken,
    });
    await stores.cooldowns.release("email:email-verification:ada@example.test");
    sent.length = 0;
    stores.singleUseTokens.saveToken = boom;
    expect(await code(auth.requestPasswordReset({}, { email: "ada@example.test" }))).toBe("DATABASE_FAILURE");
    expect(await code(auth.resendVerification({ principal }))).toBe(
      "EMAIL_VERIFICATION_TOKEN_CREATION_FAILURE",
    );
    expect(await auth.getPasswordResetCooldown({}, "ada@example.test")).toEqual({ remaining: 0 });
    expect(await auth.getVerificationCooldown({ principal })).toEqual({ remaining: 0 });
    expect(sent).toEqual([]);
  });

  it("UserStore update fails during reset - DATABASE_FAILURE, the token still works afterwards, the password is unchanged", async () => {
    const { auth, stores, tokenOf, lastOf } = await setup();
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    await auth.requestPasswordReset({}, { email: "ada@example.test" });
    const token = tokenOf(lastOf("password-reset"));
    const update = stores.users.update;
    stores.users.update = boom;
    expect(await code(auth.resetPassword({ token }, { newPassword: NEW_PASSWORD }))).toBe("DATABASE_FAILURE");
    expect(await code(signIn(auth, { email: "ada@example.test", password: PASSWORD }))).toBe("OK");
    stores.users.update = update;
    expect(await code(auth.resetPassword({ token }, { newPassword: NEW_PASSWORD }))).toBe("OK");
  });

  it("resetPassword - on a never-verified address the link proves it: verified, 2FA set up before removed, sessions revoked", async () => {
    const { auth, stores, tokenOf, lastOf } = await setup();
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    const user = await stores.users.findByEmail("ada@example.test");
    const intruder = await signIn(auth, { email: "ada@example.test", password: PASSWORD });
    await stores.users.update(user?.id ?? "", {
      twoFactor: EMAIL_TWO_FACTOR,
    });
    await auth.requestPasswordReset({}, { email: "ada@example.test" });
    await auth.resetPassword({ token: tokenOf(lastOf("password-reset")) }, { newPassword: NEW_PASSWORD });
    expect(await code(auth.authenticate({ token: intruder.accessToken }))).toBe("ACCESS_TOKEN_INVALID");
    expect(await stores.users.findById(user?.id ?? "")).toMatchObject({
      emailVerified: true,
      twoFactor: { methods: [], preferredMethod: null },
    });
    expect(await auth.login({}, { email: "ada@example.test", password: NEW_PASSWORD })).toMatchObject({
      twoFactorRequired: false,
    });
  });

  it("resetPassword - lifts the address's failed-login lock: the owner signs in with the new password at once", async () => {
    const { auth, tokenOf, lastOf } = await setup();
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    for (let i = 0; i < 6; i++)
      await code(auth.login({}, { email: "ada@example.test", password: "wrong guess!!" }));
    expect(await code(auth.login({}, { email: "ada@example.test", password: PASSWORD }))).toBe(
      "LOGIN_THROTTLED",
    );
    await auth.requestPasswordReset({}, { email: "ada@example.test" });
    await auth.resetPassword({ token: tokenOf(lastOf("password-reset")) }, { newPassword: NEW_PASSWORD });
    expect(await code(signIn(auth, { email: "ada@example.test", password: NEW_PASSWORD }))).toBe("OK");
  });

  it.each([
    ["users.findById", "users", "findById"],
    ["users.update", "users", "update"],
    ["sessions.deleteUserSessions", "sessions", "deleteUserSessions"],
    ["allowlist.revokeAccessTokens", "allowlist", "revokeAccessTokens"],
    ["singleUseTokens.deleteUserTokens", "singleUseTokens", "deleteUserTokens"],
  ] as const)(
    "resetPassword - %s fails after the consume: DATABASE_FAILURE and the link still works",
    async (_, port, method) => {
      const { auth, stores, tokenOf, lastOf } = await setup();
      await auth.register({}, { email: "ada@example.test", password: PASSWORD });
      await signIn(auth, { email: "ada@example.test", password: PASSWORD });
      await auth.requestPasswordReset({}, { email: "ada@example.test" });
      const token = tokenOf(lastOf("password-reset"));
      const target = stores[port] as unknown as Record<string, unknown>;
      const original = target[method];
      target[method] = boom;
      expect(await code(auth.resetPassword({ token }, { newPassword: NEW_PASSWORD }))).toBe(
        "DATABASE_FAILURE",
      );
      target[method] = original;
      expect(await code(auth.resetPassword({ token }, { newPassword: NEW_PASSWORD }))).toBe("OK");
    },
  );

  it.each([
    ["users.findById", "findById"],
    ["users.update", "update"],
  ] as const)(
    "verifyEmail - %s fails after the consume: DATABASE_FAILURE and the link still works",
    async (_, method) => {
      const { auth, stores, tokenOf, lastOf } = await setup();
      await auth.register({}, { email: "ada@example.test", password: PASSWORD });
      await auth.idle();
      expect(lastOf("email-verification")).toBeDefined();
      const token = tokenOf(lastOf("email-verification"));
      const original = stores.users[method];
      (stores.users as unknown as Record<string, unknown>)[method] = boom;
      expect(await code(auth.verifyEmail({ token }))).toBe("DATABASE_FAILURE");
      (stores.users as unknown as Record<string, unknown>)[method] = original;
      expect(await auth.verifyEmail({ token })).toMatchObject({ emailVerified: true });
    },
  );

  it("invalid tokens - limited per client IP (RATE_LIMITED after 50 in 15 minutes); loopback and valid links are not", async () => {
    const { auth } = await setup();
    const guess = (ip: string, index: number) =>
      code(
        auth.resetPassword(
          { token: `guessed-token-value-${String(index).padStart(4, "0")}`, request: { ip } },
          { newPassword: NEW_PASSWORD },
        ),
      );
    for (let i = 0; i < 50; i++) expect(await guess("203.0.113.7", i)).toBe("PASSWORD_RESET_TOKEN_INVALID");
    expect(await guess("203.0.113.7", 50)).toBe("RATE_LIMITED");
    expect(
      await code(auth.verifyEmail({ token: "guessed-token-value-9999", request: { ip: "203.0.113.7" } })),
    ).toBe("RATE_LIMITED");
    expect(await guess("198.51.100.1", 51)).toBe("PASSWORD_RESET_TOKEN_INVALID");
    for (let i = 0; i < 60; i++) expect(await guess("127.0.0.1", i)).toBe("PASSWORD_RESET_TOKEN_INVALID");
  });
});
