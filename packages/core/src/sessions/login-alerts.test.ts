import { createMemoryStores } from "@portcullis/store-memory";
import { describe, expect, it } from "vitest";
import type { SecurityEvent } from "../events.js";
import type { UserStore } from "../ports/user-store.js";
import {
  createLineLogger,
  createTestAuth,
  EMAIL_TWO_FACTOR,
  PASSWORD,
  signIn,
  type TestAuthOptions,
} from "../test-support.js";

const ADA = "ada@example.test";

/** A test auth whose `onEvent` keeps every event, and a count of the login alerts sent to Ada. */
function setup(options: TestAuthOptions = {}) {
  const events: SecurityEvent[] = [];
  const env = createTestAuth({ onEvent: (event) => events.push(event), ...options });
  const alerts = async (to = ADA) => {
    await env.auth.idle();
    return env.sent.filter((message) => message.kind === "login-alert" && message.to === to).length;
  };
  return { ...env, events, alerts };
}

/** A user store as a host might have written it before `recordSignIn`: the memory store without it. */
function withoutRecordSignIn(users: UserStore, keepsLastSignIn: boolean): UserStore {
  return {
    findById: (id) => users.findById(id),
    findByEmail: (email) => users.findByEmail(email),
    create: (user) => users.create(user),
    update: async (id, patch) => {
      const { lastSignInAt, ...rest } = patch;
      const updated = await users.update(id, keepsLastSignIn ? patch : rest);
      if (!updated || keepsLastSignIn) return updated;
      const { lastSignInAt: _dropped, ...record } = updated;
      return record;
    },
    delete: (id) => users.delete(id),
  };
}

describe("login alerts", () => {
  it("login - a sign-in from a new browser alerts; a second one from that browser does not; another new browser does", async () => {
    const { auth, clock, alerts, stores } = setup();
    await auth.register({}, { email: ADA, password: PASSWORD });
    const first = await signIn(auth, { email: ADA, password: PASSWORD });
    expect(await alerts()).toBe(1);
    expect((await stores.users.findByEmail(ADA))?.lastSignInAt).toBe(clock.now());
    await signIn(auth, { email: ADA, password: PASSWORD }, { deviceToken: first.deviceToken });
    expect(await alerts()).toBe(1);
    clock.advance(24 * 3600 * 1000);
    await signIn(auth, { email: ADA, password: PASSWORD });
    expect(await alerts()).toBe(2);
  });

  it("login - the registering browser's first sign-in sends no alert", async () => {
    const { auth, alerts } = setup();
    const { deviceToken } = await auth.register({}, { email: ADA, password: PASSWORD });
    const signedIn = await signIn(auth, { email: ADA, password: PASSWORD }, { deviceToken });
    expect(await alerts()).toBe(0);
    await signIn(auth, { email: ADA, password: PASSWORD }, { deviceToken: signedIn.deviceToken });
    expect(await alerts()).toBe(0);
  });

  it("login - a browser known to another account, or a forged or other-secret device token, counts as a new browser", async () => {
    const { auth, alerts } = setup();
    await auth.register({}, { email: ADA, password: PASSWORD });
    const { deviceToken: bobs } = await auth.register({}, { email: "bob@example.test", password: PASSWORD });
    const other = createTestAuth({ secret: "another-secret-Kq3vN8xLw2Rt6Yp0Zb4Mc7Hd1Jf5Gs9T" });
    const { deviceToken: foreign } = await other.auth.register({}, { email: ADA, password: PASSWORD });
    const mine = (await signIn(auth, { email: ADA, password: PASSWORD })).deviceToken;
    const forged = `${mine.slice(0, -2)}${mine.endsWith("AA") ? "BB" : "AA"}`;
    expect(await alerts()).toBe(1);
    for (const deviceToken of [bobs, foreign, forged]) {
      await signIn(auth, { email: ADA, password: PASSWORD }, { deviceToken });
    }
    expect(await alerts()).toBe(4);
  });

  it("login - an account seeded by the host gets an alert for its first sign-in (no browser knows it), then none from that browser", async () => {
    const { auth, clock, alerts } = setup();
    const user = await auth.host.createUser({}, { email: ADA, emailVerified: true });
    await auth.host.setPassword({}, { userId: user.id, password: PASSWORD });
    clock.advance(30 * 24 * 3600 * 1000);
    const { deviceToken } = await signIn(auth, { email: ADA, password: PASSWORD });
    expect(await alerts()).toBe(1);
    await signIn(auth, { email: ADA, password: PASSWORD }, { deviceToken });
    expect(await alerts()).toBe(1);
  });

  it("login - 10 concurrent sign-ins from the registering browser send no alert", async () => {
    // Password checks are counted before they are checked: let 10 through at once.
    const { auth, alerts } = setup({ loginThrottle: { freeAttempts: 20 } });
    const { deviceToken } = await auth.register({}, { email: ADA, password: PASSWORD });
    await Promise.all(
      Array.from({ length: 10 }, () => signIn(auth, { email: ADA, password: PASSWORD }, { deviceToken })),
    );
    expect(await alerts()).toBe(0);
  });

  it("completeTwoFactorLogin - finishing with the second factor counts: an alert from a new browser, none from it the second time", async () => {
    const { auth, clock, alerts, sent, stores } = setup();
    const user = await auth.host.createUser({}, { email: ADA, emailVerified: true });
    await auth.host.setPassword({}, { userId: user.id, password: PASSWORD });
    await stores.users.update(user.id, { twoFactor: EMAIL_TWO_FACTOR });
    let deviceToken: string | undefined;
    for (const expected of [1, 1]) {
      const login = await auth.login({ request: { deviceToken } }, { email: ADA, password: PASSWORD });
      if (!login.twoFactorRequired) throw new Error("expected 2FA");
      await auth.idle();
      const mailed = /(\d{6})/.exec(sent.filter((m) => m.kind === "two-factor-code").at(-1)?.text ?? "")?.[1];
      const signedIn = await auth.completeTwoFactorLogin(
        { token: login.twoFactorAuthenticationToken, request: { deviceToken } },
        { code: mailed },
      );
      deviceToken = signedIn.deviceToken;
      expect(await alerts()).toBe(expected);
      clock.advance(61_000);
    }
  });

  it("sessions.create - counts as a sign-in: an alert unless the call brings a device token naming the account", async () => {
    const { auth, alerts } = setup();
    const user = await auth.host.createUser({}, { email: ADA, emailVerified: true });
    const { deviceToken } = await auth.sessions.create({}, { userId: user.id });
    expect(await alerts()).toBe(1);
    await auth.sessions.create({ request: { deviceToken } }, { userId: user.id });
    expect(await alerts()).toBe(1);
  });

  it("email.loginAlerts false - no alert for any sign-in, and the sign-ins are still recorded", async () => {
    const { auth, alerts, stores, clock } = setup({ email: { loginAlerts: false } });
    await auth.register({}, { email: ADA, password: PASSWORD });
    for (let i = 0; i < 3; i++) await signIn(auth, { email: ADA, password: PASSWORD });
    expect(await alerts()).toBe(0);
    expect((await stores.users.findByEmail(ADA))?.lastSignInAt).toBe(clock.now());
  });

  it("a store without recordSignIn - the sign-in is recorded through update and lastSignInAt", async () => {
    const memory = createMemoryStores({ sweepIntervalMs: 0 });
    const { auth, clock } = setup({ stores: { ...memory, users: withoutRecordSignIn(memory.users, true) } });
    await auth.register({}, { email: ADA, password: PASSWORD });
    await signIn(auth, { email: ADA, password: PASSWORD });
    expect((await memory.users.findByEmail(ADA))?.lastSignInAt).toBe(clock.now());
  });

  it("a store that keeps no lastSignInAt - sign-ins still alert from a new browser, and one warning says why", async () => {
    const memory = createMemoryStores({ sweepIntervalMs: 0 });
    const { logger, lines } = createLineLogger();
    const { auth, alerts } = setup({
      logger,
      stores: { ...memory, users: withoutRecordSignIn(memory.users, false) },
    });
    await auth.register({}, { email: ADA, password: PASSWORD });
    await signIn(auth, { email: ADA, password: PASSWORD });
    await signIn(auth, { email: ADA, password: PASSWORD });
    expect(await alerts()).toBe(2);
    const warnings = lines.filter((line) => line.includes('"event":"users.sign_in_untracked"'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0] ?? "{}")).toMatchObject({ level: "warn" });
  });

  it("a failing recordSignIn - the sign-in still succeeds, alerts from a new browser and is logged", async () => {
    const memory = createMemoryStores({ sweepIntervalMs: 0 });
    const { logger, lines } = createLineLogger();
    const users: UserStore = {
      ...memory.users,
      recordSignIn: () => Promise.reject(new Error("connection lost")),
      // The fallback path: the re-read, then `recordSignIn` (the combined call is tested below).
      recordSignInIfUnchanged: undefined,
    };
    const { auth, alerts } = setup({ logger, stores: { ...memory, users } });
    await auth.register({}, { email: ADA, password: PASSWORD });
    await signIn(auth, { email: ADA, password: PASSWORD });
    expect(await alerts()).toBe(1);
    expect(lines.some((line) => line.includes('"event":"users.record_sign_in_failed"'))).toBe(true);
  });
});

