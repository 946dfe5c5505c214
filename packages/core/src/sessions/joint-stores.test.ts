import { createMemoryStores } from "@portcullis/store-memory";
import { createFakeClock } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { createAuth } from "../create-auth/create-auth.js";
import { createArgon2Hasher } from "../hashing/argon2-hasher.js";
import type { AuthStores } from "../options/options.js";
import type { JointStores } from "../ports/joint-stores.js";
import { silentLogger } from "../ports/logger.js";

const PASSWORD = "correct horse battery staple";

/**
 * A store set of separate objects (copies of the memory stores, none the same object as another
 * or as the composite) that logs each write and read of a sign-in, with `joint` as given: the core
 * uses the composite when the host gives one and never compares one store with another.
 */
function loggedStores(joint: "with joint" | "without joint") {
  const memory = createMemoryStores({ clock: createFakeClock(), sweepIntervalMs: 0 });
  const calls: string[] = [];
  const logged = <T extends object>(name: string, store: T, methods: (keyof T)[]): T => {
    const copy = { ...store };
    for (const method of methods) {
      const original = store[method] as (...args: unknown[]) => unknown;
      (copy as Record<keyof T, unknown>)[method] = (...args: unknown[]) => {
        calls.push(`${name}.${String(method)}`);
        return original.apply(store, args);
      };
    }
    return copy;
  };
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

async function signIn(stores: AuthStores, calls: string[]) {
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
