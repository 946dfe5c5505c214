import { createMemoryStores } from "@portcullis/store-memory";
import { createFakeClock } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { createAuth } from "../create-auth.js";
import type { SecurityEvent } from "../events.js";
import { silentLogger } from "../ports/logger.js";
import type { EmailMessage } from "../ports/mailer.js";
import type { PasswordHasher } from "../ports/password-hasher.js";
import type { SessionRecord, SessionStore } from "../ports/session-store.js";
import type { UserStore } from "../ports/user-store.js";
import { APP_ORIGIN, code, fastHasher, PASSWORD, signIn, TEST_SECRET } from "../test-support.js";

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
  const sent: EmailMessage[] = [];
  const events: SecurityEvent[] = [];
  const auth = createAuth({
    secret: TEST_SECRET,
    stores: { ...memory, users, sessions },
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
  const user = await auth.admin.createUser({}, { email: EMAIL, password: PASSWORD, emailVerified: true });
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
  return { auth, memory, hooks, userCalls, created, events, user, resetLink, expectNoSessionLeft };
}

describe("login - the window between the password check and the session", () => {
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
      void (await auth.admin.setPassword({}, { userId: user.id, password: NEW_PASSWORD }));
    expect(await code(auth.login({}, { email: EMAIL, password: PASSWORD }))).toBe("INVALID_CREDENTIALS");
    await expectNoSessionLeft();
    expect(await code(signIn(auth, { email: EMAIL, password: PASSWORD }))).toBe("INVALID_CREDENTIALS");
    expect(await code(signIn(auth, { email: EMAIL, password: NEW_PASSWORD }))).toBe("OK");
  });

  it("login - a user deleted before the session write leaves no session", async () => {
    const { auth, hooks, user, expectNoSessionLeft } = await scenario();
    hooks.beforeSessionWrite = async () => void (await auth.admin.deleteUser({}, user.id));
    expect(await code(auth.login({}, { email: EMAIL, password: PASSWORD }))).toBe("INVALID_CREDENTIALS");
    await expectNoSessionLeft();
  });

  it("login - a sign-in ended by a password change is not a wrong guess", async () => {
    const { auth, hooks, user } = await scenario({ freeAttempts: 1 });
    let password = PASSWORD;
    for (const next of ["first new passphrase", "second new passphrase", "third new passphrase"]) {
      hooks.afterVerify = async () =>
        void (await auth.admin.setPassword({}, { userId: user.id, password: next }));
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
    expect(userCalls).toEqual(["findByEmail", "update", "findById", "recordSignIn"]);
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

  it("login - a password sign-in reads the user once more; other sign-ins do not", async () => {
    const { auth, userCalls, user } = await scenario();
    userCalls.length = 0;
    const signedIn = await signIn(auth, { email: EMAIL, password: PASSWORD });
    expect(userCalls).toEqual(["findByEmail", "findById", "recordSignIn"]);
    expect(await code(auth.authenticate({ token: signedIn.accessToken }))).toBe("OK");
    userCalls.length = 0;
    await auth.sessions.create({}, { userId: user.id });
    expect(userCalls.filter((call) => call === "findById")).toHaveLength(1);
  });
});
