import type { AccessTokenAllowlist, AllowlistEntry } from "@portcullis/core";
import { expect } from "vitest";
import {
  concurrently,
  defineStoreSuite,
  elapse,
  expectMintedIds,
  type StoreFixture,
  uniqueId,
} from "./store-fixture.js";

/** An access token's lifetime in these tests (15 minutes), in milliseconds. */
const TTL_MS = 900_000;

/** The allowlist of one test, and helpers that make entries for it. */
function allowlistContext(fixture: StoreFixture<AccessTokenAllowlist>) {
  const store = fixture.store;
  /** A new session's entry and a `jti` for it (the store's own when it mints them). */
  const newToken = (sessionId = uniqueId("session")) => {
    const entry: AllowlistEntry = { userId: uniqueId("user"), sessionId };
    return { jti: store.createAccessTokenId?.(sessionId) ?? uniqueId("jti"), entry };
  };
  /** A new `jti`, allowed for `ttlMs` (default `TTL_MS`). */
  const allowedToken = async (ttlMs = TTL_MS) => {
    const token = newToken();
    await store.allowAccessToken(token.jti, token.entry, ttlMs);
    return token;
  };
  return { store, fixture, newToken, allowedToken };
}

/**
 * The executable contract of `AccessTokenAllowlist` (see its TSDoc in @portcullis/core).
 * Time-dependent tests use TTLs of a few hundred milliseconds, so a store without a movable clock
 * waits under 1 s in all.
 */
export const runAccessTokenAllowlistSuite = defineStoreSuite("AccessTokenAllowlist", allowlistContext, {
  "": {
    "createAccessTokenId - when a store mints ids, they are unique base64url of 16-64 characters": ({
      store,
    }) => {
      const sessionId = uniqueId("session");
      expectMintedIds(Array.from({ length: 200 }, () => store.createAccessTokenId?.(sessionId)));
    },
    "allowAccessToken - the jti is found with its user and session": async ({ store, allowedToken }) => {
      const { jti, entry } = await allowedToken();
      expect(await store.findAllowedAccessToken(jti)).toEqual(entry);
    },
    "findAllowedAccessToken - null for a jti that was never allowed": async ({ store }) => {
      expect(await store.findAllowedAccessToken(uniqueId("missing"))).toBeNull();
    },
    "allowAccessToken - the entry reads as absent after ttlMs; longer-lived ones stay": async ({
      store,
      fixture,
      allowedToken,
    }) => {
      const long = await allowedToken();
      const short = await allowedToken(200);
      await elapse(fixture, 260);
      expect(await store.findAllowedAccessToken(short.jti)).toBeNull();
      expect(await store.findAllowedAccessToken(long.jti)).toEqual(long.entry);
    },
    "allowAccessToken - allowing a jti again replaces its entry and lifetime": async ({
      store,
      fixture,
      newToken,
    }) => {
      const { jti, entry } = newToken();
      await store.allowAccessToken(jti, entry, 200);
      const replaced = { ...entry, sessionId: uniqueId("session") };
      await store.allowAccessToken(jti, replaced, TTL_MS);
      await elapse(fixture, 260);
      expect(await store.findAllowedAccessToken(jti)).toEqual(replaced);
    },
  },
  revocation: {
    "revokeAccessTokens - takes the jtis given off the allowlist, and no other": async ({
      store,
      allowedToken,
    }) => {
      const [first, second, kept] = [await allowedToken(), await allowedToken(), await allowedToken()];
      await store.revokeAccessTokens([first.jti, second.jti]);
      expect(await store.findAllowedAccessToken(first.jti)).toBeNull();
      expect(await store.findAllowedAccessToken(second.jti)).toBeNull();
      expect(await store.findAllowedAccessToken(kept.jti)).toEqual(kept.entry);
    },
    "revokeAccessTokens - unknown and already revoked jtis are skipped; an empty list is a no-op": async ({
      store,
      allowedToken,
    }) => {
      const token = await allowedToken();
      await store.revokeAccessTokens([]);
      expect(await store.findAllowedAccessToken(token.jti)).toEqual(token.entry);
      await store.revokeAccessTokens([uniqueId("missing"), token.jti]);
      await store.revokeAccessTokens([token.jti]);
      expect(await store.findAllowedAccessToken(token.jti)).toBeNull();
    },
    "revokeAccessTokens - jtis of several users' sessions in one call": async ({ store, allowedToken }) => {
      const tokens = await Promise.all(Array.from({ length: 5 }, () => allowedToken()));
      await store.revokeAccessTokens(tokens.map((token) => token.jti));
      for (const token of tokens) expect(await store.findAllowedAccessToken(token.jti)).toBeNull();
    },
  },
  concurrency: {
    "allowAccessToken - 20 concurrent allows of one session's new jtis: every one is found": async ({
      store,
      newToken,
    }) => {
      const sessionId = uniqueId("session");
      const tokens = Array.from({ length: 20 }, () => newToken(sessionId));
      await concurrently(20, (i) => {
        const token = tokens[i] as (typeof tokens)[number];
        return store.allowAccessToken(token.jti, token.entry, TTL_MS);
      });
      const found = await concurrently(20, (i) => store.findAllowedAccessToken(tokens[i]?.jti ?? ""));
      expect(found).toEqual(tokens.map((token) => token.entry));
    },
    "revokeAccessTokens - 20 concurrent revocations of overlapping lists: none is left, the others stay":
      async ({ store, allowedToken }) => {
        const tokens = await Promise.all(Array.from({ length: 10 }, () => allowedToken()));
        const kept = await allowedToken();
        await concurrently(20, (i) =>
          store.revokeAccessTokens(tokens.slice(i % 5, (i % 5) + 6).map((token) => token.jti)),
        );
        for (const token of tokens) expect(await store.findAllowedAccessToken(token.jti)).toBeNull();
        expect(await store.findAllowedAccessToken(kept.jti)).toEqual(kept.entry);
      },
  },
  copies: {
    "allowAccessToken / findAllowedAccessToken - entries are copies both ways": async ({
      store,
      newToken,
    }) => {
      const { jti, entry } = newToken();
      const original = { ...entry };
      await store.allowAccessToken(jti, entry, TTL_MS);
      entry.userId = "changed";
      const found = await store.findAllowedAccessToken(jti);
      if (found) found.sessionId = "changed";
      expect(await store.findAllowedAccessToken(jti)).toEqual(original);
    },
  },
});
