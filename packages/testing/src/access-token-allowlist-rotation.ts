// The allowlist suite's tests of `joint.rotateRefreshTokenWithAccessToken`: a refresh's rotation
// and its allowlist writes in one step, against what the separate calls leave
// (access-token-allowlist-suite.ts runs them with the others).
import type {
  AccessTokenAllowlist,
  AllowlistEntry,
  JointStores,
  RotationResult,
  SessionLimits,
  SessionRecord,
  SessionRotation,
  SessionStore,
} from "@portcullis/core";
import { expect } from "vitest";
import { concurrently, elapse, type StoreFixture, sampleSession, uniqueId } from "./store-fixture.js";

/** A session's and an access token's lifetime in these tests (15 minutes), in milliseconds. */
const TTL_MS = 900_000;
/** A reuse interval no test outlasts (one minute). */
const INTERVAL_MS = 60_000;

/** What the rotation's tests need of the allowlist suite's context. */
interface RotationContext {
  store: AccessTokenAllowlist;
  fixture: StoreFixture<AccessTokenAllowlist> & { joint?: JointStores; sessions?: SessionStore };
}

/**
 * The fixture's joint rotation and the sessions it rotates, when it has one (null: nothing to
 * check). `stored()` stores a new session and allows its `jti`, as a sign-in leaves them;
 * `rotate(session, hash)` presents `hash` with a new rotation (its `jti` minted for the session).
 */
function jointRotation({ store, fixture }: RotationContext) {
  const composite = fixture.joint;
  const rotate = composite?.rotateRefreshTokenWithAccessToken;
  if (rotate === undefined) return null;
  const { sessions } = fixture;
  if (sessions === undefined)
    throw new Error("a fixture whose joint has rotateRefreshTokenWithAccessToken needs `sessions`");
  const jtiOf = (sessionId: string) => store.createAccessTokenId?.(sessionId) ?? uniqueId("jti");
  const entryOf = (session: SessionRecord): AllowlistEntry => ({
    userId: session.userId,
    sessionId: session.id,
  });
  const stored = async (overrides: Partial<SessionRecord> = {}) => {
    const made = sampleSession(sessions, overrides);
    const session = { ...made, accessTokenJti: jtiOf(made.id) };
    await store.allowAccessToken(session.accessTokenJti, entryOf(session), TTL_MS);
    await sessions.createSession(session, TTL_MS);
    return session;
  };
  const present = async (
    session: SessionRecord,
    hash: string,
    {
      intervalMs,
      limits,
      accessTtlMs = TTL_MS,
    }: { intervalMs?: number; limits?: SessionLimits; accessTtlMs?: number } = {},
  ) => {
    const next: SessionRotation = {
      refreshTokenHash: uniqueId("hash"),
      accessTokenJti: jtiOf(session.id),
      lastActiveAt: 1_700_000_100_000,
    };
    const result: RotationResult = await rotate.call(
      composite,
      session.id,
      hash,
      next,
      TTL_MS,
      intervalMs,
      limits,
      {
        entry: entryOf(session),
        ttlMs: accessTtlMs,
      },
    );
    return { result, next };
  };
  /** Whether each `jti` is on the allowlist (with `session`'s entry). */
  const allowed = async (session: SessionRecord, ...jtis: string[]) =>
    Promise.all(
      jtis.map(async (jti) => {
        const found = await store.findAllowedAccessToken(jti);
        if (found !== null) expect(found).toEqual(entryOf(session));
        return found !== null;
      }),
    );
  return { sessions, stored, present, allowed };
}