describe("a failing recordSignInIfUnchanged", () => {
  it("login - it is the re-read of the sign-in's check: DATABASE_FAILURE, and the session it wrote is ended", async () => {
    const memory = createMemoryStores({ sweepIntervalMs: 0 });
    const users: UserStore = {
      ...memory.users,
      recordSignInIfUnchanged: () => Promise.reject(new Error("connection lost")),
    };
    const { auth } = setup({ stores: { ...memory, users } });
    await auth.register({}, { email: ADA, password: PASSWORD });
    const id = (await memory.users.findByEmail(ADA))?.id ?? "";
    await expect(signIn(auth, { email: ADA, password: PASSWORD })).rejects.toMatchObject({
      code: "DATABASE_FAILURE",
    });
    expect(id).not.toBe("");
    expect(await memory.sessions.listSessions(id)).toEqual([]);
    expect((await memory.users.findByEmail(ADA))?.lastSignInAt ?? null).toBeNull();
  });
});

describe("session.created", () => {
  it("login - a password sign-in emits login.succeeded and session.created for the new session", async () => {
    const { auth, events } = setup();
    await auth.register({}, { email: ADA, password: PASSWORD });
    const { sessionId, user } = await signIn(auth, { email: ADA, password: PASSWORD }, { ip: "203.0.113.7" });
    for (const type of ["login.succeeded", "session.created"] as const) {
      expect(events.filter((event) => event.type === type)).toEqual([
        expect.objectContaining({ userId: user.id, sessionId, ip: "203.0.113.7", reason: null }),
      ]);
    }
  });

  it("sessions.create - emits session.created once, with reason api", async () => {
    const { auth, events } = setup();
    const user = await auth.host.createUser({}, { email: ADA, emailVerified: true });
    const { sessionId } = await auth.sessions.create({}, { userId: user.id });
    expect(events.filter((event) => event.type === "session.created")).toEqual([
      expect.objectContaining({ userId: user.id, sessionId, reason: "api" }),
    ]);
  });
});
