import { createMemoryStores } from "@portcullis/store-memory";
import { createFakeClock } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { createAuth } from "../create-auth/create-auth.js";
import { createArgon2Hasher } from "../hashing/argon2-hasher.js";
import type { AuthStores } from "../options/auth-options.js";
import type { AccessTokenAllowlist } from "../ports/access-token-allowlist.js";
import type { Clock } from "../ports/clock.js";
import type { JointStores } from "../ports/joint-stores.js";
import { silentLogger } from "../ports/logger.js";
import type { UserStore } from "../ports/user-store.js";
import { USER_READ_MAX_AGE_MS } from "../sessions/current-user.js";

const PASSWORD = "correct horse battery staple";

/** An auth on `stores` and `clock` (emails off, cheap argon2), and Ada's first sign-in. */
async function adaSignedIn(clock: Clock, stores: AuthStores) {
  const auth = createAuth({
    secret: "authenticate-test-secret-2X5nFNa1GlKAhRjcflxpS5ny38t8VhkZEkHLBYziZbE",
    stores,
    clock,
    logger: silentLogger,
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    email: { enabled: false },
  });
  await auth.register({}, { email: "ada@example.test", password: PASSWORD });
  const login = await auth.login({}, { email: "ada@example.test", password: PASSWORD });
  if (login.twoFactorRequired) throw new Error("second factor required");
  return { auth, login };
}

/** The verified-token cache must never outlive revocation: every case below uses a token already cached. */
async function signedIn() {
  const clock = createFakeClock({ start: Date.UTC(2026, 0, 1) });
  const { auth, login } = await adaSignedIn(clock, createMemoryStores({ clock, sweepIntervalMs: 0 }));
  const principal = await auth.authenticate({ token: login.accessToken });
  expect(await auth.authenticate({ token: login.accessToken })).toEqual(principal); // now cached
  const code = (token: string) =>
    auth.authenticate({ token }).then(
      () => "OK",
      (error: { code?: string }) => error.code,
    );
  return { auth, clock, login, principal, code };
}

describe("authenticate", () => {
  it("authenticate - logout revokes a cached access token at once", async () => {
    const { auth, login, code } = await signedIn();
    await auth.logout({}, { accessToken: login.accessToken });
    expect(await code(login.accessToken)).toBe("ACCESS_TOKEN_INVALID");
  });

  it("authenticate - revoking every session revokes a cached access token at once", async () => {
    const { auth, principal, login, code } = await signedIn();
    await auth.sessions.revokeAll({ principal });
    expect(await code(login.accessToken)).toBe("ACCESS_TOKEN_INVALID");
  });

  it("authenticate - refresh rotation retires the cached access token; the new one works", async () => {
    const { auth, login, code } = await signedIn();
    const rotated = await auth.refresh({ token: login.refreshToken });
    expect(await code(login.accessToken)).toBe("ACCESS_TOKEN_INVALID");
    expect(await code(rotated.accessToken)).toBe("OK");
  });

  it("authenticate - a cached access token expires at its exp (fake clock)", async () => {
    const { auth, clock, login, code } = await signedIn();
    clock.advance((auth.options.accessTokenTtlSeconds + 10) * 1000);
    expect(await code(login.accessToken)).toBe("ACCESS_TOKEN_EXPIRED");
  });
});

/**
 * Memory stores given with an explicit `joint` that reads the entry and the user together (as
 * store-sql's does), with counts of each read, so the core's use of the joint read can be seen.
 * Every store is a copy of the memory one (a new object): the core trusts `stores.joint` as
 * given and compares no store with another. `joint: false` leaves it out.
 */
async function signedInWithJointRead({ joint = true } = {}) {
  const clock = createFakeClock({ start: Date.UTC(2026, 0, 1) });
  const memory = createMemoryStores({ clock, sweepIntervalMs: 0 });
  const reads = { joint: 0, entry: 0, user: 0 };
  const users: UserStore = {
    ...memory.users,
    findById: (id) => {
      reads.user += 1;
      return memory.users.findById(id);
    },
  };
  const allowlist: AccessTokenAllowlist = {
    ...memory.allowlist,
    findAllowedAccessToken: (jti) => {
      reads.entry += 1;
      return memory.allowlist.findAllowedAccessToken(jti);
    },
  };
  const jointStores: JointStores = {
    async findAllowedAccessTokenWithUser(jti) {
      reads.joint += 1;
      const entry = await memory.allowlist.findAllowedAccessToken(jti);
      return entry && { entry, user: await memory.users.findById(entry.userId) };
    },
  };
  const { auth, login } = await adaSignedIn(clock, {
    ...memory,
    users,
    allowlist,
    ...(joint ? { joint: jointStores } : {}),
  });
  const count = () => ({ ...reads });
  const reset = () => Object.assign(reads, { joint: 0, entry: 0, user: 0 });
  return { auth, clock, memory, login, count, reset };
}

describe("authenticate with stores.joint, which reads the user too", () => {
  it("authenticate - one joint read; getCurrentUser answers from it without reading the user again", async () => {
    const { auth, login, count, reset } = await signedInWithJointRead();
    reset();
    const principal = await auth.authenticate({ token: login.accessToken });
    const user = await auth.getCurrentUser({ principal });
    expect(user.email).toBe("ada@example.test");
    expect(count()).toEqual({ joint: 1, entry: 0, user: 0 });
  });

  it("authenticate - logout revokes the token at once on the joint read", async () => {
    const { auth, login, count, reset } = await signedInWithJointRead();
    expect((await auth.authenticate({ token: login.accessToken })).userId).toBeTruthy();
    await auth.logout({}, { accessToken: login.accessToken });
    reset();
    await expect(auth.authenticate({ token: login.accessToken })).rejects.toMatchObject({
      code: "ACCESS_TOKEN_INVALID",
    });
    expect(count().joint).toBe(1);
  });

  it("getCurrentUser - a user gone at the joint read is USER_NOT_FOUND without another read", async () => {
    const { auth, memory, login, count, reset } = await signedInWithJointRead();
    const { userId } = await auth.authenticate({ token: login.accessToken });
    await memory.users.delete(userId);
    reset();
    const principal = await auth.authenticate({ token: login.accessToken });
    await expect(auth.getCurrentUser({ principal })).rejects.toMatchObject({ code: "USER_NOT_FOUND" });
    expect(count()).toEqual({ joint: 1, entry: 0, user: 0 });
  });

  it("getCurrentUser - a principal kept past USER_READ_MAX_AGE_MS reads the user again", async () => {
    const { auth, clock, memory, login, count, reset } = await signedInWithJointRead();
    const principal = await auth.authenticate({ token: login.accessToken });
    await memory.users.update(principal.userId, { name: "Grace" });
    expect((await auth.getCurrentUser({ principal })).name).not.toBe("Grace");
    clock.advance(USER_READ_MAX_AGE_MS + 1);
    reset();
    expect((await auth.getCurrentUser({ principal })).name).toBe("Grace");
    expect(count()).toEqual({ joint: 0, entry: 0, user: 1 });
  });

  it("authenticate - without stores.joint: the allowlist's entry, then the user's own read", async () => {
    const { auth, login, count, reset } = await signedInWithJointRead({ joint: false });
    reset();
    const principal = await auth.authenticate({ token: login.accessToken });
    expect((await auth.getCurrentUser({ principal })).email).toBe("ada@example.test");
    expect(count()).toEqual({ joint: 0, entry: 1, user: 1 });
  });
});
