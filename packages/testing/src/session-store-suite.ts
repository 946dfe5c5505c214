import type { SessionLimits, SessionRecord, SessionRotation, SessionStore } from "@portcullis/core";
import { expect } from "vitest";
import {
  concurrently,
  defineStoreSuite,
  elapse,
  expectMintedIds,
  type StoreFixture,
  sampleSession,
  uniqueId,
} from "./store-fixture.js";

/** A session's lifetime in these tests (one hour), in milliseconds. */
const TTL_MS = 3_600_000;

/** A reuse interval no test outlasts (one minute), in milliseconds. */
const LONG_INTERVAL_MS = 60_000;

/**
 * The lifetimes of the lifetime tests, in milliseconds: short, since a store without a movable
 * clock waits them out in real time; each step leaves 200 ms for a round trip.
 */
const LIMITS: SessionLimits = { idleTimeoutMs: 600, absoluteLifetimeMs: 1_000 };

/** Sorted by id, to compare lists a store returns in no particular order. */
const byId = (records: SessionRecord[]) => [...records].sort((x, y) => x.id.localeCompare(y.id));

/** The rotation of a `rotated` answer (and fails the test on any other). */
function rotationOf(result: Awaited<ReturnType<SessionStore["rotateRefreshToken"]>>): SessionRecord {
  expect(result.status).toBe("rotated");
  if (result.status !== "rotated") throw new Error(`expected rotated, got ${result.status}`);
  return result.session;
}

/** The store of one test, and helpers that make records for it. */
function sessionContext(fixture: StoreFixture<SessionStore>) {
  const store = fixture.store;
  /** A new session; ids come from the store's own minting functions when it has them. */
  const newSession = (overrides: Partial<SessionRecord> = {}) => sampleSession(store, overrides);
  /** A new session, created in the store with `TTL_MS`. */
  const storedSession = async (overrides: Partial<SessionRecord> = {}) => {
    const session = newSession(overrides);
    await store.createSession(session, TTL_MS);
    return session;
  };
  const rotation = (): SessionRotation => ({
    refreshTokenHash: uniqueId("hash"),
    accessTokenJti: uniqueId("jti"),
    lastActiveAt: 1_700_000_100_000,
  });
  /** Presents `hash` as the refresh token of session `sessionId`, with a new rotation: the store's answer. */
  const present = (sessionId: string, hash: string, reuseIntervalMs?: number) =>
    store.rotateRefreshToken(sessionId, hash, rotation(), TTL_MS, reuseIntervalMs);
  /** Creates (with `TTL_MS`, in order) one session per name, all of one new user: the user id and the sessions by name. */
  const sessionsOfOneUser = async <N extends string>(...names: N[]) => {
    const userId = uniqueId("user");
    const sessions = {} as Record<N, SessionRecord>;
    for (const name of names) {
      sessions[name] = await storedSession({ userId });
    }
    return { userId, ...sessions };
  };
  /** Creates a session and rotates it `times` times; returns the session and every rotation in order. */
  const rotatedSession = async (times: number) => {
    const session = await storedSession();
    const rotations: SessionRotation[] = [];
    let current = session.refreshTokenHash;
    for (let i = 0; i < times; i++) {
      const next = rotation();
      expect((await store.rotateRefreshToken(session.id, current, next, TTL_MS)).status).toBe("rotated");
      rotations.push(next);
      current = next.refreshTokenHash;
    }
    return { session, rotations };
  };
  /** A session created now on the store's clock (`fixture.now`), as the core creates one. */
  const sessionNow = async (overrides: Partial<SessionRecord> = {}) => {
    const now = await (fixture.now ?? Date.now)();
    return storedSession({ createdAt: now, lastActiveAt: now, ...overrides });
  };
  /** Presents `hash` of session `sessionId` with `LIMITS` (and `reuseIntervalMs`): the store's answer. */
  const presentLimited = (sessionId: string, hash: string, next = rotation(), reuseIntervalMs?: number) =>
    store.rotateRefreshToken(sessionId, hash, next, TTL_MS, reuseIntervalMs, LIMITS);
  return {
    store,
    fixture,
    sessionNow,
    presentLimited,
    newSession,
    storedSession,
    rotation,
    present,
    sessionsOfOneUser,
    rotatedSession,
  };
}

