// The ApiKeyStore conformance tests of createApiKey's per-owner limit (run by api-key-store-suite.ts).
import type { ApiKeyOwner, ApiKeyRecord } from "@portcullis/core";
import { expect } from "vitest";
import { type ApiKeyContext, newestFirst } from "./api-key-store-context.js";
import { type StoreTests, uniqueId } from "./store-fixture.js";

/** How many creations race for one owner, and how many of them fit. */
const RACING = 20;
const MAX_PER_OWNER = 5;

/**
 * Starts a creation of each record in one tick with `maxPerOwner`, then checks that exactly
 * `room` of them were created, that those are the owner's keys (with `before`), and that the
 * others left nothing behind.
 */
async function expectRaceKeepsLimit(
  { store, findBoth }: ApiKeyContext,
  owner: ApiKeyOwner,
  records: ApiKeyRecord[],
  room: number,
  before: ApiKeyRecord[] = [],
) {
  const limits = { maxPerOwner: before.length + room };
  const outcomes = await Promise.all(
    records.map((record) => store.createApiKey(structuredClone(record), limits)),
  );
  expect(outcomes.filter((outcome) => outcome === "created")).toHaveLength(room);
  expect(outcomes.filter((outcome) => outcome === "limit-reached")).toHaveLength(records.length - room);
  const created = records.filter((_, i) => outcomes[i] === "created");
  expect(await store.listApiKeys(owner)).toEqual(newestFirst([...before, ...created]));
  for (const [i, record] of records.entries()) {
    const expected = outcomes[i] === "created" ? record : null;
    expect(await findBoth(record)).toEqual({ byId: expected, byLookupId: expected });
  }
}

/** The tests of `createApiKey`'s `maxPerOwner`. */
export const API_KEY_LIMIT_TESTS: StoreTests<ApiKeyContext>[string] = {
  "createApiKey - 20 concurrent creations for one user with maxPerOwner 5: exactly 5 created": async (
    context,
  ) => {
    const userId = uniqueId("user");
    const records = Array.from({ length: RACING }, () => context.newKey({ userId }));
    await expectRaceKeepsLimit(context, { userId, organizationId: null }, records, MAX_PER_OWNER);
  },
  "createApiKey - 20 concurrent creations for one organization with maxPerOwner 5: exactly 5 created": async (
    context,
  ) => {
    const organizationId = uniqueId("org");
    const creator = uniqueId("user");
    // Creators differ: the organization's limit counts its keys, whoever made them.
    const records = Array.from({ length: RACING }, (_, i) =>
      context.newOrganizationKey(organizationId, i % 2 === 0 ? { userId: creator } : {}),
    );
    await expectRaceKeepsLimit(context, { organizationId }, records, MAX_PER_OWNER);
  },
  "createApiKey - concurrent creations on top of stored keys fill only the room left": async (context) => {
    const userId = uniqueId("user");
    const before = [await context.storedKey({ userId }), await context.storedKey({ userId, expiresAt: 1 })];
    const records = Array.from({ length: RACING }, () => context.newKey({ userId }));
    await expectRaceKeepsLimit(context, { userId, organizationId: null }, records, 3, before);
  },
  "createApiKey - limit-reached stores nothing; expired keys count; a deleted key makes room": async ({
    store,
    storedKey,
    newKey,
    findBoth,
  }) => {
    const userId = uniqueId("user");
    const owner = { userId, organizationId: null } as const;
    const live = await storedKey({ userId });
    const expired = await storedKey({ userId, expiresAt: 1 });
    const refused = newKey({ userId });
    expect(await store.createApiKey(structuredClone(refused), { maxPerOwner: 2 })).toBe("limit-reached");
    expect(await findBoth(refused)).toEqual({ byId: null, byLookupId: null });
    expect(await store.listApiKeys(owner)).toEqual([expired, live]);
    expect(await store.deleteApiKey(expired.id)).toEqual(expired);
    expect(await store.createApiKey(structuredClone(refused), { maxPerOwner: 2 })).toBe("created");
    expect(await findBoth(refused)).toEqual({ byId: refused, byLookupId: refused });
    expect(await store.listApiKeys(owner)).toEqual([refused, live]);
  },
  "createApiKey - a user's limit does not count the organizations' keys they created, nor the reverse":
    async ({ store, storedKey, storedOrganizationKey, newKey, newOrganizationKey }) => {
      const userId = uniqueId("user");
      const organizationId = uniqueId("org");
      for (let i = 0; i < 3; i++) await storedOrganizationKey(organizationId, { userId });
      const own = newKey({ userId });
      expect(await store.createApiKey(structuredClone(own), { maxPerOwner: 1 })).toBe("created");
      expect(await store.createApiKey(newKey({ userId }), { maxPerOwner: 1 })).toBe("limit-reached");
      await storedKey({ userId });
      const organizationKey = newOrganizationKey(organizationId, { userId });
      expect(await store.createApiKey(organizationKey, { maxPerOwner: 3 })).toBe("limit-reached");
      expect(await store.createApiKey(structuredClone(organizationKey), { maxPerOwner: 4 })).toBe("created");
      const otherOrganization = newOrganizationKey(uniqueId("org"), { userId });
      expect(await store.createApiKey(otherOrganization, { maxPerOwner: 1 })).toBe("created");
      expect(await store.listApiKeys({ userId, organizationId: null })).toHaveLength(2);
      expect(await store.listApiKeys({ organizationId })).toHaveLength(4);
    },
};
