import { createMemoryStores } from "@portcullis/store-memory";
import { createFakeClock } from "@portcullis/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAuth } from "../create-auth/create-auth.js";
import type { SecurityEvent } from "../events.js";
import type { JointStores } from "../ports/joint-stores.js";
import { silentLogger } from "../ports/logger.js";
import type { EmailMessage } from "../ports/mailer.js";
import type { PasswordHasher } from "../ports/password-hasher.js";
import type { SessionRecord, SessionStore } from "../ports/session-store.js";
import type { UserStore } from "../ports/user-store.js";
import {
  APP_ORIGIN,
  code,
  EMAIL_TWO_FACTOR,
  fastHasher,
  PASSWORD,
  signIn,
  TEST_SECRET,
} from "../test-support.js";

/**
 * The window between a sign-in's password check and its session write (docs/security.md,
 * "Fail-safe order of multi-step changes"): a password set in that window, after its own session
 * purge, must not leave a session opened with the old password. The reset is made to land in the
 * window deterministically, from the hasher's `verify` or the session store's `createSession`.
 */

const EMAIL = "ada@example.test";
const NEW_PASSWORD = "a brand new passphrase";

/** A hook run once, when armed, at a point of the sign-in. */
type Hook = (() => Promise<void>) | null;

/**
 * How `scenario` ends a sign-in: the users store's `recordSignInIfUnchanged` (the re-read and the
 * sign-in's record in one call), only its `findById` and `recordSignIn`, or a `stores.joint` with
 * `allowAccessTokenWithSessionAndRecordSignIn` (the session's write, then the re-read and record,
 * as one call: store-sql's one statement on PostgreSQL); the window tests run all three.
 */
type SignInEnd = "combined" | "apart" | "joint";
let signInEnd: SignInEnd = "combined";

async function scenario(options: { rehashOnce?: boolean; freeAttempts?: number } = {}) {
  const clock = createFakeClock({ start: Date.UTC(2026, 0, 1) });
  const memory = createMemoryStores({ clock, sweepIntervalMs: 0 });
  const hooks: { afterVerify: Hook; beforeSessionWrite: Hook } = {
    afterVerify: null,
    beforeSessionWrite: null,
  };
  const userCalls: string[] = [];
  const created: SessionRecord[] = [];
  const take = (name: keyof typeof hooks) => {
    const hook = hooks[name];
    hooks[name] = null;
    return hook?.() ?? Promise.resolve();
  };
  const base = fastHasher();
  let rehashes = options.rehashOnce ? 1 : 0;
  const hasher: PasswordHasher = {
    hash: (password) => base.hash(password),
    async verify(hash, password) {
      const ok = await base.verify(hash, password);
      await take("afterVerify");
      return ok;
    },
    needsRehash: (hash) => rehashes-- > 0 || base.needsRehash(hash),
  };
  /** Records the users store's calls (the cost of a sign-in). */
  const users = new Proxy(memory.users, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      if (property === "recordSignInIfUnchanged" && signInEnd === "apart") return undefined;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        userCalls.push(String(property));
        return value.apply(object, args);
      };
    },
  }) as UserStore;
  const sessions: SessionStore = Object.assign(Object.create(memory.sessions) as SessionStore, {
    async createSession(...args: Parameters<SessionStore["createSession"]>) {
      await take("beforeSessionWrite");
      created.push(args[0]);
      return memory.sessions.createSession(...args);
    },
  });
  /** The joint write as a store would make it: the session and entry, then the re-read and record. */
  const joint: JointStores = {
    async allowAccessTokenWithSessionAndRecordSignIn(jti, entry, ttlMs, session, sessionTtlMs, hash) {
      userCalls.push("joint: session, then recordSignInIfUnchanged");
      await memory.allowlist.allowAccessToken(jti, entry, ttlMs);
      await sessions.createSession(session, sessionTtlMs);
      const record = memory.users.recordSignInIfUnchanged;
      if (!record) throw new Error("store-memory's users have recordSignInIfUnchanged");
      return record.call(memory.users, session.userId, session.createdAt, hash);
    },
  };
  const sent: EmailMessage[] = [];
  const events: SecurityEvent[] = [];
  const auth = createAuth({
    secret: TEST_SECRET,
    stores: { ...memory, users, sessions, ...(signInEnd === "joint" ? { joint } : {}) },
    clock,
    appOrigin: APP_ORIGIN,
    logger: silentLogger,
    passwordHasher: hasher,
    mailer: { send: async (message) => void sent.push(message) },
    email: { enabled: true, loginAlerts: false },
    loginThrottle: { freeAttempts: options.freeAttempts ?? 5 },
    onEvent: (event) => void events.push(event),
  });
  await auth.ready();
  const user = await auth.host.createUser({}, { email: EMAIL, password: PASSWORD, emailVerified: true });
  /** A reset link for the user, taken from the email. */
  async function resetLink(): Promise<string> {
    await auth.requestPasswordReset({}, { email: EMAIL });
    await auth.idle();
    const html = sent.filter((message) => message.kind === "password-reset").at(-1)?.html ?? "";
    return /token=([A-Za-z0-9_-]+)/.exec(html)?.[1] ?? "";
  }
  /** No session of the user is left, and no access token of a session this test saw written. */
  async function expectNoSessionLeft(): Promise<void> {
    expect(await memory.sessions.listSessions(user.id)).toEqual([]);
    for (const record of created) {
      expect(await memory.allowlist.findAllowedAccessToken(record.accessTokenJti)).toBeNull();
    }
  }
  return { auth, memory, hooks, userCalls, created, events, sent, user, resetLink, expectNoSessionLeft };
}

