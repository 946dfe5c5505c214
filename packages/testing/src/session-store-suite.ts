import type {
  SessionRecord,
  SessionRotation,
  SessionStore,
  SessionTtls,
  TokenRecord,
} from "@portcullis/core";
import { expect } from "vitest";
import { concurrently, defineStoreSuite, elapse, type StoreFixture, uniqueId } from "./store-fixture.js";

const TTLS: SessionTtls = { sessionTtlMs: 3_600_000, accessTokenTtlMs: 900_000 };

const newToken = (overrides: Partial<TokenRecord> = {}): TokenRecord => ({
  purpose: "password-reset",
  tokenHash: uniqueId("token"),
  userId: uniqueId("user"),
  expiresAt: 1_700_000_900_000,
  data: { email: "a@example.test", attempt: 2, remember: true, previous: null },
  ...overrides,
});

/** The store's claim methods: optional in the port, required of a store this suite passes. */
function claims(store: SessionStore) {
  const { claimToken, releaseToken } = store;
  if (!claimToken || !releaseToken) throw new Error("the store must implement claimToken and releaseToken");
  return { claimToken: claimToken.bind(store), releaseToken: releaseToken.bind(store) };
}

/** Saves a long-lived token, then a short-lived one for the same user, and lets the short one expire. */
async function longLivedFirst(store: SessionStore, fixture: StoreFixture<SessionStore>) {
  const userId = uniqueId("user");
  const long = newToken({ userId });
  await store.saveToken(long, 60_000);
  await store.saveToken(newToken({ userId }), 200);
  await elapse(fixture, 260);
  return { userId, long };
}

/** The store of one test, and helpers that make records for it. */
function sessionContext(fixture: StoreFixture<SessionStore>) {
  const store = fixture.store;
  /** A new session; ids come from the store's own minting functions when it has them. */
  const newSession = (overrides: Partial<SessionRecord> = {}): SessionRecord => {
    const userId = overrides.userId ?? uniqueId("user");
    const id = overrides.id ?? store.createSessionId?.(userId) ?? uniqueId("session");
    return {
      id,
      userId,
      browser: "Firefox 130",
      os: "Linux",
      ip: "203.0.113.7",
      createdAt: 1_700_000_000_000,
      lastActiveAt: 1_700_000_000_000,
      refreshTokenHash: uniqueId("hash"),
      accessTokenJti: store.createAccessTokenId?.(id) ?? uniqueId("jti"),
      ...overrides,
    };
  };
  /** A new session, created in the store with `TTLS`. */
  const storedSession = async (overrides: Partial<SessionRecord> = {}) => {
    const session = newSession(overrides);
    await store.createSession(session, TTLS);
    return session;
  };
  const rotation = (sessionId: string): SessionRotation => ({
    refreshTokenHash: uniqueId("hash"),
    accessTokenJti: store.createAccessTokenId?.(sessionId) ?? uniqueId("jti"),
    lastActiveAt: 1_700_000_100_000,
  });
  const allowed = (session: SessionRecord) => ({ userId: session.userId, sessionId: session.id });
  /** Presents `hash` as the refresh token of session `sessionId`, with a new rotation: the store's answer. */
  const present = (sessionId: string, hash: string) =>
    store.rotateRefreshToken(sessionId, hash, rotation(sessionId), TTLS);
  /** Creates (with `TTLS`, in order) one session per name, all of one new user: the user id and the sessions by name. */
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
      const next = rotation(session.id);
      expect((await store.rotateRefreshToken(session.id, current, next, TTLS)).status).toBe("rotated");
      rotations.push(next);
      current = next.refreshTokenHash;
    }
    return { session, rotations };
  };
  return {
    store,
    fixture,
    newSession,
    storedSession,
    rotation,
    allowed,
    present,
    sessionsOfOneUser,
    rotatedSession,
  };
}

/**
 * The executable contract of `SessionStore` (see its TSDoc in @portcullis/core). Time-dependent
 * tests use TTLs of a few hundred milliseconds, so a store without a movable clock waits about
 * 2 s in all.
 */
