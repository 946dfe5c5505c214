import { createMemoryStores } from "@portcullis/store-memory";
import { createFakeClock } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { createAuth } from "../create-auth/create-auth.js";
import { createArgon2Hasher } from "../hashing/argon2-hasher.js";
import type { AuthStores } from "../options/options.js";
import type { JointStores } from "../ports/joint-stores.js";
import { silentLogger } from "../ports/logger.js";

const PASSWORD = "correct horse battery staple";

/** `logged(name, store, methods)`: a copy of `store` whose `methods` push `name.method` to `calls` first. */
const loggedCopy =
  (calls: string[]) =>
  <T extends object>(name: string, store: T, methods: (keyof T)[]): T => {
    const copy = { ...store };
    for (const method of methods)
      (copy as Record<keyof T, unknown>)[method] = (...args: unknown[]) => {
        calls.push(`${name}.${String(method)}`);
        return (store[method] as (...args: unknown[]) => unknown).apply(store, args);
      };
    return copy;
  };

/** An auth on `stores` with a registered user, signed in: the auth and the sign-in. */
async function signedInOn(stores: AuthStores, calls: string[]) {
  const auth = createAuth({
    secret: "joint-stores-test-secret-8Hq2vLr5NxTz3WcKp7YdFm4BsGj6QeUa",
    stores,
    logger: silentLogger,
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    email: { enabled: false },
  });
  await auth.register({}, { email: "ada@example.test", password: PASSWORD });
  calls.length = 0;
  const login = await auth.login({}, { email: "ada@example.test", password: PASSWORD });
  if (login.twoFactorRequired) throw new Error("second factor required");
  return { auth, login };
}

/**
 * A store set of separate objects (copies of the memory stores, none the same object as another
 * or as the composite) that logs each write and read of a sign-in, with `joint` as given: the core
 * uses the composite when the host gives one and never compares one store with another.
 */
function loggedStores(joint: "with joint" | "without joint") {
  const memory = createMemoryStores({ clock: createFakeClock(), sweepIntervalMs: 0 });
  const calls: string[] = [];
  const logged = loggedCopy(calls);
  const composite: JointStores = {
    async allowAccessTokenWithSession(jti, entry, ttlMs, session, sessionTtlMs) {
      calls.push("joint.allowAccessTokenWithSession");
      await memory.allowlist.allowAccessToken(jti, entry, ttlMs);
      await memory.sessions.createSession(session, sessionTtlMs);
    },
    async findAllowedAccessTokenWithUser(jti) {
      calls.push("joint.findAllowedAccessTokenWithUser");
      const entry = await memory.allowlist.findAllowedAccessToken(jti);
      return entry && { entry, user: await memory.users.findById(entry.userId) };
    },
  };
  const stores: AuthStores = {
    ...memory,
    sessions: logged("sessions", memory.sessions, ["createSession"]),
    allowlist: logged("allowlist", memory.allowlist, ["allowAccessToken", "findAllowedAccessToken"]),
    ...(joint === "with joint" ? { joint: composite } : {}),
  };
  return { stores, calls };
}

/**
 * Memory stores whose sessions and allowlist log their writes, with a joint rotation (that logs
 * itself, then makes the same writes on the memory stores, or fails) whose `sessions` and
 * `allowlist` are the configured ones, other objects, or absent.
 */
function rotationStores(
  which: "the same stores" | "other sessions" | "other allowlist" | "names none",
  outcome: "works" | "fails" = "works",
) {
  const memory = createMemoryStores({ clock: createFakeClock(), sweepIntervalMs: 0 });
  const calls: string[] = [];
  const logged = loggedCopy(calls);
  const sessions = logged("sessions", memory.sessions, ["rotateRefreshToken"]);
  const allowlist = logged("allowlist", memory.allowlist, ["allowAccessToken", "revokeAccessTokens"]);
  const joint: JointStores = {
    ...(which === "names none" ? {} : { sessions: which === "other sessions" ? { ...sessions } : sessions }),
    ...(which === "names none"
      ? {}
      : { allowlist: which === "other allowlist" ? { ...allowlist } : allowlist }),
    async rotateRefreshTokenWithAccessToken(sessionId, hash, next, ttlMs, intervalMs, limits, access) {
      calls.push("joint.rotateRefreshTokenWithAccessToken");
      if (outcome === "fails") throw new Error("the store failed");
      const before = await memory.sessions.getSession(sessionId);
      const result = await memory.sessions.rotateRefreshToken(
        sessionId,
        hash,
        next,
        ttlMs,
        intervalMs,
        limits,
      );
      if (result.status === "rotated") {
        await memory.allowlist.allowAccessToken(next.accessTokenJti, access.entry, access.ttlMs);
        if (before) await memory.allowlist.revokeAccessTokens([before.accessTokenJti]);
      }
      return result;
    },
  };
  return { stores: { ...memory, sessions, allowlist, joint } as AuthStores, calls };
}