/** The suite's tests of the joint rotation, one group of the allowlist suite. */
export const ALLOWLIST_ROTATION_TESTS = {
  "joint.rotateRefreshTokenWithAccessToken - rotated: the session rotated, the new jti allowed, the replaced one revoked":
    async (context: RotationContext) => {
      const joint = jointRotation(context);
      if (joint === null) return;
      const session = await joint.stored();
      const bystander = await joint.stored({ userId: session.userId });
      const { result, next } = await joint.present(session, session.refreshTokenHash);
      expect(result).toEqual({ status: "rotated", session: { ...session, ...next } });
      expect(await joint.sessions.getSession(session.id)).toEqual({ ...session, ...next });
      expect(await joint.allowed(session, next.accessTokenJti, session.accessTokenJti)).toEqual([
        true,
        false,
      ]);
      expect(await joint.allowed(bystander, bystander.accessTokenJti)).toEqual([true]);
      // The next refresh rotates from the new token, and revokes the jti the first one allowed.
      const second = await joint.present(session, next.refreshTokenHash);
      expect(second.result.status).toBe("rotated");
      expect(await joint.allowed(session, second.next.accessTokenJti, next.accessTokenJti)).toEqual([
        true,
        false,
      ]);
    },
  "joint.rotateRefreshTokenWithAccessToken - the new entry expires on its own ttl, the session stays": async (
    context: RotationContext,
  ) => {
    const joint = jointRotation(context);
    if (joint === null) return;
    const session = await joint.stored();
    const { result, next } = await joint.present(session, session.refreshTokenHash, { accessTtlMs: 300 });
    expect(result.status).toBe("rotated");
    expect(await joint.allowed(session, next.accessTokenJti)).toEqual([true]);
    await elapse(context.fixture, 700);
    expect(await joint.allowed(session, next.accessTokenJti)).toEqual([false]);
    expect(await joint.sessions.getSession(session.id)).toEqual({ ...session, ...next });
  },
  "joint.rotateRefreshTokenWithAccessToken - current (the parent within the interval): no new entry, the session's jti kept":
    async (context: RotationContext) => {
      const joint = jointRotation(context);
      if (joint === null) return;
      const session = await joint.stored();
      const first = await joint.present(session, session.refreshTokenHash, { intervalMs: INTERVAL_MS });
      expect(first.result.status).toBe("rotated");
      const again = await joint.present(session, session.refreshTokenHash, { intervalMs: INTERVAL_MS });
      expect(again.result).toEqual({ status: "current", session: { ...session, ...first.next } });
      expect(await joint.allowed(session, first.next.accessTokenJti, again.next.accessTokenJti)).toEqual([
        true,
        false,
      ]);
    },
  "joint.rotateRefreshTokenWithAccessToken - reused: the session deleted, its jti revoked, no new entry":
    async (context: RotationContext) => {
      const joint = jointRotation(context);
      if (joint === null) return;
      const session = await joint.stored();
      const first = await joint.present(session, session.refreshTokenHash);
      const replay = await joint.present(session, session.refreshTokenHash);
      expect(replay.result).toEqual({ status: "reused", session: { ...session, ...first.next } });
      expect(await joint.sessions.getSession(session.id)).toBeNull();
      expect(
        await joint.allowed(
          session,
          session.accessTokenJti,
          first.next.accessTokenJti,
          replay.next.accessTokenJti,
        ),
      ).toEqual([false, false, false]);
    },
  "joint.rotateRefreshTokenWithAccessToken - invalid (unknown hash, or no session): nothing written or revoked":
    async (context: RotationContext) => {
      const joint = jointRotation(context);
      if (joint === null) return;
      const session = await joint.stored();
      const wrong = await joint.present(session, uniqueId("hash"));
      expect(wrong.result).toEqual({ status: "invalid" });
      expect(await joint.sessions.getSession(session.id)).toEqual(session);
      expect(await joint.allowed(session, session.accessTokenJti, wrong.next.accessTokenJti)).toEqual([
        true,
        false,
      ]);
      const gone = sampleSession(joint.sessions, { userId: session.userId });
      const none = await joint.present(gone, gone.refreshTokenHash);
      expect(none.result).toEqual({ status: "invalid" });
      expect(await joint.allowed(gone, none.next.accessTokenJti)).toEqual([false]);
    },
  "joint.rotateRefreshTokenWithAccessToken - expired (past the idle timeout): the session deleted, its jti revoked":
    async (context: RotationContext) => {
      const joint = jointRotation(context);
      if (joint === null) return;
      const now = await (context.fixture.now ?? Date.now)();
      const session = await joint.stored({ createdAt: now, lastActiveAt: now });
      await elapse(context.fixture, 800);
      const limits = { idleTimeoutMs: 600, absoluteLifetimeMs: 1_000 };
      const late = await joint.present(session, session.refreshTokenHash, { limits });
      expect(late.result).toEqual({ status: "expired", session });
      expect(await joint.sessions.getSession(session.id)).toBeNull();
      expect(await joint.allowed(session, session.accessTokenJti, late.next.accessTokenJti)).toEqual([
        false,
        false,
      ]);
    },
  "joint.rotateRefreshTokenWithAccessToken - 20 concurrent refreshes of one token within the interval: one rotation, one entry":
    async (context: RotationContext) => {
      const joint = jointRotation(context);
      if (joint === null) return;
      const session = await joint.stored();
      const answers = await concurrently(20, () =>
        joint.present(session, session.refreshTokenHash, { intervalMs: INTERVAL_MS }),
      );
      const winners = answers.filter((answer) => answer.result.status === "rotated");
      expect(winners).toHaveLength(1);
      expect(answers.filter((answer) => answer.result.status === "current")).toHaveLength(19);
      const won = winners[0]?.next as SessionRotation;
      expect(await joint.sessions.getSession(session.id)).toEqual({ ...session, ...won });
      const allowed = await joint.allowed(session, ...answers.map((answer) => answer.next.accessTokenJti));
      expect(allowed.filter(Boolean)).toHaveLength(1);
      expect(await joint.allowed(session, won.accessTokenJti, session.accessTokenJti)).toEqual([true, false]);
    },
  "joint.rotateRefreshTokenWithAccessToken - 20 concurrent refreshes of one token, no interval: the session ends, nothing allowed":
    async (context: RotationContext) => {
      const joint = jointRotation(context);
      if (joint === null) return;
      const session = await joint.stored();
      const answers = await concurrently(20, () => joint.present(session, session.refreshTokenHash));
      const statuses = answers.map((answer) => answer.result.status);
      expect(statuses.filter((status) => status === "rotated")).toHaveLength(1);
      // The first replay deletes the session (reused); any later one finds nothing (invalid).
      expect(statuses.filter((status) => status === "reused")).toHaveLength(1);
      expect(statuses.filter((status) => status === "invalid")).toHaveLength(18);
      expect(await joint.sessions.getSession(session.id)).toBeNull();
      const jtis = [session.accessTokenJti, ...answers.map((answer) => answer.next.accessTokenJti)];
      expect((await joint.allowed(session, ...jtis)).filter(Boolean)).toEqual([]);
    },
};
