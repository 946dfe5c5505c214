// The store of one SessionStore conformance test and the helpers its tests share
// (session-store-suite.ts, session-store-lifetimes.ts, session-store-organizations.ts).
import type {
  RotationResult,
  SessionLimits,
  SessionRecord,
  SessionRotation,
  SessionStore,
} from "@portcullis/core";
import { expect } from "vitest";
import { elapse, type StoreFixture, sampleSession, uniqueId } from "./store-fixture.js";

/** A session's lifetime in these tests (one hour), in milliseconds. */
export const TTL_MS = 3_600_000;

/** A reuse interval no test outlasts (one minute), in milliseconds. */
export const LONG_INTERVAL_MS = 60_000;

/**
 * The lifetimes of the lifetime tests, in milliseconds: short, since a store without a movable
 * clock waits them out in real time; each step leaves 200 ms for a round trip.
 */
export const LIMITS: SessionLimits = { idleTimeoutMs: 600, absoluteLifetimeMs: 1_000 };

/** Sorted by id, to compare lists a store returns in no particular order. */
export const byId = (records: SessionRecord[]) => [...records].sort((x, y) => x.id.localeCompare(y.id));

/** The rotation of a `rotated` answer (and fails the test on any other). */
export function rotationOf(result: Awaited<ReturnType<SessionStore["rotateRefreshToken"]>>): SessionRecord {
  expect(result.status).toBe("rotated");
  if (result.status !== "rotated") throw new Error(`expected rotated, got ${result.status}`);
  return result.session;
}

/** A new rotation: a new refresh token hash and access token jti, active later than `sampleSession`. */
const newRotation = (): SessionRotation => ({
  refreshTokenHash: uniqueId("hash"),
  accessTokenJti: uniqueId("jti"),
  lastActiveAt: 1_700_000_100_000,
});

/** The helpers of the lifetime tests, whose sessions are created with `storedSession`. */
function lifetimeHelpers(
  fixture: StoreFixture<SessionStore>,
  storedSession: (overrides: Partial<SessionRecord>) => Promise<SessionRecord>,
) {
  /** A session created now on the store's clock (`fixture.now`), as the core creates one. */
  const sessionNow = async (overrides: Partial<SessionRecord> = {}) => {
    const now = await (fixture.now ?? Date.now)();
    return storedSession({ createdAt: now, lastActiveAt: now, ...overrides });
  };
  /** A session created now on the store's clock, then left idle past `LIMITS.idleTimeoutMs` (800 ms). */
  const idleSession = async (overrides: Partial<SessionRecord> = {}) => {
    const session = await sessionNow(overrides);
    await elapse(fixture, 800);
    return session;
  };
  /** Presents `hash` of session `sessionId` with `LIMITS` (and `reuseIntervalMs`), with a new rotation: the store's answer. */
  const presentLimited = (sessionId: string, hash: string, reuseIntervalMs?: number) =>
    fixture.store.rotateRefreshToken(sessionId, hash, newRotation(), TTL_MS, reuseIntervalMs, LIMITS);
  return { sessionNow, idleSession, presentLimited };
}

/** The store of one test, and helpers that make records for it. */
export function sessionContext(fixture: StoreFixture<SessionStore>) {
  const store = fixture.store;
  /** A new session; ids come from the store's own minting functions when it has them. */
  const newSession = (overrides: Partial<SessionRecord> = {}) => sampleSession(store, overrides);
  /** A new session, created in the store with `TTL_MS`. */
  const storedSession = async (overrides: Partial<SessionRecord> = {}) => {
    const session = newSession(overrides);
    await store.createSession(session, TTL_MS);
    return session;
  };
  const rotation = newRotation;
  /** Presents `hash` as the refresh token of session `sessionId`, with a new rotation: the store's answer. */
  const present = (sessionId: string, hash: string, reuseIntervalMs?: number) =>
    store.rotateRefreshToken(sessionId, hash, rotation(), TTL_MS, reuseIntervalMs);
  /** Checks that `result` is `status` and that the store no longer has `session` (it was deleted). */
  const expectEnded = async (
    result: RotationResult,
    status: "reused" | "expired",
    session: SessionRecord,
  ) => {
    expect(result.status).toBe(status);
    expect(await store.getSession(session.id)).toBeNull();
  };
  /** Presents the hash `session` was created with, with the rotation `next` (and `TTL_MS`): the store's answer. */
  const presentOriginal = (session: SessionRecord, next: SessionRotation) =>
    store.rotateRefreshToken(session.id, session.refreshTokenHash, next, TTL_MS);
  /**
   * A new session with `overrides`, stored (checked to read back and be listed as it is), then
   * rotated once with `next` (checked to answer `rotated` with the rotation's fields): the session
   * as stored and `next`.
   */
  const storedThenRotated = async (overrides: Partial<SessionRecord>, next = rotation()) => {
    const session = await storedSession(overrides);
    expect(await store.getSession(session.id)).toEqual(session);
    expect(await store.listSessions(session.userId)).toEqual([session]);
    expect(await presentOriginal(session, next)).toEqual({
      status: "rotated",
      session: { ...session, ...next },
    });
    return { session, next };
  };
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
  return {
    store,
    fixture,
    ...lifetimeHelpers(fixture, storedSession),
    newSession,
    storedSession,
    rotation,
    present,
    presentOriginal,
    expectEnded,
    storedThenRotated,
    sessionsOfOneUser,
    rotatedSession,
  };
}

/** What each test of the suite gets: the store and its record makers. */
export type SessionContext = ReturnType<typeof sessionContext>;
