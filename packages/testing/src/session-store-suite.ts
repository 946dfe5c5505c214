import type { SessionRotation } from "@portcullis/core";
import { expect } from "vitest";
import { byId, LONG_INTERVAL_MS, sessionContext, TTL_MS } from "./session-store-context.js";
import { SESSION_LIFETIME_TESTS } from "./session-store-lifetimes.js";
import { SESSION_ORGANIZATION_TESTS } from "./session-store-organizations.js";
import { concurrently, defineStoreSuite, elapse, expectMintedIds, uniqueId } from "./store-fixture.js";

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
      rotation,
      storedThenRotated,
    }) => {
      const stated = { ...rotation(), browser: "Chrome 120", ip: "198.51.100.1" };
      // The answer is checked to be `rotated` with the session and the rotation's fields.
      const { session, next } = await storedThenRotated({}, stated);
      const expected = { ...session, ...next };
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
      rotatedSession,
      present,
      expectEnded,
    }) => {
      const { session, rotations } = await rotatedSession(4);
      const old = rotations[0] as SessionRotation;
      await expectEnded(await present(session.id, old.refreshTokenHash), "reused", session);
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
      // On Redis the time is real: 400 ms of slack each way (150 ms failed once beside other files).
      const session = newSession();
      await store.createSession(session, 1_000);
      await elapse(fixture, 600);
      await store.rotateRefreshToken(session.id, session.refreshTokenHash, rotation(), 1_000);
      await elapse(fixture, 600);
      expect(await store.getSession(session.id)).not.toBeNull();
      await elapse(fixture, 500);
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
      fixture,
      rotatedSession,
      present,
      expectEnded,
    }) => {
      const { session } = await rotatedSession(1);
      await elapse(fixture, 400);
      await expectEnded(await present(session.id, session.refreshTokenHash, 300), "reused", session);
    },
    "rotateRefreshToken - a grandparent within the reuse interval is reuse: the session is gone": async ({
      rotatedSession,
      present,
      expectEnded,
    }) => {
      const { session } = await rotatedSession(2);
      const result = await present(session.id, session.refreshTokenHash, LONG_INTERVAL_MS);
      await expectEnded(result, "reused", session);
    },
    "rotateRefreshToken - a reuse interval of 0 (or none) makes the parent reuse at once": async ({
      rotatedSession,
      present,
      expectEnded,
    }) => {
      const { session } = await rotatedSession(1);
      await expectEnded(await present(session.id, session.refreshTokenHash, 0), "reused", session);
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
  ...SESSION_LIFETIME_TESTS,
  ...SESSION_ORGANIZATION_TESTS,
});
