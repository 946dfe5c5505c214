import { describe, expect, it } from "vitest";
import { createArgon2Hasher } from "../hashing/argon2-hasher.js";
import type { PasswordHasher } from "../ports/password-hasher.js";
import type { UserRecord, UserStore } from "../ports/user-store.js";
import { code, createLineLogger, createTestAuth, fastHasher, PASSWORD, signIn } from "../test-support.js";
import { issueRefreshToken, parseRefreshToken } from "../tokens/refresh-token.js";

const CHROME_UA =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

function setup(overrides: { hasher?: PasswordHasher } = {}) {
  const { logger, lines } = createLineLogger();
  const verifies: string[] = [];
  const base = overrides.hasher ?? fastHasher();
  const hasher: PasswordHasher = {
    hash: (p) => base.hash(p),
    verify: (h, p) => {
      verifies.push(h);
      return base.verify(h, p);
    },
    needsRehash: (h) => base.needsRehash(h),
  };
  const { auth, stores, clock } = createTestAuth({
    logger,
    passwordHasher: hasher,
    email: { enabled: false },
  });
  return { auth, stores, clock, lines, verifies };
}

async function existingUser(users: UserStore, email: string): Promise<UserRecord> {
  const user = await users.findByEmail(email);
  if (!user) throw new Error(`no user ${email}`);
  return user;
}

