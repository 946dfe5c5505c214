import type { SingleUseTokenStore, TokenRecord } from "@portcullis/core";
import { expect } from "vitest";
import type { StoreFixture } from "./store-fixture.js";
import { concurrently, defineStoreSuite, elapse, storeContext, uniqueId } from "./store-fixture.js";

const newToken = (overrides: Partial<TokenRecord> = {}): TokenRecord => ({
  purpose: "password-reset",
  tokenHash: uniqueId("token"),
  userId: uniqueId("user"),
  expiresAt: 1_700_000_900_000,
  data: { email: "a@example.test", attempt: 2, remember: true, previous: null },
  ...overrides,
});

/** The store's claim methods: optional in the port, required of a store this suite passes. */
function claims(store: SingleUseTokenStore) {
  const { claimToken, releaseToken } = store;
  if (!claimToken || !releaseToken) throw new Error("the store must implement claimToken and releaseToken");
  return { claimToken: claimToken.bind(store), releaseToken: releaseToken.bind(store) };
}

/** Saves a long-lived token, then a short-lived one for the same user, and lets the short one expire. */
async function longLivedFirst(store: SingleUseTokenStore, fixture: StoreFixture<SingleUseTokenStore>) {
  const userId = uniqueId("user");
  const long = newToken({ userId });
  await store.saveToken(long, 60_000);
  await store.saveToken(newToken({ userId }), 200);
  await elapse(fixture, 260);
  return { userId, long };
}

/**
 * The executable contract of `SingleUseTokenStore` (see its TSDoc in @portcullis/core), claims
 * included. Time-dependent tests use TTLs of a few hundred milliseconds, so a store without a
 * movable clock waits about 1 s in all.
 */
export const runSingleUseTokenStoreSuite = defineStoreSuite<
  SingleUseTokenStore,
  ReturnType<typeof storeContext<SingleUseTokenStore>>
>("SingleUseTokenStore", storeContext, {
  "": {
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
    "saveToken - 24 concurrent saves of new tokens under one user id (anonymous challenges share one): every one stored":
      async ({ store }) => {
        const userId = uniqueId("user");
        const saved = Array.from({ length: 24 }, () => newToken({ purpose: "passkey-challenge", userId }));
        await concurrently(saved.length, (index) => store.saveToken(saved[index] as TokenRecord, 60_000));
        for (const token of saved)
          expect(await store.consumeToken(token.purpose, token.tokenHash)).toEqual(token);
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
    "listUserTokens - the user's live tokens of that purpose, read without taking them": async ({
      store,
      fixture,
    }) => {
      if (!store.listUserTokens) throw new Error("the store has no listUserTokens");
      const userId = uniqueId("user");
      const [first, second] = [newToken({ userId }), newToken({ userId })];
      const short = newToken({ userId });
      const otherPurpose = newToken({ userId, purpose: "email-verification" });
      for (const token of [first, second, otherPurpose, newToken()]) await store.saveToken(token, 60_000);
      await store.saveToken(short, 200);
      await elapse(fixture, 260);
      const byHash = (a: { tokenHash: string }, b: { tokenHash: string }) =>
        a.tokenHash.localeCompare(b.tokenHash);
      const listed = await store.listUserTokens(userId, "password-reset");
      expect(listed.sort(byHash)).toEqual([first, second].sort(byHash));
      expect(await store.consumeToken(first.purpose, first.tokenHash)).toEqual(first);
      expect(await store.listUserTokens(userId, "password-reset")).toEqual([second]);
      await store.deleteUserTokens(userId, "password-reset");
      expect(await store.listUserTokens(userId, "password-reset")).toEqual([]);
      expect(await store.listUserTokens(uniqueId("user"), "password-reset")).toEqual([]);
    },
  },
  copies: {
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
