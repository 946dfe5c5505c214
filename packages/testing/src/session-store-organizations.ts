// The SessionStore conformance tests of a session's active organization (`activeOrganizationId`
// and the optional `setActiveOrganization`); session-store-suite.ts runs them with the others.
import { expect } from "vitest";
import type { SessionContext } from "./session-store-context.js";
import type { StoreTests } from "./store-fixture.js";
import { concurrently, elapse, uniqueId } from "./store-fixture.js";

/** The "active organization" group of the suite. */
export const SESSION_ORGANIZATION_TESTS: StoreTests<SessionContext> = {
  "active organization": {
    "createSession - activeOrganizationId is kept as given, read back, listed, rotated and deleted with it":
      async ({ store, storedSession, storedThenRotated }) => {
        const { session, next } = await storedThenRotated({ activeOrganizationId: "org-1" });
        expect(await store.deleteSession(session.id)).toEqual({ ...session, ...next });
        const none = await storedSession({ activeOrganizationId: null });
        expect((await store.getSession(none.id))?.activeOrganizationId).toBeNull();
        expect(await store.deleteUserSessions(none.userId)).toEqual([none]);
        const plain = await storedSession();
        expect((await store.getSession(plain.id))?.activeOrganizationId).toBeUndefined();
      },
    "setActiveOrganization (optional) - sets it (null clears it), returns the record and changes nothing else":
      async ({ store, storedSession }) => {
        if (!store.setActiveOrganization) return;
        const session = await storedSession({ impersonatedBy: "admin-1", rememberMe: false });
        const active = { ...session, activeOrganizationId: "org-1" };
        expect(await store.setActiveOrganization(session.id, "org-1")).toEqual(active);
        expect(await store.getSession(session.id)).toEqual(active);
        expect(await store.listSessions(session.userId)).toEqual([active]);
        const other = { ...session, activeOrganizationId: "org-2" };
        expect(await store.setActiveOrganization(session.id, "org-2")).toEqual(other);
        const cleared = { ...session, activeOrganizationId: null };
        expect(await store.setActiveOrganization(session.id, null)).toEqual(cleared);
        expect(await store.getSession(session.id)).toEqual(cleared);
      },
    "setActiveOrganization (optional) - null for an unknown, deleted or expired session; creates none":
      async ({ store, fixture, storedSession, newSession }) => {
        if (!store.setActiveOrganization) return;
        const missing = uniqueId("missing");
        expect(await store.setActiveOrganization(missing, "org-1")).toBeNull();
        expect(await store.getSession(missing)).toBeNull();
        const deleted = await storedSession();
        await store.deleteSession(deleted.id);
        expect(await store.setActiveOrganization(deleted.id, "org-1")).toBeNull();
        expect(await store.getSession(deleted.id)).toBeNull();
        const expiring = newSession();
        await store.createSession(expiring, 300);
        await elapse(fixture, 350);
        expect(await store.setActiveOrganization(expiring.id, "org-1")).toBeNull();
        expect(await store.getSession(expiring.id)).toBeNull();
        expect(await store.listSessions(expiring.userId)).toEqual([]);
      },
    "setActiveOrganization (optional) - keeps the session's expiry": async ({
      store,
      fixture,
      newSession,
    }) => {
      if (!store.setActiveOrganization) return;
      const session = newSession();
      await store.createSession(session, 500);
      await elapse(fixture, 250);
      expect(await store.setActiveOrganization(session.id, "org-1")).not.toBeNull();
      await elapse(fixture, 300);
      expect(await store.getSession(session.id)).toBeNull();
    },
    "setActiveOrganization (optional) - a rotation afterwards keeps it": async ({
      store,
      storedSession,
      rotation,
      presentOriginal,
    }) => {
      if (!store.setActiveOrganization) return;
      const session = await storedSession();
      await store.setActiveOrganization(session.id, "org-1");
      const next = rotation();
      const rotated = await presentOriginal(session, next);
      const expected = { ...session, ...next, activeOrganizationId: "org-1" };
      expect(rotated).toEqual({ status: "rotated", session: expected });
      expect(await store.getSession(session.id)).toEqual(expected);
    },
    "setActiveOrganization (optional) - racing rotations of 10 sessions: both changes stay": async ({
      store,
      storedSession,
      rotation,
      presentOriginal,
    }) => {
      const setActiveOrganization = store.setActiveOrganization?.bind(store);
      if (!setActiveOrganization) return;
      const sessions = await Promise.all(Array.from({ length: 10 }, () => storedSession()));
      const rotations = sessions.map(() => rotation());
      const results = await concurrently(20, async (i) => {
        const session = sessions[i >> 1];
        const next = rotations[i >> 1];
        if (!session || !next) throw new Error("no session");
        // In every other pair the rotation starts first.
        const rotate = ((i >> 1) + i) % 2 === 0;
        if (rotate) return (await presentOriginal(session, next)).status;
        return (await setActiveOrganization(session.id, `org-${i}`)) ? "set" : "missing";
      });
      expect(results.filter((result) => result === "rotated")).toHaveLength(10);
      expect(results.filter((result) => result === "set")).toHaveLength(10);
      for (const [n, session] of sessions.entries()) {
        const setBy = results[2 * n] === "set" ? 2 * n : 2 * n + 1;
        expect(await store.getSession(session.id)).toEqual({
          ...session,
          ...rotations[n],
          activeOrganizationId: `org-${setBy}`,
        });
      }
    },
  },
};