/** Registers, signs in, then refreshes once: the logged calls of the refresh (its new token checked). */
async function refreshOnce(stores: AuthStores, calls: string[]) {
  const { auth, login } = await signedInOn(stores, calls);
  calls.length = 0;
  const refreshed = await auth.refresh({ token: login.refreshToken });
  const made = [...calls].sort();
  expect((await auth.authenticate({ token: refreshed.accessToken })).sessionId).toBe(login.sessionId);
  await expect(auth.authenticate({ token: login.accessToken })).rejects.toMatchObject({
    code: "ACCESS_TOKEN_INVALID",
  });
  return made;
}

/** Signs in and authenticates once: the logged calls of the sign-in's writes and of the read. */
async function signIn(stores: AuthStores, calls: string[]) {
  const { auth, login } = await signedInOn(stores, calls);
  const written = [...calls];
  calls.length = 0;
  const principal = await auth.authenticate({ token: login.accessToken });
  expect(principal.sessionId).toBe(login.sessionId);
  return { written, read: [...calls] };
}

describe("stores.joint", () => {
  it("login - with stores.joint, one joint write and one joint read; the stores' own calls are not made", async () => {
    const { stores, calls } = loggedStores("with joint");
    expect(await signIn(stores, calls)).toEqual({
      written: ["joint.allowAccessTokenWithSession"],
      read: ["joint.findAllowedAccessTokenWithUser"],
    });
  });

  it("login - without stores.joint, the allowlist's and the sessions' own calls", async () => {
    const { stores, calls } = loggedStores("without joint");
    expect(await signIn(stores, calls)).toEqual({
      written: ["allowlist.allowAccessToken", "sessions.createSession"],
      read: ["allowlist.findAllowedAccessToken"],
    });
  });

  it("refresh - joint.rotateRefreshTokenWithAccessToken is used when joint names the configured sessions and allowlist, or none", async () => {
    for (const which of ["the same stores", "names none"] as const) {
      const { stores, calls } = rotationStores(which);
      expect(await refreshOnce(stores, calls)).toEqual(["joint.rotateRefreshTokenWithAccessToken"]);
    }
  });

  it("refresh and login - a joint naming other sessions or allowlist objects (a wrapped store) is not used: the separate calls", async () => {
    for (const which of ["other sessions", "other allowlist"] as const) {
      const { stores, calls } = rotationStores(which);
      expect(await refreshOnce(stores, calls)).toEqual([
        "allowlist.allowAccessToken",
        "allowlist.revokeAccessTokens",
        "sessions.rotateRefreshToken",
      ]);
      const joint = stores.joint as JointStores;
      const { stores: signInStores, calls: signInCalls } = loggedStores("with joint");
      const named = { ...signInStores.joint, sessions: joint.sessions, allowlist: joint.allowlist };
      // Named stores that are not the configured ones: the sign-in writes through its own stores.
      expect(await signIn({ ...signInStores, joint: named }, signInCalls)).toEqual({
        written: ["allowlist.allowAccessToken", "sessions.createSession"],
        read: ["joint.findAllowedAccessTokenWithUser"],
      });
    }
  });

  it("refresh - a joint rotation that fails is DATABASE_FAILURE, with no separate calls after it", async () => {
    const { stores, calls } = rotationStores("the same stores", "fails");
    await expect(refreshOnce(stores, calls)).rejects.toMatchObject({ code: "DATABASE_FAILURE" });
    expect(calls).toEqual(["joint.rotateRefreshTokenWithAccessToken"]);
  });

  it("createAuth - a stores.joint that is not an object is refused at start-up, naming it", () => {
    const { stores } = loggedStores("without joint");
    expect(() =>
      createAuth({
        secret: "joint-stores-test-secret-8Hq2vLr5NxTz3WcKp7YdFm4BsGj6QeUa",
        stores: { ...stores, joint: 42 as unknown as JointStores },
        logger: silentLogger,
        email: { enabled: false },
      }),
    ).toThrow(/stores\.joint/);
  });
});
