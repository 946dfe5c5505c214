import {
  type Auth,
  type AuthOptions,
  type Clock,
  createArgon2Hasher,
  createAuth,
  type EmailMessage,
  type PasswordHasher,
  silentLogger,
  type UserStore,
} from "@portcullis/core";
import { expect } from "vitest";

/** Test support (not part of the package's exports): users holding a reset link, and the reset invariant. */

export const OLD_PASSWORD = "correct horse battery staple";
export const NEW_PASSWORD = "a brand new passphrase";

/** A user signed in before the reset (the session that must not outlive a new password), holding a reset link. */
export interface ResettingUser {
  email: string;
  token: string;
  accessToken: string;
  refreshToken: string;
}

const code = (promise: Promise<unknown>) =>
  promise.then(
    () => "OK",
    (error: { code?: string }) => error.code ?? String(error),
  );

/** The token of the last reset email sent to `email`. */
export function resetTokenOf(sent: EmailMessage[], email: string): string {
  const message = sent.filter((m) => m.kind === "password-reset" && m.to === email).at(-1);
  const token = /token=([A-Za-z0-9_-]+)/.exec(message?.html ?? "")?.[1];
  if (!token) throw new Error(`no reset link for ${email}`);
  return token;
}

/** Registers `count` users, signs each in once and sends each a reset link (emails land in `sent`). */
export async function resettingUsers(
  auth: Auth,
  sent: EmailMessage[],
  count: number,
  label = "user",
): Promise<ResettingUser[]> {
  const users: ResettingUser[] = [];
  for (let i = 0; i < count; i++) {
    const email = `${label}-${i}@example.test`;
    await auth.register({}, { email, password: OLD_PASSWORD });
    const login = await auth.login({}, { email, password: OLD_PASSWORD });
    if (login.twoFactorRequired) throw new Error("unexpected 2FA");
    await auth.requestPasswordReset({}, { email });
    users.push({ email, token: "", accessToken: login.accessToken, refreshToken: login.refreshToken });
  }
  await auth.idle();
  for (const user of users) user.token = resetTokenOf(sent, user.email);
  return users;
}

/**
 * The state a reset left, checked through `auth` (after any claim's lease ended): `new` when the
 * new password is set, which requires that the session from before answers neither /me nor
 * refresh; `old` when the old password is unchanged, which requires that the link still works:
 * it is used now, and must complete the reset. A mix fails the test.
 */
export async function resetState(
  auth: Auth,
  users: UserStore,
  hasher: PasswordHasher,
  user: ResettingUser,
): Promise<"old" | "new"> {
  const oldAccess = await code(auth.authenticate({ token: user.accessToken }));
  const oldRefresh = await code(auth.refresh({ token: user.refreshToken }));
  const hash = (await users.findByEmail(user.email))?.passwordHash ?? "";
  if (await hasher.verify(hash, NEW_PASSWORD)) {
    expect({ email: user.email, oldAccess, oldRefresh }).toEqual({
      email: user.email,
      oldAccess: "ACCESS_TOKEN_INVALID",
      oldRefresh: "REFRESH_TOKEN_INVALID",
    });
    return "new";
  }
  expect(await hasher.verify(hash, OLD_PASSWORD)).toBe(true);
  expect({
    email: user.email,
    link: await code(auth.resetPassword({ token: user.token }, { newPassword: NEW_PASSWORD })),
  }).toEqual({ email: user.email, link: "OK" });
  expect(await code(auth.authenticate({ token: user.accessToken }))).toBe("ACCESS_TOKEN_INVALID");
  return "old";
}

/** A step of the reset where a fault test breaks the store: the hash, or right after the new password is saved. */
export type ResetStep = "hash" | "update";

/**
 * An auth over `stores` for the reset fault tests, whose `at(step)` runs when the reset reaches a
 * `ResetStep`: before the hash, and after the users store saved a new password hash. Cheap
 * argon2 parameters; emails land in `sent`.
 */
export function authWithResetSteps(options: {
  secret: string;
  stores: AuthOptions["stores"];
  clock?: Clock;
  at(step: ResetStep): void | Promise<void>;
}): { auth: Auth; users: UserStore; hasher: PasswordHasher; sent: EmailMessage[] } {
  const base = options.stores.users;
  const update: UserStore["update"] = async (id, patch) => {
    const updated = await base.update(id, patch);
    if (patch.passwordHash) await options.at("update");
    return updated;
  };
  // Every other method of the store as it is (bound, so a class-based store keeps its `this`).
  const users = new Proxy(base, {
    get: (target, key) => {
      if (key === "update") return update;
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const hasher = createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 });
  // A host that wraps a store leaves `together` and `joint` out (they stand for the stores as the
  // package made them): the reset then runs on its fail-safe order alone, which is what these
  // tests break into.
  const { together: _together, joint: _joint, ...stores } = options.stores;
  const { auth, sent } = resetAuth({
    secret: options.secret,
    stores: { ...stores, users },
    ...(options.clock ? { clock: options.clock } : {}),
    passwordHasher: {
      ...hasher,
      async hash(password) {
        await options.at("hash");
        return hasher.hash(password);
      },
    },
  });
  return { auth, users, hasher, sent };
}

/**
 * An auth over `stores` for the reset tests: on `clock` when given, `passwordHasher` or cheap
 * argon2 (the `hasher` returned), emails landing in `sent`.
 */
export function resetAuth(options: {
  secret: string;
  stores: AuthOptions["stores"];
  clock?: Clock;
  passwordHasher?: PasswordHasher;
}): { auth: Auth; hasher: PasswordHasher; sent: EmailMessage[] } {
  const hasher = options.passwordHasher ?? createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 });
  const sent: EmailMessage[] = [];
  const auth = createAuth({
    secret: options.secret,
    stores: options.stores,
    ...(options.clock ? { clock: options.clock } : {}),
    appOrigin: "https://app.example.test",
    logger: silentLogger,
    mailer: { send: async (message) => void sent.push(message) },
    email: { enabled: true, loginAlerts: false },
    passwordHasher: hasher,
  });
  return { auth, hasher, sent };
}
