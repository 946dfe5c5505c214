// Fault injection for the core's fail-safe-order tests (use-cases/fail-safe-order.test.ts,
// use-cases/session-lifecycle-faults.test.ts): stores and a hasher whose every call is counted and,
// in turn, failed or hung; and a user signed in and holding a reset link. Only tests import it.
import { createMemoryStores } from "@portcullis/store-memory";
import { createFakeClock } from "@portcullis/testing";
import { expect } from "vitest";
import type { Auth } from "./create-auth/auth.js";
import { createAuth } from "./create-auth/create-auth.js";
import { silentLogger } from "./ports/logger.js";
import type { EmailMessage } from "./ports/mailer.js";
import type { SingleUseTokenStore } from "./ports/single-use-token-store.js";
import { APP_ORIGIN, code, fastHasher, PASSWORD, signIn, TEST_SECRET } from "./test-support.js";

export const EMAIL = "ada@example.test";
export const NEW_PASSWORD = "a brand new passphrase";
/** Calls that are not steps: synchronous helpers and the memory store's housekeeping. */
const NOT_STEPS = new Set(["needsRehash", "createSessionId", "createAccessTokenId", "sweep", "size"]);

export type Mode = "fail" | "crash";

export interface Fault {
  armed: boolean;
  at: number;
  mode: Mode;
  calls: string[];
}

/** Counts each call of `target`'s methods while the fault is armed, and fails or hangs the `at`-th. */
export function instrument<T extends object>(name: string, target: T, fault: Fault): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      if (typeof value !== "function" || NOT_STEPS.has(String(property))) return value;
      return (...args: unknown[]) => {
        if (fault.armed) {
          fault.calls.push(`${name}.${String(property)}`);
          if (fault.calls.length === fault.at) {
            return fault.mode === "fail"
              ? Promise.reject(new Error(`injected failure in ${name}.${String(property)}`))
              : new Promise(() => {});
          }
        }
        return value.apply(object, args);
      };
    },
  });
}

/** A store without the optional claim methods: the core falls back to consuming the token first. */
export function withoutClaims(store: SingleUseTokenStore): SingleUseTokenStore {
  return new Proxy(store, {
    get(object, property, receiver) {
      if (property === "claimToken" || property === "releaseToken") return undefined;
      return Reflect.get(object, property, receiver);
    },
  });
}

/** One user signed in (the session from before the reset) and holding a reset link. */
/**
 * Registers `EMAIL`, signs it in (the session from before) and asks for a reset link: the
 * sign-in's tokens and the link's token, read from the mails `auth` sent into `sent`.
 */
export async function signedInWithResetLink(auth: Auth, sent: EmailMessage[]) {
  await auth.register({}, { email: EMAIL, password: PASSWORD });
  const before = await signIn(auth, { email: EMAIL, password: PASSWORD });
  await auth.requestPasswordReset({}, { email: EMAIL });
  await auth.idle();
  const html = sent.filter((message) => message.kind === "password-reset").at(-1)?.html ?? "";
  const token = /token=([A-Za-z0-9_-]+)/.exec(html)?.[1] ?? "";
  expect(token).not.toBe("");
  return { before, token };
}

export async function scenario(options: { claims: boolean }) {
  const clock = createFakeClock({ start: Date.UTC(2026, 0, 1) });
  const memory = createMemoryStores({ clock, sweepIntervalMs: 0 });
  const fault: Fault = { armed: false, at: 0, mode: "fail", calls: [] };
  const tokens = options.claims ? memory.singleUseTokens : withoutClaims(memory.singleUseTokens);
  const stores = {
    users: instrument("users", memory.users, fault),
    cooldowns: instrument("cooldowns", memory.cooldowns, fault),
    sessions: instrument("sessions", memory.sessions, fault),
    allowlist: instrument("allowlist", memory.allowlist, fault),
    singleUseTokens: instrument("singleUseTokens", tokens, fault),
  };
  const hasher = fastHasher();
  const sent: EmailMessage[] = [];
  const build = () =>
    createAuth({
      secret: TEST_SECRET,
      stores,
      clock,
      appOrigin: APP_ORIGIN,
      logger: silentLogger,
      passwordHasher: instrument("hasher", hasher, fault),
      mailer: { send: async (message) => void sent.push(message) },
      email: { enabled: true, loginAlerts: false },
    });
  const auth = build();
  await auth.ready();
  const { before, token } = await signedInWithResetLink(auth, sent);
  const userId = (await memory.users.findByEmail(EMAIL))?.id ?? "";

  /** After `setPassword` (no link): the new password and no session from before, or the old password. */
  async function checkSetPassword(checker: ReturnType<typeof build>): Promise<"old" | "new"> {
    const oldAccess = await code(checker.authenticate({ token: before.accessToken }));
    const oldRefresh = await code(checker.refresh({ token: before.refreshToken }));
    const hash = (await memory.users.findById(userId))?.passwordHash ?? "";
    if (await hasher.verify(hash, NEW_PASSWORD)) {
      expect({ oldAccess, oldRefresh }).toEqual({
        oldAccess: "ACCESS_TOKEN_INVALID",
        oldRefresh: "REFRESH_TOKEN_INVALID",
      });
      return "new";
    }
    expect(await hasher.verify(hash, PASSWORD)).toBe(true);
    return "old";
  }
  /** The invariant, checked through `checker` (the same process after a failure, a new one after a crash). */
  async function check(checker: ReturnType<typeof build>): Promise<"old" | "new"> {
    if ((await checkSetPassword(checker)) === "new") return "new";
    // The old state: the link works, and using it now completes the reset.
    expect(await code(checker.resetPassword({ token }, { newPassword: NEW_PASSWORD }))).toBe("OK");
    expect(await code(checker.authenticate({ token: before.accessToken }))).toBe("ACCESS_TOKEN_INVALID");
    expect(await code(signIn(checker, { email: EMAIL, password: NEW_PASSWORD }))).toBe("OK");
    return "old";
  }
  return { auth, build, clock, fault, token, userId, memory, before, sent, check, checkSetPassword };
}
