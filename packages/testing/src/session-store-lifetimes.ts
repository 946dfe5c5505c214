// The SessionStore conformance tests of idle and absolute lifetimes, remember-me and the back
// office's impersonation marker; session-store-suite.ts runs them with the others.
import type { SessionRecord } from "@portcullis/core";
import { expect } from "vitest";
import { LONG_INTERVAL_MS, rotationOf, type SessionContext, TTL_MS } from "./session-store-context.js";
import type { StoreTests } from "./store-fixture.js";
import { concurrently, elapse, uniqueId } from "./store-fixture.js";

/**
 * A session stored with `marked` (checked to read back, be listed and rotate with it, as
 * `storedThenRotated` does), and one stored without: each as the store reads it back after.
 */
async function markedAndPlain(
  { store, storedSession, storedThenRotated }: SessionContext,
  marked: Partial<SessionRecord>,
) {
  const { session } = await storedThenRotated(marked);
  const kept = await store.getSession(session.id);
  const plain = await storedSession();
  return { kept, plain: await store.getSession(plain.id) };
}

/**
 * A session created now on the store's clock, rotated after 400 ms (within the idle timeout), then
 * left idle 400 ms more: the session and its first rotation.
 */
async function rotatedWithinIdle({ fixture, sessionNow, presentLimited }: SessionContext) {
  const session = await sessionNow();
  await elapse(fixture, 400);
  const first = rotationOf(await presentLimited(session.id, session.refreshTokenHash));
  await elapse(fixture, 400);
  return { session, first };
}

/** The "session lifetimes" and "back office" groups of the suite. */
export const SESSION_LIFETIME_TESTS: StoreTests<SessionContext> = {
  "session lifetimes": {
    "createSession - rememberMe false is kept, read back, listed and kept through a rotation": async (
      context,
    ) => {
      const { kept, plain } = await markedAndPlain(context, { rememberMe: false });
      expect(kept?.rememberMe).toBe(false);
      expect(plain?.rememberMe ?? true).toBe(true);
    },
    "rotateRefreshToken - within the idle timeout it rotates, and each rotation restarts the idle clock":
      async (context) => {
        const { session, first } = await rotatedWithinIdle(context);
        expect((await context.presentLimited(session.id, first.refreshTokenHash)).status).toBe("rotated");
        expect(await context.store.getSession(session.id)).not.toBeNull();
      },
    "rotateRefreshToken - past the idle timeout: expired, the session deleted and returned as it was":
      async ({ store, idleSession, presentLimited }) => {
        const session = await idleSession({ rememberMe: false });
        expect(await presentLimited(session.id, session.refreshTokenHash)).toEqual({
          status: "expired",
          session,
        });
        expect(await store.getSession(session.id)).toBeNull();
        expect(await store.listSessions(session.userId)).toEqual([]);
        expect((await presentLimited(session.id, session.refreshTokenHash)).status).toBe("invalid");
      },
    "rotateRefreshToken - past the absolute lifetime: expired, however recently it was rotated": async (
      context,
    ) => {
      const { store, fixture, presentLimited } = context;
      const { session, first } = await rotatedWithinIdle(context);
      const second = rotationOf(await presentLimited(session.id, first.refreshTokenHash));
      await elapse(fixture, 300);
      const result = await presentLimited(session.id, second.refreshTokenHash);
      expect(result.status).toBe("expired");
      if (result.status === "expired") expect(result.session.accessTokenJti).toBe(second.accessTokenJti);
      expect(await store.getSession(session.id)).toBeNull();
    },
    "rotateRefreshToken - an expired session's parent within the reuse interval is expired, not current":
      async ({ fixture, sessionNow, presentLimited, expectEnded }) => {
        const session = await sessionNow();
        const parent = session.refreshTokenHash;
        rotationOf(await presentLimited(session.id, parent));
        await elapse(fixture, 800);
        await expectEnded(await presentLimited(session.id, parent, LONG_INTERVAL_MS), "expired", session);
      },
    "rotateRefreshToken - a never-seen hash on an expired session is invalid and deletes nothing": async ({
      store,
      idleSession,
      presentLimited,
    }) => {
      const session = await idleSession();
      expect((await presentLimited(session.id, uniqueId("hash"))).status).toBe("invalid");
      expect(await store.getSession(session.id)).toEqual(session);
    },
    "rotateRefreshToken - 20 concurrent calls past the idle timeout: one expired, the rest invalid, none rotated":
      async ({ store, idleSession, presentLimited }) => {
        const session = await idleSession();
        const results = await concurrently(20, () => presentLimited(session.id, session.refreshTokenHash));
        const statuses = results.map((result) => result.status).sort();
        expect(statuses).toEqual(["expired", ...Array(19).fill("invalid")]);
        expect(await store.getSession(session.id)).toBeNull();
      },
    "rotateRefreshToken - 20 concurrent calls within the idle timeout: one rotated, the rest current":
      async ({ store, fixture, sessionNow, presentLimited }) => {
        const session = await sessionNow();
        await elapse(fixture, 400);
        const results = await concurrently(20, () =>
          presentLimited(session.id, session.refreshTokenHash, LONG_INTERVAL_MS),
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
      presentOriginal,
    }) => {
      const session = await storedSession();
      const read = await store.getSession(session.id);
      if (read) read.browser = "changed";
      const [listed] = await store.listSessions(session.userId);
      if (listed) listed.os = "changed";
      expect(await store.getSession(session.id)).toEqual(session);
      const next = rotation();
      const result = await presentOriginal(session, next);
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
    "createSession - impersonatedBy is kept, read back, listed and kept through a rotation": async (
      context,
    ) => {
      const { kept, plain } = await markedAndPlain(context, { impersonatedBy: "admin-1" });
      expect(kept?.impersonatedBy).toBe("admin-1");
      expect(plain?.impersonatedBy).toBeUndefined();
    },
  },
};