export const runSessionStoreSuite = defineStoreSuite("SessionStore", sessionContext, {
  "": {
    "createSessionId / createAccessTokenId - when a store mints ids, they are unique base64url of 16-64 characters":
      ({ store }) => {
        const userId = uniqueId("user");
        const ids = Array.from({ length: 200 }, () => store.createSessionId?.(userId)).filter(
          (id) => id !== undefined,
        );
        const jtis = [...ids, uniqueId("session")]
          .map((id) => store.createAccessTokenId?.(id))
          .filter((jti) => jti !== undefined);
        for (const id of [...ids, ...jtis]) expect(id).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
        expect(new Set([...ids, ...jtis]).size).toBe(ids.length + jtis.length);
      },
  },
  sessions: {
    "createSession - stores the session and allowlists its access token": async ({
      store,
      newSession,
      allowed,
    }) => {
      const session = newSession();
      await store.createSession(session, TTLS);
      expect(await store.getSession(session.id)).toEqual(session);
      expect(await store.findAllowedAccessToken(session.accessTokenJti)).toEqual(allowed(session));
    },
    "getSession - null when absent": async ({ store }) => {
      expect(await store.getSession(uniqueId("missing"))).toBeNull();
    },
    "findAllowedAccessToken - null for a jti that was never allowed": async ({ store }) => {
      expect(await store.findAllowedAccessToken(uniqueId("missing"))).toBeNull();
    },
    "listSessions - the user's live sessions only; empty for a user without any": async ({
      store,
      newSession,
      sessionsOfOneUser,
    }) => {
      const { userId, a, b } = await sessionsOfOneUser("a", "b");
      await store.createSession(newSession(), TTLS);
      const listed = await store.listSessions(userId);
      expect(listed.sort((x, y) => x.id.localeCompare(y.id))).toEqual(
        [a, b].sort((x, y) => x.id.localeCompare(y.id)),
      );
      expect(await store.listSessions(uniqueId("user"))).toEqual([]);
    },
    "createSession - expired sessions and allowlist entries read as absent everywhere": async ({
      store,
      fixture,
      newSession,
      present,
    }) => {
      const session = newSession();
      await store.createSession(session, { sessionTtlMs: 600, accessTokenTtlMs: 200 });
      await elapse(fixture, 260);
      expect(await store.findAllowedAccessToken(session.accessTokenJti)).toBeNull();
      expect(await store.getSession(session.id)).toEqual(session);
      expect(await store.listSessions(session.userId)).toHaveLength(1);
      await elapse(fixture, 400);
      expect(await store.getSession(session.id)).toBeNull();
      expect(await store.listSessions(session.userId)).toEqual([]);
      expect(await present(session.id, session.refreshTokenHash)).toEqual({ status: "invalid" });
      expect(await store.deleteSession(session.id)).toBeNull();
      expect(await store.deleteUserSessions(session.userId)).toBe(0);
    },
    "listSessions / deleteUserSessions - also find a longer-lived session created before a shorter-lived one":
      async ({ store, fixture, newSession }) => {
        const userId = uniqueId("user");
        const long = newSession({ userId });
        await store.createSession(long, TTLS);
        await store.createSession(newSession({ userId }), { sessionTtlMs: 200, accessTokenTtlMs: 200 });
        await elapse(fixture, 260);
        expect(await store.listSessions(userId)).toEqual([long]);
        expect(await store.deleteUserSessions(userId)).toBe(1);
        expect(await store.findAllowedAccessToken(long.accessTokenJti)).toBeNull();
      },
    "deleteSession - removes the session and its allowlisted token and returns the record": async ({
      store,
      allowed,
      sessionsOfOneUser,
    }) => {
      const { userId, session, sibling } = await sessionsOfOneUser("session", "sibling");
      expect(await store.deleteSession(session.id)).toEqual(session);
      expect(await store.getSession(session.id)).toBeNull();
      expect(await store.findAllowedAccessToken(session.accessTokenJti)).toBeNull();
      expect(await store.listSessions(userId)).toEqual([sibling]);
      expect(await store.findAllowedAccessToken(sibling.accessTokenJti)).toEqual(allowed(sibling));
    },
    "deleteSession - null when absent (also when already deleted)": async ({ store, storedSession }) => {
      const session = await storedSession();
      await store.deleteSession(session.id);
      expect(await store.deleteSession(session.id)).toBeNull();
      expect(await store.deleteSession(uniqueId("missing"))).toBeNull();
    },
    "deleteUserSessions - removes the user's sessions except the one named, with their access tokens":
      async ({ store, allowed, sessionsOfOneUser }) => {
        const { userId, keep, first, second } = await sessionsOfOneUser("keep", "first", "second");
        const drop = [first, second];
        expect(await store.deleteUserSessions(userId, keep.id)).toBe(2);
        expect(await store.listSessions(userId)).toEqual([keep]);
        for (const session of drop) {
          expect(await store.getSession(session.id)).toBeNull();
          expect(await store.findAllowedAccessToken(session.accessTokenJti)).toBeNull();
        }
        expect(await store.findAllowedAccessToken(keep.accessTokenJti)).toEqual(allowed(keep));
      },
    "deleteUserSessions - without an exception removes them all; 0 for a user without sessions": async ({
      store,
      sessionsOfOneUser,
    }) => {
      const { userId, first, second } = await sessionsOfOneUser("first", "second");
      const sessions = [first, second];
      expect(await store.deleteUserSessions(userId)).toBe(2);
      expect(await store.listSessions(userId)).toEqual([]);
      for (const session of sessions)
        expect(await store.findAllowedAccessToken(session.accessTokenJti)).toBeNull();
      expect(await store.deleteUserSessions(userId)).toBe(0);
      expect(await store.deleteUserSessions(uniqueId("user"))).toBe(0);
    },
    "deleteUserSessions - never touches another user's sessions": async ({ store, newSession, allowed }) => {
      const userId = uniqueId("user");
      const mine = newSession({ userId });
      const other = newSession();
      await store.createSession(mine, TTLS);
      await store.createSession(other, TTLS);
      expect(await store.deleteUserSessions(userId)).toBe(1);
      expect(await store.getSession(other.id)).toEqual(other);
      expect(await store.listSessions(other.userId)).toEqual([other]);
      expect(await store.findAllowedAccessToken(other.accessTokenJti)).toEqual(allowed(other));
    },
  },
  "refresh-token rotation": {
    "rotateRefreshToken - the current hash rotates: new hash and jti current, old jti off the allowlist":
      async ({ store, storedSession, rotation, allowed }) => {
        const session = await storedSession();
        const next = { ...rotation(session.id), browser: "Chrome 120", ip: "198.51.100.1" };
        const result = await store.rotateRefreshToken(session.id, session.refreshTokenHash, next, TTLS);
        const expected = { ...session, ...next };
        expect(result).toEqual({ status: "rotated", session: expected });
        expect(await store.getSession(session.id)).toEqual(expected);
        expect(await store.listSessions(session.userId)).toEqual([expected]);
        expect(await store.findAllowedAccessToken(session.accessTokenJti)).toBeNull();
        expect(await store.findAllowedAccessToken(next.accessTokenJti)).toEqual(allowed(session));
      },
    "rotateRefreshToken - the new hash is current: it rotates again": async ({ store, rotatedSession }) => {
      const { session, rotations } = await rotatedSession(3);
      const last = rotations.at(-1) as SessionRotation;
      expect(await store.getSession(session.id)).toMatchObject({
        refreshTokenHash: last.refreshTokenHash,
        accessTokenJti: last.accessTokenJti,
      });
      for (const earlier of rotations.slice(0, -1))
        expect(await store.findAllowedAccessToken(earlier.accessTokenJti)).toBeNull();
    },
    "rotateRefreshToken - the hash just replaced is reuse: the session and its access token are gone":
      async ({ store, rotatedSession, present }) => {
        const { session, rotations } = await rotatedSession(1);
        const current = rotations[0] as SessionRotation;
        const result = await present(session.id, session.refreshTokenHash);
        expect(result.status).toBe("reused");
        if (result.status === "reused") expect(result.session).toMatchObject({ id: session.id });
        expect(await store.getSession(session.id)).toBeNull();
        expect(await store.listSessions(session.userId)).toEqual([]);
        expect(await store.findAllowedAccessToken(current.accessTokenJti)).toBeNull();
        expect(await present(session.id, current.refreshTokenHash)).toEqual({ status: "invalid" });
      },
    "rotateRefreshToken - a hash from several rotations back is reuse too": async ({
      store,
      rotatedSession,
      present,
    }) => {
      const { session, rotations } = await rotatedSession(4);
      const current = rotations.at(-1) as SessionRotation;
      const old = rotations[0] as SessionRotation;
      const result = await present(session.id, old.refreshTokenHash);
      expect(result.status).toBe("reused");
      expect(await store.getSession(session.id)).toBeNull();
      expect(await store.findAllowedAccessToken(current.accessTokenJti)).toBeNull();
    },
    "rotateRefreshToken - a never-seen hash is invalid and changes nothing": async ({
      store,
      allowed,
      rotatedSession,
      present,
    }) => {
      const { session, rotations } = await rotatedSession(1);
      const before = await store.getSession(session.id);
      expect(await present(session.id, uniqueId("hash"))).toEqual({ status: "invalid" });
      expect(await store.getSession(session.id)).toEqual(before);
      expect(await store.findAllowedAccessToken(rotations[0]?.accessTokenJti ?? "")).toEqual(
        allowed(session),
      );
    },
    "rotateRefreshToken - an unknown session is invalid": async ({ store, storedSession, rotation }) => {
      const session = await storedSession();
      expect(
        await store.rotateRefreshToken(
          uniqueId("missing"),
          session.refreshTokenHash,
          rotation(session.id),
          TTLS,
        ),
      ).toEqual({ status: "invalid" });
      expect(await store.getSession(session.id)).toEqual(session);
    },
    "rotateRefreshToken - another session's hashes are invalid and touch neither session": async ({
      store,
      storedSession,
      allowed,
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
      expect(await store.findAllowedAccessToken(session.accessTokenJti)).toEqual(allowed(session));
      expect(await store.getSession(other.id)).toEqual(otherNow);
    },
    "rotateRefreshToken - 20 concurrent calls with the current hash: exactly one rotates": async ({
      store,
      storedSession,
      rotation,
    }) => {
      const session = await storedSession();
      const nexts = Array.from({ length: 20 }, () => rotation(session.id));
      const results = await concurrently(20, (i) =>
        store.rotateRefreshToken(session.id, session.refreshTokenHash, nexts[i] as SessionRotation, TTLS),
      );
      const rotated = results.filter((result) => result.status === "rotated");
      expect(rotated).toHaveLength(1);
      for (const result of results) expect(["rotated", "reused", "invalid"]).toContain(result.status);
      const [winner] = rotated;
      if (winner?.status === "rotated")
        expect(nexts.map((next) => next.refreshTokenHash)).toContain(winner.session.refreshTokenHash);
    },
    "rotateRefreshToken - extends the session by sessionTtlMs from now; the new jti lives accessTokenTtlMs":
      async ({ store, fixture, newSession, rotation }) => {
        const session = newSession();
        await store.createSession(session, { sessionTtlMs: 400, accessTokenTtlMs: 400 });
        await elapse(fixture, 250);
        const next = rotation(session.id);
        await store.rotateRefreshToken(session.id, session.refreshTokenHash, next, {
          sessionTtlMs: 400,
          accessTokenTtlMs: 150,
        });
        await elapse(fixture, 250);
        expect(await store.getSession(session.id)).not.toBeNull();
        expect(await store.findAllowedAccessToken(next.accessTokenJti)).toBeNull();
        await elapse(fixture, 200);
        expect(await store.getSession(session.id)).toBeNull();
      },
  },
  "single-use tokens": {
    "consumeToken - returns the record once, then null": async ({ store }) => {
      const token = newToken();
      await store.saveToken(token, 60_000);
      expect(await store.consumeToken(token.purpose, token.tokenHash)).toEqual(token);
      expect(await store.consumeToken(token.purpose, token.tokenHash)).toBeNull();
    },
    "consumeToken - null for an unknown hash, and for the right hash with another purpose": async ({
      store,
    }) => {
      const token = newToken();
      await store.saveToken(token, 60_000);
      expect(await store.consumeToken(token.purpose, uniqueId("token"))).toBeNull();
      expect(await store.consumeToken("email-verification", token.tokenHash)).toBeNull();
      expect(await store.consumeToken(token.purpose, token.tokenHash)).toEqual(token);
    },
    "consumeToken - 20 concurrent calls: exactly one gets the record": async ({ store }) => {
      const token = newToken();
      await store.saveToken(token, 60_000);
      const results = await concurrently(20, () => store.consumeToken(token.purpose, token.tokenHash));
      expect(results.filter((result) => result !== null)).toEqual([token]);
    },
    "claimToken - 20 concurrent claims: exactly one gets the record; the token stays stored": async ({
      store,
    }) => {
      const { claimToken } = claims(store);
      const token = newToken();
      await store.saveToken(token, 60_000);
      const results = await concurrently(20, () => claimToken(token.purpose, token.tokenHash, 60_000));
      expect(results.filter((result) => result !== null)).toEqual([token]);
      expect(await store.consumeToken(token.purpose, token.tokenHash)).toEqual(token);
      expect(await claimToken(token.purpose, token.tokenHash, 60_000)).toBeNull();
    },
    "claimToken - null for an unknown hash, another purpose and an expired token": async ({
      store,
      fixture,
    }) => {
      const { claimToken } = claims(store);
      const token = newToken();
      const short = newToken();
      await store.saveToken(token, 60_000);
      await store.saveToken(short, 200);
      expect(await claimToken(token.purpose, uniqueId("token"), 60_000)).toBeNull();
      expect(await claimToken("email-verification", token.tokenHash, 60_000)).toBeNull();
      await elapse(fixture, 260);
      expect(await claimToken(short.purpose, short.tokenHash, 60_000)).toBeNull();
      expect(await claimToken(token.purpose, token.tokenHash, 60_000)).toEqual(token);
    },
    "claimToken - the claim ends after leaseMs: the token can be claimed again": async ({
      store,
      fixture,
    }) => {
      const { claimToken } = claims(store);
      const token = newToken();
      await store.saveToken(token, 60_000);
      expect(await claimToken(token.purpose, token.tokenHash, 300)).toEqual(token);
      await elapse(fixture, 100);
      expect(await claimToken(token.purpose, token.tokenHash, 300)).toBeNull();
      await elapse(fixture, 300);
      expect(await claimToken(token.purpose, token.tokenHash, 60_000)).toEqual(token);
      expect(await claimToken(token.purpose, token.tokenHash, 60_000)).toBeNull();
    },
    "releaseToken - the token can be claimed again at once; a no-op for an unknown token": async ({
      store,
    }) => {
      const { claimToken, releaseToken } = claims(store);
      const token = newToken();
      await store.saveToken(token, 60_000);
      expect(await claimToken(token.purpose, token.tokenHash, 60_000)).toEqual(token);
      await releaseToken(token.purpose, token.tokenHash);
      expect(await claimToken(token.purpose, token.tokenHash, 60_000)).toEqual(token);
      await releaseToken(token.purpose, uniqueId("token"));
      await releaseToken(token.purpose, token.tokenHash);
      expect(await store.consumeToken(token.purpose, token.tokenHash)).toEqual(token);
      await releaseToken(token.purpose, token.tokenHash);
      expect(await claimToken(token.purpose, token.tokenHash, 60_000)).toBeNull();
    },
    "saveToken - saving a claimed token again drops the claim; deleteUserTokens deletes claimed ones":
      async ({ store }) => {
        const { claimToken } = claims(store);
        const token = newToken();
        await store.saveToken(token, 60_000);
        expect(await claimToken(token.purpose, token.tokenHash, 60_000)).toEqual(token);
        await store.saveToken(token, 60_000);
        expect(await claimToken(token.purpose, token.tokenHash, 60_000)).toEqual(token);
        expect(await store.deleteUserTokens(token.userId, token.purpose)).toBe(1);
        expect(await claimToken(token.purpose, token.tokenHash, 60_000)).toBeNull();
        expect(await store.consumeToken(token.purpose, token.tokenHash)).toBeNull();
      },
    "saveToken - the record reads as absent after ttlMs; longer-lived ones stay": async ({
      store,
      fixture,
    }) => {
      const userId = uniqueId("user");
      const short = newToken({ userId });
      const long = newToken({ userId });
      await store.saveToken(long, 60_000);
      await store.saveToken(short, 200);
      await elapse(fixture, 260);
      expect(await store.consumeToken(short.purpose, short.tokenHash)).toBeNull();
      expect(await store.consumeToken(long.purpose, long.tokenHash)).toEqual(long);
    },
    "saveToken - without replaceOthers, the user's earlier tokens stay": async ({ store }) => {
      const userId = uniqueId("user");
      const first = newToken({ userId });
      const second = newToken({ userId });
      await store.saveToken(first, 60_000);
      await store.saveToken(second, 60_000);
      expect(await store.consumeToken(first.purpose, first.tokenHash)).toEqual(first);
      expect(await store.consumeToken(second.purpose, second.tokenHash)).toEqual(second);
    },
    "saveToken - replaceOthers deletes the user's other tokens of that purpose only": async ({ store }) => {
      const userId = uniqueId("user");
      const older = newToken({ userId });
      const otherPurpose = newToken({ userId, purpose: "email-verification" });
      const otherUser = newToken();
      for (const token of [older, otherPurpose, otherUser]) await store.saveToken(token, 60_000);
      const newer = newToken({ userId });
      await store.saveToken(newer, 60_000, { replaceOthers: true });
      expect(await store.consumeToken(older.purpose, older.tokenHash)).toBeNull();
      expect(await store.consumeToken(newer.purpose, newer.tokenHash)).toEqual(newer);
      expect(await store.consumeToken(otherPurpose.purpose, otherPurpose.tokenHash)).toEqual(otherPurpose);
      expect(await store.consumeToken(otherUser.purpose, otherUser.tokenHash)).toEqual(otherUser);
    },
    "saveToken - replaceOthers also finds a longer-lived token saved before a shorter-lived one": async ({
      store,
      fixture,
    }) => {
      const { userId, long } = await longLivedFirst(store, fixture);
      const newest = newToken({ userId });
      await store.saveToken(newest, 60_000, { replaceOthers: true });
      expect(await store.consumeToken(long.purpose, long.tokenHash)).toBeNull();
      expect(await store.consumeToken(newest.purpose, newest.tokenHash)).toEqual(newest);
    },
    "deleteUserTokens - deletes that user's tokens of that purpose and says how many": async ({ store }) => {
      const userId = uniqueId("user");
      const tokens = [newToken({ userId }), newToken({ userId })];
      const otherPurpose = newToken({ userId, purpose: "email-verification" });
      const otherUser = newToken();
      for (const token of [...tokens, otherPurpose, otherUser]) await store.saveToken(token, 60_000);
      expect(await store.deleteUserTokens(userId, "password-reset")).toBe(2);
      for (const token of tokens) expect(await store.consumeToken(token.purpose, token.tokenHash)).toBeNull();
      expect(await store.consumeToken(otherPurpose.purpose, otherPurpose.tokenHash)).toEqual(otherPurpose);
      expect(await store.consumeToken(otherUser.purpose, otherUser.tokenHash)).toEqual(otherUser);
    },
    "deleteUserTokens - 0 when the user has none (also after they were consumed)": async ({ store }) => {
      const token = newToken();
      await store.saveToken(token, 60_000);
      await store.consumeToken(token.purpose, token.tokenHash);
      expect(await store.deleteUserTokens(token.userId, token.purpose)).toBe(0);
      expect(await store.deleteUserTokens(uniqueId("user"), "password-reset")).toBe(0);
    },
    "deleteUserTokens - also finds a longer-lived token saved before a shorter-lived one": async ({
      store,
      fixture,
    }) => {
      const { userId, long } = await longLivedFirst(store, fixture);
      expect(await store.deleteUserTokens(userId, long.purpose)).toBe(1);
      expect(await store.consumeToken(long.purpose, long.tokenHash)).toBeNull();
    },
  },
  copies: {
    "getSession / listSessions / findAllowedAccessToken / rotateRefreshToken - returned objects are copies":
      async ({ store, storedSession, rotation, allowed }) => {
        const session = await storedSession();
        const read = await store.getSession(session.id);
        if (read) read.browser = "changed";
        const [listed] = await store.listSessions(session.userId);
        if (listed) listed.os = "changed";
        const entry = await store.findAllowedAccessToken(session.accessTokenJti);
        if (entry) entry.userId = "changed";
        expect(await store.getSession(session.id)).toEqual(session);
        expect(await store.findAllowedAccessToken(session.accessTokenJti)).toEqual(allowed(session));
        const next = rotation(session.id);
        const result = await store.rotateRefreshToken(session.id, session.refreshTokenHash, next, TTLS);
        if (result.status === "rotated") result.session.ip = "changed";
        expect(await store.getSession(session.id)).toEqual({ ...session, ...next });
      },
    "createSession - the record passed in is copied: mutating it later does not change the store": async ({
      store,
      newSession,
    }) => {
      const session = newSession();
      const original = { ...session };
      await store.createSession(session, TTLS);
      session.os = "changed";
      session.refreshTokenHash = "changed";
      expect(await store.getSession(session.id)).toEqual(original);
    },
    "saveToken / consumeToken - token records are copies both ways": async ({ store }) => {
      const token = newToken();
      const original = structuredClone(token);
      await store.saveToken(token, 60_000);
      if (token.data) token.data.email = "changed@example.test";
      token.userId = "changed";
      expect(await store.consumeToken(original.purpose, original.tokenHash)).toEqual(original);
    },
  },
});