describe.each([
  ["recordSignInIfUnchanged", "combined"],
  ["findById, then recordSignIn", "apart"],
  ["joint.allowAccessTokenWithSessionAndRecordSignIn", "joint"],
] as const)("login - the window between the password check and the session (%s)", (_, end: SignInEnd) => {
  beforeEach(() => {
    signInEnd = end;
  });
  afterEach(() => {
    signInEnd = "combined";
  });
  /** The users store's calls once the session is written: the re-read and the sign-in's record. */
  const afterSession = {
    combined: ["recordSignInIfUnchanged"],
    apart: ["findById", "recordSignIn"],
    joint: ["joint: session, then recordSignInIfUnchanged"],
  }[end];
  const combined = end === "combined";

  it("login - a reset between the check and the session write ends the session (INVALID_CREDENTIALS)", async () => {
    const { auth, hooks, events, resetLink, expectNoSessionLeft, created } = await scenario();
    const token = await resetLink();
    hooks.afterVerify = async () => {
      expect(await code(auth.resetPassword({ token }, { newPassword: NEW_PASSWORD }))).toBe("OK");
    };
    expect(await code(auth.login({}, { email: EMAIL, password: PASSWORD }))).toBe("INVALID_CREDENTIALS");
    expect(hooks.afterVerify).toBeNull();
    expect(created).toHaveLength(1);
    await expectNoSessionLeft();
    expect(events.filter((event) => event.type === "login.failed").map((event) => event.reason)).toEqual([
      "password_changed",
    ]);
    expect(events.some((event) => event.type === "login.succeeded")).toBe(false);
    expect(await code(signIn(auth, { email: EMAIL, password: NEW_PASSWORD }))).toBe("OK");
  });

  it("login - setPassword right before the session write ends the session", async () => {
    const { auth, hooks, user, expectNoSessionLeft } = await scenario();
    hooks.beforeSessionWrite = async () =>
      void (await auth.host.setPassword({}, { userId: user.id, password: NEW_PASSWORD }));
    expect(await code(auth.login({}, { email: EMAIL, password: PASSWORD }))).toBe("INVALID_CREDENTIALS");
    await expectNoSessionLeft();
    expect(await code(signIn(auth, { email: EMAIL, password: PASSWORD }))).toBe("INVALID_CREDENTIALS");
    expect(await code(signIn(auth, { email: EMAIL, password: NEW_PASSWORD }))).toBe("OK");
  });

  it("login - a user deleted before the session write leaves no session", async () => {
    const { auth, hooks, user, expectNoSessionLeft } = await scenario();
    hooks.beforeSessionWrite = async () => void (await auth.host.deleteUser({}, user.id));
    expect(await code(auth.login({}, { email: EMAIL, password: PASSWORD }))).toBe("INVALID_CREDENTIALS");
    await expectNoSessionLeft();
  });

  it("login - a sign-in ended by a password change is not a wrong guess", async () => {
    const { auth, hooks, user } = await scenario({ freeAttempts: 1 });
    let password = PASSWORD;
    for (const next of ["first new passphrase", "second new passphrase", "third new passphrase"]) {
      hooks.afterVerify = async () =>
        void (await auth.host.setPassword({}, { userId: user.id, password: next }));
      expect(await code(auth.login({}, { email: EMAIL, password }))).toBe("INVALID_CREDENTIALS");
      password = next;
    }
    expect(await code(signIn(auth, { email: EMAIL, password }))).toBe("OK");
  });

  it("login - after a rehash the session is checked against the new hash", async () => {
    const { auth, memory, user, userCalls } = await scenario({ rehashOnce: true });
    const before = (await memory.users.findById(user.id))?.passwordHash;
    userCalls.length = 0;
    const signedIn = await signIn(auth, { email: EMAIL, password: PASSWORD });
    expect((await memory.users.findById(user.id))?.passwordHash).not.toBe(before);
    expect(userCalls).toEqual(["findByEmail", "replacePasswordHash", ...afterSession]);
    expect(await code(auth.authenticate({ token: signedIn.accessToken }))).toBe("OK");
  });

  it("login - after a rehash a reset before the session write still ends it", async () => {
    const { auth, hooks, resetLink, expectNoSessionLeft } = await scenario({ rehashOnce: true });
    const token = await resetLink();
    hooks.beforeSessionWrite = async () => {
      expect(await code(auth.resetPassword({ token }, { newPassword: NEW_PASSWORD }))).toBe("OK");
    };
    expect(await code(auth.login({}, { email: EMAIL, password: PASSWORD }))).toBe("INVALID_CREDENTIALS");
    await expectNoSessionLeft();
  });

  it("login - a reset between the check and the rehash wins: the old password stays dead", async () => {
    const { auth, memory, hooks, user, resetLink, expectNoSessionLeft } = await scenario({
      rehashOnce: true,
    });
    const token = await resetLink();
    hooks.afterVerify = async () => {
      expect(await code(auth.resetPassword({ token }, { newPassword: NEW_PASSWORD }))).toBe("OK");
    };
    const afterReset = async () => (await memory.users.findById(user.id))?.passwordHash;
    expect(await code(auth.login({}, { email: EMAIL, password: PASSWORD }))).toBe("INVALID_CREDENTIALS");
    const stored = await afterReset();
    await expectNoSessionLeft();
    expect(await code(signIn(auth, { email: EMAIL, password: PASSWORD }))).toBe("INVALID_CREDENTIALS");
    expect(await code(signIn(auth, { email: EMAIL, password: NEW_PASSWORD }))).toBe("OK");
    expect(await afterReset()).toBe(stored);
  });

  it("login - a users store without replacePasswordHash keeps outdated hashes and says so once", async () => {
    const { auth, memory, user } = await scenario({ rehashOnce: true });
    const { replacePasswordHash: _omitted, ...withoutIt } = memory.users;
    const lines: string[] = [];
    const plain = createAuth({
      secret: TEST_SECRET,
      stores: { ...memory, users: withoutIt },
      appOrigin: APP_ORIGIN,
      email: { enabled: false },
      passwordHasher: { ...fastHasher(), needsRehash: () => true },
      logger: { ...silentLogger, warn: (fields: object) => void lines.push(JSON.stringify(fields)) },
    });
    await plain.ready();
    const before = (await memory.users.findById(user.id))?.passwordHash;
    for (let i = 0; i < 2; i++) {
      expect(await code(signIn(plain, { email: EMAIL, password: PASSWORD }))).toBe("OK");
    }
    expect((await memory.users.findById(user.id))?.passwordHash).toBe(before);
    expect(lines.filter((line) => line.includes("users.rehash_unsupported"))).toHaveLength(1);
    expect(await code(signIn(auth, { email: EMAIL, password: PASSWORD }))).toBe("OK");
  });

  it("login - every sign-in reads the user once more after its session is written (a password set or a lock meanwhile ends it)", async () => {
    const { auth, userCalls, user } = await scenario();
    userCalls.length = 0;
    const signedIn = await signIn(auth, { email: EMAIL, password: PASSWORD });
    expect(userCalls).toEqual(["findByEmail", ...afterSession]);
    expect(await code(auth.authenticate({ token: signedIn.accessToken }))).toBe("OK");
    userCalls.length = 0;
    await auth.sessions.create({}, { userId: user.id });
    // Its own lookup, then the check for a lock that landed while the session was written.
    expect(userCalls.filter((call) => call === "findById")).toHaveLength(end === "apart" ? 2 : 1);
    expect(userCalls.filter((call) => call === "recordSignInIfUnchanged")).toHaveLength(combined ? 1 : 0);
  });
});