/**
 * The executable contract of `SessionStore` (see its TSDoc in @portcullis/core). Time-dependent
 * tests use TTLs of a few hundred milliseconds, so a store without a movable clock waits about
 * 1.5 s in all.
 */
export const runSessionStoreSuite = defineStoreSuite("SessionStore", sessionContext, {
  "": {
    "createSessionId - when a store mints ids, they are unique base64url of 16-64 characters": ({
      store,
    }) => {
      const userId = uniqueId("user");
      expectMintedIds(Array.from({ length: 200 }, () => store.createSessionId?.(userId)));
    },
  },
  sessions: {
    "createSession - stores the session, its access token's jti included": async ({ store, newSession }) => {
      const session = newSession();
      await store.createSession(session, TTL_MS);
      expect(await store.getSession(session.id)).toEqual(session);
    },
    "getSession - null when absent": async ({ store }) => {
      expect(await store.getSession(uniqueId("missing"))).toBeNull();
    },
    "listSessions - the user's live sessions only; empty for a user without any": async ({
      store,
      newSession,
      sessionsOfOneUser,
    }) => {
      const { userId, a, b } = await sessionsOfOneUser("a", "b");
      await store.createSession(newSession(), TTL_MS);
      expect(byId(await store.listSessions(userId))).toEqual(byId([a, b]));
      expect(await store.listSessions(uniqueId("user"))).toEqual([]);
    },
    "createSession - an expired session reads as absent everywhere": async ({
      store,
      fixture,
      newSession,
      present,
    }) => {
      const session = newSession();
      await store.createSession(session, 400);
      await elapse(fixture, 250);
      expect(await store.getSession(session.id)).toEqual(session);
      expect(await store.listSessions(session.userId)).toHaveLength(1);
      await elapse(fixture, 200);
      expect(await store.getSession(session.id)).toBeNull();
      expect(await store.listSessions(session.userId)).toEqual([]);
      expect(await present(session.id, session.refreshTokenHash)).toEqual({ status: "invalid" });
      expect(await store.deleteSession(session.id)).toBeNull();
      expect(await store.deleteUserSessions(session.userId)).toEqual([]);
    },
    "listSessions / deleteUserSessions - also find a longer-lived session created before a shorter-lived one":
      async ({ store, fixture, newSession }) => {
        const userId = uniqueId("user");
        const long = newSession({ userId });
        await store.createSession(long, TTL_MS);
        await store.createSession(newSession({ userId }), 200);
        await elapse(fixture, 260);
        expect(await store.listSessions(userId)).toEqual([long]);
        expect(await store.deleteUserSessions(userId)).toEqual([long]);
      },
    "deleteSession - removes the session and returns its record": async ({ store, sessionsOfOneUser }) => {
      const { userId, session, sibling } = await sessionsOfOneUser("session", "sibling");
      expect(await store.deleteSession(session.id)).toEqual(session);
      expect(await store.getSession(session.id)).toBeNull();
      expect(await store.listSessions(userId)).toEqual([sibling]);
      expect(await store.getSession(sibling.id)).toEqual(sibling);
    },
    "deleteSession - null when absent (also when already deleted)": async ({ store, storedSession }) => {
      const session = await storedSession();
      await store.deleteSession(session.id);
      expect(await store.deleteSession(session.id)).toBeNull();
      expect(await store.deleteSession(uniqueId("missing"))).toBeNull();
    },
    "deleteUserSessions - removes the user's sessions except the one named and returns their records":
      async ({ store, sessionsOfOneUser }) => {
        const { userId, keep, first, second } = await sessionsOfOneUser("keep", "first", "second");
        expect(byId(await store.deleteUserSessions(userId, keep.id))).toEqual(byId([first, second]));
        expect(await store.listSessions(userId)).toEqual([keep]);
        for (const session of [first, second]) expect(await store.getSession(session.id)).toBeNull();
      },
    "deleteUserSessions - without an exception removes them all; empty for a user without sessions": async ({
      store,
      sessionsOfOneUser,
    }) => {
      const { userId, first, second } = await sessionsOfOneUser("first", "second");
      expect(byId(await store.deleteUserSessions(userId))).toEqual(byId([first, second]));
      expect(await store.listSessions(userId)).toEqual([]);
      expect(await store.deleteUserSessions(userId)).toEqual([]);
      expect(await store.deleteUserSessions(uniqueId("user"))).toEqual([]);
    },
    "deleteUserSessions - returns the records as they are when deleted (after a rotation)": async ({
      store,
      rotatedSession,
    }) => {
      const { session } = await rotatedSession(2);
      const current = await store.getSession(session.id);
      expect(await store.deleteUserSessions(session.userId)).toEqual([current]);
    },
    "deleteUserSessions - never touches another user's sessions": async ({ store, newSession }) => {
      const userId = uniqueId("user");
      const mine = newSession({ userId });
      const other = newSession();
      await store.createSession(mine, TTL_MS);
      await store.createSession(other, TTL_MS);
      expect(await store.deleteUserSessions(userId)).toEqual([mine]);
      expect(await store.getSession(other.id)).toEqual(other);
      expect(await store.listSessions(other.userId)).toEqual([other]);
    },
    "deleteUserSessions - 10 concurrent calls: each session is deleted once, and none is left": async ({
      store,
      sessionsOfOneUser,
    }) => {
      const { userId, a, b, c } = await sessionsOfOneUser("a", "b", "c");
      const results = await concurrently(10, () => store.deleteUserSessions(userId));
      expect(byId(results.flat())).toEqual(byId([a, b, c]));
      expect(await store.listSessions(userId)).toEqual([]);
    },
  },
  "refresh-token rotation": {
    "rotateRefreshToken - the current hash rotates: the new hash, jti and stated fields are current": async ({
      store,
      storedSession,
      rotation,
    }) => {
      const session = await storedSession();
      const next = { ...rotation(), browser: "Chrome 120", ip: "198.51.100.1" };
      const result = await store.rotateRefreshToken(session.id, session.refreshTokenHash, next, TTL_MS);
      const expected = { ...session, ...next };
      expect(result).toEqual({ status: "rotated", session: expected });
      expect(await store.getSession(session.id)).toEqual(expected);
      expect(await store.listSessions(session.userId)).toEqual([expected]);
    },
    "rotateRefreshToken - the new hash is current: it rotates again": async ({ store, rotatedSession }) => {
      const { session, rotations } = await rotatedSession(3);
      const last = rotations.at(-1) as SessionRotation;
      expect(await store.getSession(session.id)).toMatchObject({
        refreshTokenHash: last.refreshTokenHash,
        accessTokenJti: last.accessTokenJti,
      });
    },
    "rotateRefreshToken - the hash just replaced is reuse: the session is gone, returned with its current jti":
      async ({ store, rotatedSession, present }) => {
        const { session, rotations } = await rotatedSession(1);
        const current = rotations[0] as SessionRotation;
        const result = await present(session.id, session.refreshTokenHash);
        expect(result.status).toBe("reused");
        if (result.status === "reused")
          expect(result.session).toMatchObject({ id: session.id, accessTokenJti: current.accessTokenJti });
        expect(await store.getSession(session.id)).toBeNull();
        expect(await store.listSessions(session.userId)).toEqual([]);
        expect(await present(session.id, current.refreshTokenHash)).toEqual({ status: "invalid" });
      },
    "rotateRefreshToken - a hash from several rotations back is reuse too": async ({
      store,
      rotatedSession,
      present,
    }) => {
      const { session, rotations } = await rotatedSession(4);
      const old = rotations[0] as SessionRotation;
      const result = await present(session.id, old.refreshTokenHash);
      expect(result.status).toBe("reused");
      expect(await store.getSession(session.id)).toBeNull();
    },
    "rotateRefreshToken - a never-seen hash is invalid and changes nothing": async ({
      store,
      rotatedSession,
      present,
    }) => {
      const { session } = await rotatedSession(1);
      const before = await store.getSession(session.id);
      expect(await present(session.id, uniqueId("hash"))).toEqual({ status: "invalid" });
      expect(await store.getSession(session.id)).toEqual(before);
    },
    "rotateRefreshToken - an unknown session is invalid": async ({ store, storedSession, rotation }) => {
      const session = await storedSession();
      expect(
        await store.rotateRefreshToken(uniqueId("missing"), session.refreshTokenHash, rotation(), TTL_MS),
      ).toEqual({ status: "invalid" });
      expect(await store.getSession(session.id)).toEqual(session);
    },
    "rotateRefreshToken - another session's hashes are invalid and touch neither session": async ({
      store,
      storedSession,
      rotatedSession,
      present,
    }) => {
      const userId = uniqueId("user");
      const { session: other, rotations } = await rotatedSession(1);
      const session = await storedSession({ userId });
      const otherNow = await store.getSession(other.id);
      for (const hash of [other.refreshTokenHash, rotations[0]?.refreshTokenHash ?? ""]) {
        expect(await present(session.id, hash)).toEqual({ status: "invalid" });
      }
      expect(await store.getSession(session.id)).toEqual(session);
      expect(await store.getSession(other.id)).toEqual(otherNow);
    },
    "rotateRefreshToken - 20 concurrent calls with the current hash: exactly one rotates": async ({
      store,
      storedSession,
      rotation,
    }) => {
      const session = await storedSession();
      const nexts = Array.from({ length: 20 }, () => rotation());
      const results = await concurrently(20, (i) =>
        store.rotateRefreshToken(session.id, session.refreshTokenHash, nexts[i] as SessionRotation, TTL_MS),
      );
      const rotated = results.filter((result) => result.status === "rotated");
      expect(rotated).toHaveLength(1);
      for (const result of results) expect(["rotated", "reused", "invalid"]).toContain(result.status);
      const [winner] = rotated;
      if (winner?.status === "rotated")
        expect(nexts.map((next) => next.refreshTokenHash)).toContain(winner.session.refreshTokenHash);
    },
    "rotateRefreshToken - extends the session by ttlMs from now": async ({
      store,
      fixture,
      newSession,
      rotation,
    }) => {
      const session = newSession();
      await store.createSession(session, 400);
      await elapse(fixture, 250);
      await store.rotateRefreshToken(session.id, session.refreshTokenHash, rotation(), 400);
      await elapse(fixture, 250);
      expect(await store.getSession(session.id)).not.toBeNull();
      await elapse(fixture, 200);
      expect(await store.getSession(session.id)).toBeNull();
    },
  },
  "refresh reuse interval": {
    "rotateRefreshToken - the parent within the reuse interval is current: the session as it is, unchanged":
      async ({ store, rotatedSession, present }) => {
        const { session, rotations } = await rotatedSession(1);
        const after = await store.getSession(session.id);
        const result = await present(session.id, session.refreshTokenHash, LONG_INTERVAL_MS);
        expect(result).toEqual({ status: "current", session: after });
        expect(await store.getSession(session.id)).toEqual(after);
        const current = rotations[0] as SessionRotation;
        expect((await present(session.id, current.refreshTokenHash, LONG_INTERVAL_MS)).status).toBe(
          "rotated",
        );
      },
    "rotateRefreshToken - the parent after the reuse interval is reuse: the session is gone": async ({
      store,
      fixture,
      rotatedSession,
      present,
    }) => {
      const { session } = await rotatedSession(1);
      await elapse(fixture, 400);
      expect((await present(session.id, session.refreshTokenHash, 300)).status).toBe("reused");
      expect(await store.getSession(session.id)).toBeNull();
    },
    "rotateRefreshToken - a grandparent within the reuse interval is reuse: the session is gone": async ({
      store,
      rotatedSession,
      present,
    }) => {
      const { session } = await rotatedSession(2);
      expect((await present(session.id, session.refreshTokenHash, LONG_INTERVAL_MS)).status).toBe("reused");
      expect(await store.getSession(session.id)).toBeNull();
    },
    "rotateRefreshToken - a reuse interval of 0 (or none) makes the parent reuse at once": async ({
      store,
      rotatedSession,
      present,
    }) => {
      const { session } = await rotatedSession(1);
      expect((await present(session.id, session.refreshTokenHash, 0)).status).toBe("reused");
      expect(await store.getSession(session.id)).toBeNull();
    },
    "rotateRefreshToken - 20 concurrent calls with one hash within the interval: one rotates, the rest are current":
      async ({ store, storedSession, rotation }) => {
        const session = await storedSession();
        const results = await concurrently(20, () =>
          store.rotateRefreshToken(
            session.id,
            session.refreshTokenHash,
            rotation(),
            TTL_MS,
            LONG_INTERVAL_MS,
          ),
        );
        const statuses = results.map((result) => result.status).sort();
        expect(statuses).toEqual([...Array(19).fill("current"), "rotated"]);
        const alive = await store.getSession(session.id);
        expect(alive).not.toBeNull();
        for (const result of results) if (result.status !== "invalid") expect(result.session).toEqual(alive);
      },
  },
  "session lifetimes": {
    "createSession - rememberMe false is kept, read back, listed and kept through a rotation": async ({
      store,
      storedSession,
      rotation,
    }) => {
      const session = await storedSession({ rememberMe: false });
      expect(await store.getSession(session.id)).toEqual(session);
      expect(await store.listSessions(session.userId)).toEqual([session]);
      const next = rotation();
      const rotated = await store.rotateRefreshToken(session.id, session.refreshTokenHash, next, TTL_MS);
      expect(rotated).toEqual({ status: "rotated", session: { ...session, ...next } });
      expect((await store.getSession(session.id))?.rememberMe).toBe(false);
      const remembered = await storedSession();
      expect((await store.getSession(remembered.id))?.rememberMe ?? true).toBe(true);
    },
    "rotateRefreshToken - within the idle timeout it rotates, and each rotation restarts the idle clock":
      async ({ store, fixture, sessionNow, presentLimited }) => {
        const session = await sessionNow();
        await elapse(fixture, 400);
        const first = rotationOf(await presentLimited(session.id, session.refreshTokenHash));
        await elapse(fixture, 400);
        expect((await presentLimited(session.id, first.refreshTokenHash)).status).toBe("rotated");
        expect(await store.getSession(session.id)).not.toBeNull();
      },
    "rotateRefreshToken - past the idle timeout: expired, the session deleted and returned as it was":
      async ({ store, fixture, sessionNow, presentLimited }) => {
        const session = await sessionNow({ rememberMe: false });
        await elapse(fixture, 800);
        expect(await presentLimited(session.id, session.refreshTokenHash)).toEqual({
          status: "expired",
          session,
        });
        expect(await store.getSession(session.id)).toBeNull();
        expect(await store.listSessions(session.userId)).toEqual([]);
        expect((await presentLimited(session.id, session.refreshTokenHash)).status).toBe("invalid");
      },
    "rotateRefreshToken - past the absolute lifetime: expired, however recently it was rotated": async ({
      store,
      fixture,
      sessionNow,
      presentLimited,
    }) => {
      const session = await sessionNow();
      await elapse(fixture, 400);
      const first = rotationOf(await presentLimited(session.id, session.refreshTokenHash));
      await elapse(fixture, 400);
      const second = rotationOf(await presentLimited(session.id, first.refreshTokenHash));
      await elapse(fixture, 300);
      const result = await presentLimited(session.id, second.refreshTokenHash);
      expect(result.status).toBe("expired");
      if (result.status === "expired") expect(result.session.accessTokenJti).toBe(second.accessTokenJti);
      expect(await store.getSession(session.id)).toBeNull();
    },
    "rotateRefreshToken - an expired session's parent within the reuse interval is expired, not current":
      async ({ store, fixture, sessionNow, presentLimited, rotation }) => {
        const session = await sessionNow();
        rotationOf(await presentLimited(session.id, session.refreshTokenHash));
        await elapse(fixture, 800);
        const result = await presentLimited(
          session.id,
          session.refreshTokenHash,
          rotation(),
          LONG_INTERVAL_MS,
        );
        expect(result.status).toBe("expired");
        expect(await store.getSession(session.id)).toBeNull();
      },
    "rotateRefreshToken - a never-seen hash on an expired session is invalid and deletes nothing": async ({
      store,
      fixture,
      sessionNow,
      presentLimited,
    }) => {
      const session = await sessionNow();
      await elapse(fixture, 800);
      expect((await presentLimited(session.id, uniqueId("hash"))).status).toBe("invalid");
      expect(await store.getSession(session.id)).toEqual(session);
    },
    "rotateRefreshToken - 20 concurrent calls past the idle timeout: one expired, the rest invalid, none rotated":
      async ({ store, fixture, sessionNow, presentLimited }) => {
        const session = await sessionNow();
        await elapse(fixture, 800);
        const results = await concurrently(20, () => presentLimited(session.id, session.refreshTokenHash));
        const statuses = results.map((result) => result.status).sort();
        expect(statuses).toEqual(["expired", ...Array(19).fill("invalid")]);
        expect(await store.getSession(session.id)).toBeNull();
      },
    "rotateRefreshToken - 20 concurrent calls within the idle timeout: one rotated, the rest current":
      async ({ store, fixture, sessionNow, presentLimited, rotation }) => {
        const session = await sessionNow();
        await elapse(fixture, 400);
        const results = await concurrently(20, () =>
          presentLimited(session.id, session.refreshTokenHash, rotation(), LONG_INTERVAL_MS),
        );
        const statuses = results.map((result) => result.status).sort();
        expect(statuses).toEqual([...Array(19).fill("current"), "rotated"]);
        expect(await store.getSession(session.id)).not.toBeNull();
      },
  },
  copies: {
    "getSession / listSessions / rotateRefreshToken / deleteSession - returned objects are copies": async ({
      store,
      storedSession,
      rotation,
    }) => {
      const session = await storedSession();
      const read = await store.getSession(session.id);
      if (read) read.browser = "changed";
      const [listed] = await store.listSessions(session.userId);
      if (listed) listed.os = "changed";
      expect(await store.getSession(session.id)).toEqual(session);
      const next = rotation();
      const result = await store.rotateRefreshToken(session.id, session.refreshTokenHash, next, TTL_MS);
      if (result.status === "rotated") result.session.ip = "changed";
      expect(await store.getSession(session.id)).toEqual({ ...session, ...next });
    },
    "createSession - the record passed in is copied: mutating it later does not change the store": async ({
      store,
      newSession,
    }) => {
      const session = newSession();
      const original = { ...session };
      await store.createSession(session, TTL_MS);
      session.os = "changed";
      session.refreshTokenHash = "changed";
      expect(await store.getSession(session.id)).toEqual(original);
    },
  },
  "back office": {
    "createSession - impersonatedBy is kept, read back, listed and kept through a rotation": async ({
      store,
      storedSession,
      rotation,
    }) => {
      const session = await storedSession({ impersonatedBy: "admin-1" });
      expect(await store.getSession(session.id)).toEqual(session);
      expect(await store.listSessions(session.userId)).toEqual([session]);
      const next = rotation();
      const rotated = await store.rotateRefreshToken(session.id, session.refreshTokenHash, next, TTL_MS);
      expect(rotated).toEqual({ status: "rotated", session: { ...session, ...next } });
      expect((await store.getSession(session.id))?.impersonatedBy).toBe("admin-1");
      const own = await storedSession();
      expect((await store.getSession(own.id))?.impersonatedBy).toBeUndefined();
    },
  },
});
