import type { SessionRecord, SessionStore, SessionTtls, TokenRecord } from "@portcullis/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { elapse, type StoreFixture, type StoreSuiteOptions, uniqueId } from "./store-fixture.js";

const TTLS: SessionTtls = { sessionTtlMs: 3_600_000, accessTokenTtlMs: 900_000 };

const newToken = (overrides: Partial<TokenRecord> = {}): TokenRecord => ({
  purpose: "password-reset",
  tokenHash: uniqueId("token"),
  userId: uniqueId("user"),
  expiresAt: 1_700_000_900_000,
  data: { email: "a@example.test" },
  ...overrides,
});

/** The executable contract of `SessionStore` (see its TSDoc in @portcullis/core). */
export function runSessionStoreSuite(options: StoreSuiteOptions<SessionStore>): void {
  describe(`SessionStore conformance: ${options.name}`, () => {
    let fixture: StoreFixture<SessionStore>;
    let store: SessionStore;
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
    const rotation = (sessionId: string) => ({
      refreshTokenHash: uniqueId("hash"),
      accessTokenJti: store.createAccessTokenId?.(sessionId) ?? uniqueId("jti"),
      lastActiveAt: 1_700_000_100_000,
    });

    beforeEach(async () => {
      fixture = await options.create();
      store = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup?.();
    });

    it("createSessionId / createAccessTokenId - when a store mints ids, they are unique base64url of 16-64 characters", () => {
      const userId = uniqueId("user");
      const ids = Array.from(
        { length: 200 },
        () => store.createSessionId?.(userId) ?? uniqueId("s").slice(0, 40),
      );
      const jtis = ids.map((id) => store.createAccessTokenId?.(id) ?? uniqueId("j").slice(0, 40));
      for (const id of [...ids, ...jtis]) expect(id).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
      expect(new Set([...ids, ...jtis]).size).toBe(400);
    });

    describe("sessions", () => {
      it("createSession - stores the session and allowlists its access token", async () => {
        const session = newSession();
        await store.createSession(session, TTLS);
        expect(await store.getSession(session.id)).toEqual(session);
        expect(await store.findAllowedAccessToken(session.accessTokenJti)).toEqual({
          userId: session.userId,
          sessionId: session.id,
        });
      });

      it("getSession / findAllowedAccessToken - null when absent", async () => {
        expect(await store.getSession(uniqueId("missing"))).toBeNull();
        expect(await store.findAllowedAccessToken(uniqueId("missing"))).toBeNull();
      });

      it("listSessions - the user's live sessions only; empty for a user without any", async () => {
        const userId = uniqueId("user");
        const a = newSession({ userId });
        const b = newSession({ userId });
        await store.createSession(a, TTLS);
        await store.createSession(b, TTLS);
        await store.createSession(newSession(), TTLS);
        const listed = await store.listSessions(userId);
        expect(listed.map((s) => s.id).sort()).toEqual([a.id, b.id].sort());
        expect(await store.listSessions(uniqueId("user"))).toEqual([]);
      });

      it("expiry - sessions and allowlist entries read as absent after their ttl", async () => {
        const session = newSession();
        await store.createSession(session, { sessionTtlMs: 400, accessTokenTtlMs: 200 });
        await elapse(fixture, 260);
        expect(await store.findAllowedAccessToken(session.accessTokenJti)).toBeNull();
        expect(await store.getSession(session.id)).not.toBeNull();
        await elapse(fixture, 200);
        expect(await store.getSession(session.id)).toBeNull();
        expect(await store.listSessions(session.userId)).toEqual([]);
      });

      it("deleteSession - removes the session and its allowlisted token; returns the record, or null", async () => {
        const session = newSession();
        await store.createSession(session, TTLS);
        expect(await store.deleteSession(session.id)).toEqual(session);
        expect(await store.getSession(session.id)).toBeNull();
        expect(await store.findAllowedAccessToken(session.accessTokenJti)).toBeNull();
        expect(await store.listSessions(session.userId)).toEqual([]);
        expect(await store.deleteSession(session.id)).toBeNull();
      });

      it("deleteUserSessions - removes the user's sessions except the one named, and no one else's", async () => {
        const userId = uniqueId("user");
        const keep = newSession({ userId });
        const drop = [newSession({ userId }), newSession({ userId })];
        const other = newSession();
        for (const session of [keep, ...drop, other]) await store.createSession(session, TTLS);
        expect(await store.deleteUserSessions(userId, keep.id)).toBe(2);
        expect((await store.listSessions(userId)).map((s) => s.id)).toEqual([keep.id]);
        for (const session of drop)
          expect(await store.findAllowedAccessToken(session.accessTokenJti)).toBeNull();
        expect(await store.findAllowedAccessToken(keep.accessTokenJti)).not.toBeNull();
        expect(await store.getSession(other.id)).toEqual(other);
        expect(await store.deleteUserSessions(userId)).toBe(1);
        expect(await store.findAllowedAccessToken(keep.accessTokenJti)).toBeNull();
      });
    });

    describe("refresh-token rotation", () => {
      it("rotateRefreshToken - the current hash rotates: new hash and jti current, old jti off the allowlist", async () => {
        const session = newSession();
        await store.createSession(session, TTLS);
        const next = { ...rotation(session.id), browser: "Chrome 120", ip: "198.51.100.1" };
        const result = await store.rotateRefreshToken(session.id, session.refreshTokenHash, next, TTLS);
        expect(result.status).toBe("rotated");
        const expected = { ...session, ...next };
        if (result.status === "rotated") expect(result.session).toEqual(expected);
        expect(await store.getSession(session.id)).toEqual(expected);
        expect(await store.findAllowedAccessToken(session.accessTokenJti)).toBeNull();
        expect(await store.findAllowedAccessToken(next.accessTokenJti)).toEqual({
          userId: session.userId,
          sessionId: session.id,
        });
      });

      it("rotateRefreshToken - an earlier hash is reuse: the session and its access token are gone", async () => {
        const session = newSession();
        await store.createSession(session, TTLS);
        const first = rotation(session.id);
        await store.rotateRefreshToken(session.id, session.refreshTokenHash, first, TTLS);
        const second = rotation(session.id);
        await store.rotateRefreshToken(session.id, first.refreshTokenHash, second, TTLS);
        const result = await store.rotateRefreshToken(
          session.id,
          session.refreshTokenHash,
          rotation(session.id),
          TTLS,
        );
        expect(result.status).toBe("reused");
        if (result.status === "reused") expect(result.session.id).toBe(session.id);
        expect(await store.getSession(session.id)).toBeNull();
        expect(await store.findAllowedAccessToken(second.accessTokenJti)).toBeNull();
        expect(await store.listSessions(session.userId)).toEqual([]);
      });

      it("rotateRefreshToken - an unknown hash or session is invalid and changes nothing", async () => {
        const session = newSession();
        await store.createSession(session, TTLS);
        expect(
          await store.rotateRefreshToken(session.id, uniqueId("hash"), rotation(session.id), TTLS),
        ).toEqual({
          status: "invalid",
        });
        expect(
          await store.rotateRefreshToken(
            uniqueId("missing"),
            session.refreshTokenHash,
            rotation(session.id),
            TTLS,
          ),
        ).toEqual({
          status: "invalid",
        });
        expect(await store.getSession(session.id)).toEqual(session);
        expect(await store.findAllowedAccessToken(session.accessTokenJti)).not.toBeNull();
      });

      it("rotateRefreshToken - 20 concurrent calls with the current hash: exactly one rotates", async () => {
        const session = newSession();
        await store.createSession(session, TTLS);
        const results = await Promise.all(
          Array.from({ length: 20 }, () =>
            store.rotateRefreshToken(session.id, session.refreshTokenHash, rotation(session.id), TTLS),
          ),
        );
        expect(results.filter((result) => result.status === "rotated")).toHaveLength(1);
      });

      it("rotateRefreshToken - extends the session by sessionTtlMs from now", async () => {
        const session = newSession();
        await store.createSession(session, { sessionTtlMs: 300, accessTokenTtlMs: 300 });
        await elapse(fixture, 200);
        await store.rotateRefreshToken(session.id, session.refreshTokenHash, rotation(session.id), {
          sessionTtlMs: 300,
          accessTokenTtlMs: 300,
        });
        await elapse(fixture, 200);
        expect(await store.getSession(session.id)).not.toBeNull();
      });
    });

    describe("single-use tokens", () => {
      it("consumeToken - returns the record once, then null; purpose must match", async () => {
        const token = newToken();
        await store.saveToken(token, 60_000);
        expect(await store.consumeToken("email-verification", token.tokenHash)).toBeNull();
        expect(await store.consumeToken(token.purpose, token.tokenHash)).toEqual(token);
        expect(await store.consumeToken(token.purpose, token.tokenHash)).toBeNull();
      });

      it("consumeToken - 20 concurrent calls: exactly one gets the record", async () => {
        const token = newToken();
        await store.saveToken(token, 60_000);
        const results = await Promise.all(
          Array.from({ length: 20 }, () => store.consumeToken(token.purpose, token.tokenHash)),
        );
        expect(results.filter((result) => result !== null)).toHaveLength(1);
      });

      it("saveToken - the record reads as absent after ttl", async () => {
        const token = newToken();
        await store.saveToken(token, 200);
        await elapse(fixture, 260);
        expect(await store.consumeToken(token.purpose, token.tokenHash)).toBeNull();
      });

      it("saveToken - replaceOthers deletes the user's other tokens of that purpose only", async () => {
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
      });

      it("deleteUserTokens - deletes that user's tokens of that purpose and says how many", async () => {
        const userId = uniqueId("user");
        const tokens = [newToken({ userId }), newToken({ userId })];
        const kept = newToken({ userId, purpose: "email-verification" });
        for (const token of [...tokens, kept]) await store.saveToken(token, 60_000);
        expect(await store.deleteUserTokens(userId, "password-reset")).toBe(2);
        for (const token of tokens)
          expect(await store.consumeToken(token.purpose, token.tokenHash)).toBeNull();
        expect(await store.consumeToken(kept.purpose, kept.tokenHash)).toEqual(kept);
        expect(await store.deleteUserTokens(uniqueId("user"), "password-reset")).toBe(0);
      });
    });

    it("records - returned objects are copies: mutating them does not change the store", async () => {
      const session = newSession();
      await store.createSession(session, TTLS);
      const read = await store.getSession(session.id);
      if (read) read.browser = "changed";
      session.os = "changed too";
      expect((await store.getSession(session.id))?.browser).toBe("Firefox 130");
      expect((await store.getSession(session.id))?.os).toBe("Linux");
    });
  });
}