describe("login with a second factor - the window between the password step and the code", () => {
  /** The account with emailed codes: the password step's 2FA token and the code it mailed. */
  async function passwordStep(setup: Awaited<ReturnType<typeof scenario>>) {
    const { auth, memory, sent, user } = setup;
    await memory.users.update(user.id, { twoFactor: EMAIL_TWO_FACTOR });
    const step = await auth.login({}, { email: EMAIL, password: PASSWORD });
    if (!step.twoFactorRequired) throw new Error("expected a second step");
    await auth.idle();
    const text = sent.filter((message) => message.kind === "two-factor-code").at(-1)?.text ?? "";
    const emailed = /\b(\d{6})\b/.exec(text)?.[1] ?? "";
    expect(emailed).toMatch(/^\d{6}$/);
    return { token: step.twoFactorAuthenticationToken, code: emailed };
  }

  it("2FA login - a reset between the two steps spends the 2FA token: the code signs nobody in", async () => {
    const setup = await scenario();
    const { auth, resetLink, expectNoSessionLeft } = setup;
    const step = await passwordStep(setup);
    const token = await resetLink();
    expect(await code(auth.resetPassword({ token }, { newPassword: NEW_PASSWORD }))).toBe("OK");
    expect(
      await code(auth.completeTwoFactorLogin({ token: step.token }, { code: step.code, method: "email" })),
    ).toBe("TWO_FACTOR_TOKEN_INVALID");
    await expectNoSessionLeft();
    // Spent, not given back: the same token is refused again.
    expect(
      await code(auth.completeTwoFactorLogin({ token: step.token }, { code: step.code, method: "email" })),
    ).toBe("TWO_FACTOR_TOKEN_INVALID");
  });

  it("2FA login - setPassword between the two steps refuses a recovery code's sign-in too", async () => {
    const setup = await scenario();
    const { auth, user, expectNoSessionLeft } = setup;
    const step = await passwordStep(setup);
    await auth.host.setPassword({}, { userId: user.id, password: NEW_PASSWORD });
    expect(await code(auth.recoverWithRecoveryCode({ token: step.token }, { code: "AAAAA-BBBBB" }))).toBe(
      "TWO_FACTOR_TOKEN_INVALID",
    );
    await expectNoSessionLeft();
  });

  it("2FA login - a reset while the code step writes its session ends that session", async () => {
    const setup = await scenario();
    const { auth, hooks, resetLink, expectNoSessionLeft, created } = setup;
    const step = await passwordStep(setup);
    const token = await resetLink();
    hooks.beforeSessionWrite = async () => {
      expect(await code(auth.resetPassword({ token }, { newPassword: NEW_PASSWORD }))).toBe("OK");
    };
    expect(
      await code(auth.completeTwoFactorLogin({ token: step.token }, { code: step.code, method: "email" })),
    ).toBe("INVALID_CREDENTIALS");
    expect(created).toHaveLength(1);
    await expectNoSessionLeft();
  });

  it("2FA login - with the password unchanged (also after a rehash in the password step) the code signs in", async () => {
    for (const rehashOnce of [false, true]) {
      const setup = await scenario({ rehashOnce });
      const step = await passwordStep(setup);
      const signedIn = await setup.auth.completeTwoFactorLogin(
        { token: step.token },
        { code: step.code, method: "email" },
      );
      expect(await code(setup.auth.authenticate({ token: signedIn.accessToken }))).toBe("OK");
    }
  });
});