describe("use cases", () => {
  it("register - same answer for a new and an existing address; the password is hashed either way", async () => {
    const { auth, stores } = setup();
    const created = await auth.register({}, { email: "A@X.test", password: PASSWORD });
    const taken = await auth.register({}, { email: " a@x.test ", password: "another long password" });
    expect(created).toEqual({ success: true, deviceToken: expect.any(String) });
    expect(taken).toEqual({ success: true, deviceToken: expect.any(String) });
    // The device tokens have the same shape: one names the new account, the other no one.
    expect(created.deviceToken.length).toBe(taken.deviceToken.length);
    const user = await stores.users.findByEmail("a@x.test");
    expect(user?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(await code(signIn(auth, { email: "a@x.test", password: "another long password" }))).toBe(
      "INVALID_CREDENTIALS",
    );
  });

  it("register - bad input is VALIDATION_FAILED, a weak password PASSWORD_POLICY_VIOLATION, nothing stored", async () => {
    const { auth, stores } = setup();
    expect(await code(auth.register({}, { email: "not-an-email", password: PASSWORD }))).toBe(
      "VALIDATION_FAILED",
    );
    // @ts-expect-error: typed inputs; JavaScript callers still get VALIDATION_FAILED
    expect(await code(auth.register({}, { email: "b@x.test", password: 12345678 }))).toBe(
      "VALIDATION_FAILED",
    );
    // @ts-expect-error: the same for null
    expect(await code(auth.register({}, null))).toBe("VALIDATION_FAILED");
    expect(await code(auth.register({}, { email: "b@x.test", password: "short" }))).toBe(
      "PASSWORD_POLICY_VIOLATION",
    );
    expect(await code(auth.register({}, { email: "b@x.test", password: "password123" }))).toBe(
      "PASSWORD_POLICY_VIOLATION",
    );
    expect(await stores.users.findByEmail("b@x.test")).toBeNull();
  });

  it("login - unknown email, wrong password and a password-less account all verify once and fail alike", async () => {
    const { auth, stores, verifies } = setup();
    await auth.register({}, { email: "a@x.test", password: PASSWORD });
    const base = await existingUser(stores.users, "a@x.test");
    await stores.users.create({
      ...base,
      id: "social",
      email: "s@x.test",
      passwordHash: null,
      identityProviders: ["github"],
    });
    for (const email of ["nobody@x.test", "a@x.test", "s@x.test"]) {
      verifies.length = 0;
      expect(await code(signIn(auth, { email, password: "wrong password!" }))).toBe("INVALID_CREDENTIALS");
      expect(verifies, email).toHaveLength(1);
      expect(verifies[0]).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    }
  });

  it("login - records browser and os from the body, else from the User-Agent, with ip and times", async () => {
    const { auth, stores } = setup();
    await auth.register({}, { email: "a@x.test", password: PASSWORD });
    const stated = await signIn(
      auth,
      { email: "a@x.test", password: PASSWORD, session: { browser: "App", os: "Linux" } },
      { ip: "10.0.0.1", userAgent: CHROME_UA },
    );
    const parsed = await signIn(
      auth,
      { email: "a@x.test", password: PASSWORD },
      { ip: "10.0.0.2", userAgent: CHROME_UA },
    );
    expect(await stores.sessions.getSession(stated.sessionId)).toMatchObject({
      browser: "App",
      os: "Linux",
      ip: "10.0.0.1",
      createdAt: Date.UTC(2026, 0, 1),
    });
    expect(await stores.sessions.getSession(parsed.sessionId)).toMatchObject({
      browser: "Chrome 120",
      os: "Mac OS 10.15.7",
      ip: "10.0.0.2",
    });
    expect(JSON.stringify(stated.user)).not.toMatch(/argon2|passwordHash/);
  });

  it("login - an outdated hash is replaced after a successful login", async () => {
    const weak = createArgon2Hasher({ memoryCostKiB: 512, timeCost: 1 });
    const { auth, stores } = setup();
    await auth.register({}, { email: "a@x.test", password: PASSWORD });
    const user = await existingUser(stores.users, "a@x.test");
    await stores.users.update(user.id, { passwordHash: await weak.hash(PASSWORD) });
    await signIn(auth, { email: "a@x.test", password: PASSWORD });
    expect((await stores.users.findById(user.id))?.passwordHash).toMatch(/m=1024,t=1,p=1/);
  });

  it("authenticate - a valid token gives the principal; expiry, logout and revocation end it at once", async () => {
    const { auth, clock } = setup();
    await auth.register({}, { email: "a@x.test", password: PASSWORD });
    const first = await signIn(auth, { email: "a@x.test", password: PASSWORD });
    expect(await auth.authenticate({ token: first.accessToken })).toEqual({
      userId: first.user.id,
      sessionId: first.sessionId,
    });
    expect(await code(auth.authenticate({ token: undefined }))).toBe("AUTHENTICATION_REQUIRED");
    clock.advance(901_000 + 5_000);
    expect(await code(auth.authenticate({ token: first.accessToken }))).toBe("ACCESS_TOKEN_EXPIRED");

    const second = await signIn(auth, { email: "a@x.test", password: PASSWORD });
    await auth.logout({}, { accessToken: second.accessToken });
    expect(await code(auth.authenticate({ token: second.accessToken }))).toBe("ACCESS_TOKEN_INVALID");
    expect(await code(auth.refresh({ token: second.refreshToken }))).toBe("REFRESH_TOKEN_INVALID");
  });

  it("refresh - rotates; the old refresh token and the old access token stop working", async () => {
    const { auth } = setup();
    await auth.register({}, { email: "a@x.test", password: PASSWORD });
    const login = await signIn(auth, { email: "a@x.test", password: PASSWORD });
    const rotated = await auth.refresh({ token: login.refreshToken }, { session: { browser: "Renamed" } });
    expect(rotated.refreshToken).not.toBe(login.refreshToken);
    expect(rotated.sessionId).toBe(login.sessionId);
    expect(await code(auth.authenticate({ token: login.accessToken }))).toBe("ACCESS_TOKEN_INVALID");
    expect(await auth.authenticate({ token: rotated.accessToken })).toEqual({
      userId: login.user.id,
      sessionId: login.sessionId,
    });
    expect(
      (await auth.sessions.list({ principal: await auth.authenticate({ token: rotated.accessToken }) }))[0]
        ?.browser,
    ).toBe("Renamed");
  });

  it("refresh - the replaced token again after the reuse interval revokes the session (reuse detection)", async () => {
    const { auth, clock, lines } = setup();
    await auth.register({}, { email: "a@x.test", password: PASSWORD });
    const login = await signIn(auth, { email: "a@x.test", password: PASSWORD });
    const rotated = await auth.refresh({ token: login.refreshToken });
    clock.advance(10_001);
    expect(await code(auth.refresh({ token: login.refreshToken }))).toBe("REFRESH_TOKEN_INVALID");
    expect(await code(auth.refresh({ token: rotated.refreshToken }))).toBe("REFRESH_TOKEN_INVALID");
    expect(await code(auth.authenticate({ token: rotated.accessToken }))).toBe("ACCESS_TOKEN_INVALID");
    expect(lines.some((line) => line.includes('"refresh_token.reused"'))).toBe(true);
  });

  it("refresh - the replaced token within the reuse interval answers the current tokens: no rotation", async () => {
    const { auth, clock } = setup();
    await auth.register({}, { email: "a@x.test", password: PASSWORD });
    const login = await signIn(auth, { email: "a@x.test", password: PASSWORD });
    const rotated = await auth.refresh({ token: login.refreshToken });
    clock.advance(10_000);
    const again = await auth.refresh({ token: login.refreshToken });
    expect(again.refreshToken).toBe(rotated.refreshToken);
    expect(await auth.authenticate({ token: again.accessToken })).toMatchObject({
      sessionId: login.sessionId,
    });
    expect(await auth.authenticate({ token: rotated.accessToken })).toMatchObject({
      sessionId: login.sessionId,
    });
    const next = await auth.refresh({ token: rotated.refreshToken });
    expect(next.refreshToken).not.toBe(rotated.refreshToken);
  });

  it("refresh - a token two rotations back revokes the session at once, within the interval", async () => {
    const { auth } = setup();
    await auth.register({}, { email: "a@x.test", password: PASSWORD });
    const login = await signIn(auth, { email: "a@x.test", password: PASSWORD });
    const first = await auth.refresh({ token: login.refreshToken });
    const second = await auth.refresh({ token: first.refreshToken });
    expect(await code(auth.refresh({ token: login.refreshToken }))).toBe("REFRESH_TOKEN_INVALID");
    expect(await code(auth.authenticate({ token: second.accessToken }))).toBe("ACCESS_TOKEN_INVALID");
    expect(await code(auth.refresh({ token: second.refreshToken }))).toBe("REFRESH_TOKEN_INVALID");
  });

  it("refresh - refreshReuseIntervalSeconds 0: the replaced token revokes the session at once", async () => {
    const { auth } = createTestAuth({ email: { enabled: false }, refreshReuseIntervalSeconds: 0 });
    await auth.register({}, { email: "a@x.test", password: PASSWORD });
    const login = await signIn(auth, { email: "a@x.test", password: PASSWORD });
    const rotated = await auth.refresh({ token: login.refreshToken });
    expect(await code(auth.refresh({ token: login.refreshToken }))).toBe("REFRESH_TOKEN_INVALID");
    expect(await code(auth.authenticate({ token: rotated.accessToken }))).toBe("ACCESS_TOKEN_INVALID");
  });

  it("refresh - the replaced token of a session whose token was not derived from it is REFRESH_TOKEN_INVALID; the session lives", async () => {
    const { auth, stores } = setup();
    await auth.register({}, { email: "a@x.test", password: PASSWORD });
    const login = await signIn(auth, { email: "a@x.test", password: PASSWORD });
    const session = await stores.sessions.getSession(login.sessionId);
    // A rotation as an earlier version made it: a random successor.
    const successor = issueRefreshToken(login.sessionId);
    await stores.sessions.rotateRefreshToken(
      login.sessionId,
      parseRefreshToken(login.refreshToken)?.hash ?? "",
      {
        refreshTokenHash: successor.hash,
        accessTokenJti: session?.accessTokenJti ?? "",
        lastActiveAt: session?.lastActiveAt ?? 0,
      },
      3_600_000,
    );
    expect(await code(auth.refresh({ token: login.refreshToken }))).toBe("REFRESH_TOKEN_INVALID");
    expect(await auth.refresh({ token: successor.token })).toMatchObject({ sessionId: login.sessionId });
  });

  it("refresh - 20 parallel refreshes with one token: all succeed with one successor, every access token works", async () => {
    const { auth } = setup();
    await auth.register({}, { email: "a@x.test", password: PASSWORD });
    const login = await signIn(auth, { email: "a@x.test", password: PASSWORD });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => auth.refresh({ token: login.refreshToken })),
    );
    expect(new Set(results.map((result) => result.refreshToken)).size).toBe(1);
    for (const result of results) {
      expect(await auth.authenticate({ token: result.accessToken })).toMatchObject({
        sessionId: login.sessionId,
      });
    }
    expect(await auth.refresh({ token: results[0]?.refreshToken })).toMatchObject({
      sessionId: login.sessionId,
    });
  });

  it("sessions - list marks the current one; revoking another user's session is NOT_FOUND; revoke all ends every one", async () => {
    const { auth } = setup();
    await auth.register({}, { email: "a@x.test", password: PASSWORD });
    await auth.register({}, { email: "b@x.test", password: PASSWORD });
    const a1 = await signIn(auth, { email: "a@x.test", password: PASSWORD });
    const a2 = await signIn(auth, { email: "a@x.test", password: PASSWORD });
    const b = await signIn(auth, { email: "b@x.test", password: PASSWORD });
    const principal = await auth.authenticate({ token: a1.accessToken });
    const sessions = await auth.sessions.list({ principal });
    expect(sessions.map((s) => [s.id, s.current]).sort()).toEqual(
      [
        [a1.sessionId, true],
        [a2.sessionId, false],
      ].sort(),
    );
    expect(await code(auth.sessions.revoke({ principal }, b.sessionId))).toBe("NOT_FOUND");
    await auth.sessions.revoke({ principal }, a2.sessionId);
    expect(await code(auth.authenticate({ token: a2.accessToken }))).toBe("ACCESS_TOKEN_INVALID");
    expect(await auth.sessions.revokeAll({ principal })).toEqual({ success: true, revoked: 1 });
    expect(await code(auth.authenticate({ token: a1.accessToken }))).toBe("ACCESS_TOKEN_INVALID");
    expect(await auth.authenticate({ token: b.accessToken })).toMatchObject({ sessionId: b.sessionId });
  });

  it("getCurrentUser - USER_NOT_FOUND when the account is gone; an invented principal is AUTHENTICATION_REQUIRED", async () => {
    const { auth, stores } = setup();
    await auth.register({}, { email: "gone@x.test", password: PASSWORD });
    const session = await signIn(auth, { email: "gone@x.test", password: PASSWORD });
    const principal = await auth.authenticate({ token: session.accessToken });
    await stores.users.delete(principal.userId);
    expect(await code(auth.getCurrentUser({ principal }))).toBe("USER_NOT_FOUND");
    const invented = { userId: principal.userId, sessionId: principal.sessionId };
    // @ts-expect-error: principals come only from authenticate or sessions.create
    expect(await code(auth.getCurrentUser({ principal: invented }))).toBe("AUTHENTICATION_REQUIRED");
    expect(await code(auth.getCurrentUser({ principal: { ...principal } }))).toBe("AUTHENTICATION_REQUIRED");
  });

  it("ports - a failing UserStore is DATABASE_FAILURE, a failing allowlist ACCESS_TOKEN_ALLOWLIST_READING_FAILURE", async () => {
    const { auth, stores } = setup();
    await auth.register({}, { email: "a@x.test", password: PASSWORD });
    const login = await signIn(auth, { email: "a@x.test", password: PASSWORD });
    stores.users.findByEmail = () => Promise.reject(new Error("connection refused"));
    stores.allowlist.findAllowedAccessToken = () => Promise.reject(new Error("timeout"));
    expect(await code(signIn(auth, { email: "a@x.test", password: PASSWORD }))).toBe("DATABASE_FAILURE");
    expect(await code(auth.authenticate({ token: login.accessToken }))).toBe(
      "ACCESS_TOKEN_ALLOWLIST_READING_FAILURE",
    );
  });

  it("logs - no password, hash or token ever reaches a log line", async () => {
    const { auth, lines, stores } = setup();
    await auth.register({}, { email: "a@x.test", password: PASSWORD });
    const login = await signIn(auth, { email: "a@x.test", password: PASSWORD });
    const rotated = await auth.refresh({ token: login.refreshToken });
    await code(auth.refresh({ token: login.refreshToken }));
    await code(signIn(auth, { email: "a@x.test", password: "wrong password!" }));
    const hash = (await stores.users.findByEmail("a@x.test"))?.passwordHash ?? "";
    const log = lines.join("\n");
    expect(lines.length).toBeGreaterThan(3);
    for (const secret of [
      PASSWORD,
      "wrong password!",
      hash,
      login.accessToken,
      login.refreshToken,
      rotated.refreshToken,
    ]) {
      expect(log).not.toContain(secret);
    }
  });
});
