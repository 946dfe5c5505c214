// The ApiKeyStore conformance tests of deleteApiKey, deleteUserApiKeys, deleteOrganizationApiKeys
// and touchApiKey (run by api-key-store-suite.ts).
import { expect } from "vitest";
import { type ApiKeyContext, MINUTE_MS, NO_LIMIT, T0 } from "./api-key-store-context.js";
import { raced } from "./organization-store-context.js";
import { concurrently, type StoreTests, uniqueId } from "./store-fixture.js";

/** The tests of `deleteApiKey`, `deleteUserApiKeys` and `deleteOrganizationApiKeys`. */
export const API_KEY_DELETE_TESTS: StoreTests<ApiKeyContext>[string] = {
  "deleteApiKey - returns the key as it was, then null; it is gone from every read, its ids are free":
    async ({ store, storedKey, findBoth }) => {
      const record = await storedKey();
      const kept = await storedKey({ userId: record.userId });
      expect(await store.touchApiKey(record.id, T0 + MINUTE_MS, MINUTE_MS)).toBe(true);
      expect(await store.deleteApiKey(record.id)).toEqual({ ...record, lastUsedAt: T0 + MINUTE_MS });
      expect(await findBoth(record)).toEqual({ byId: null, byLookupId: null });
      expect(await store.listApiKeys({ userId: record.userId, organizationId: null })).toEqual([kept]);
      expect(await store.deleteApiKey(record.id)).toBeNull();
      expect(await store.deleteApiKey(uniqueId("missing"))).toBeNull();
      expect(await findBoth(kept)).toEqual({ byId: kept, byLookupId: kept });
      await store.createApiKey(structuredClone(record), NO_LIMIT);
      expect(await findBoth(record)).toEqual({ byId: record, byLookupId: record });
    },
  "deleteApiKey - an organization's key leaves the organization's list": async ({
    store,
    storedOrganizationKey,
  }) => {
    const organizationId = uniqueId("org");
    const record = await storedOrganizationKey(organizationId);
    const kept = await storedOrganizationKey(organizationId, { userId: record.userId });
    expect(await store.deleteApiKey(record.id)).toEqual(record);
    expect(await store.listApiKeys({ organizationId })).toEqual([kept]);
    expect(await store.findApiKeyByLookupId(record.lookupId)).toBeNull();
  },
  "deleteApiKey - 20 concurrent deletes of one key: exactly one returns it": async ({
    store,
    storedKey,
    findBoth,
  }) => {
    const record = await storedKey();
    const results = await concurrently(20, () => store.deleteApiKey(record.id));
    expect(results.filter((result) => result !== null)).toEqual([record]);
    expect(await findBoth(record)).toEqual({ byId: null, byLookupId: null });
    expect(await store.listApiKeys({ userId: record.userId, organizationId: null })).toEqual([]);
  },
  "deleteApiKey - raced with touchApiKey: the key stays gone (a touch never brings it back)": async ({
    store,
    storedKey,
    storedOrganizationKey,
    findBoth,
  }) => {
    const userId = uniqueId("user");
    const organizationId = uniqueId("org");
    const records = await Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        n % 2 === 0 ? storedKey({ userId }) : storedOrganizationKey(organizationId, { userId }),
      ),
    );
    const results = await raced(
      10,
      (n) => store.deleteApiKey(records[n]?.id ?? ""),
      (n) => store.touchApiKey(records[n]?.id ?? "", T0 + MINUTE_MS, MINUTE_MS),
    );
    for (const [n, record] of records.entries()) {
      const [deleted, touched] = results[n] ?? [];
      expect(deleted).toEqual(touched ? { ...record, lastUsedAt: T0 + MINUTE_MS } : record);
      expect(await findBoth(record)).toEqual({ byId: null, byLookupId: null });
    }
    expect(await store.listApiKeys({ userId, organizationId: null })).toEqual([]);
    expect(await store.listApiKeys({ organizationId })).toEqual([]);
  },
  "deleteUserApiKeys - deletes the user's own keys and says how many; organizations' keys and others' stay":
    async ({ store, storedKey, storedOrganizationKey, findBoth }) => {
      const userId = uniqueId("user");
      const organizationId = uniqueId("org");
      const first = await storedKey({ userId });
      const own = [first, await storedKey({ userId }), await storedKey({ userId })];
      const created = await storedOrganizationKey(organizationId, { userId });
      const others = await storedKey();
      expect(await store.deleteUserApiKeys(userId)).toBe(3);
      for (const record of own) expect(await findBoth(record)).toEqual({ byId: null, byLookupId: null });
      expect(await store.listApiKeys({ userId, organizationId: null })).toEqual([]);
      expect(await findBoth(created)).toEqual({ byId: created, byLookupId: created });
      expect(await store.listApiKeys({ organizationId })).toEqual([created]);
      expect(await findBoth(others)).toEqual({ byId: others, byLookupId: others });
      expect(await store.deleteUserApiKeys(userId)).toBe(0);
      expect(await store.deleteUserApiKeys(uniqueId("user"))).toBe(0);
      await store.createApiKey(structuredClone(first), NO_LIMIT);
      expect(await store.findApiKeyByLookupId(first.lookupId)).toEqual(first);
    },
  "deleteOrganizationApiKeys - deletes every key of the organization and says how many; others stay": async ({
    store,
    storedKey,
    storedOrganizationKey,
    findBoth,
  }) => {
    const organizationId = uniqueId("org");
    const otherOrganizationId = uniqueId("org");
    const creator = uniqueId("user");
    const keys = [
      await storedOrganizationKey(organizationId, { userId: creator }),
      await storedOrganizationKey(organizationId),
    ];
    const elsewhere = await storedOrganizationKey(otherOrganizationId, { userId: creator });
    const own = await storedKey({ userId: creator });
    expect(await store.deleteOrganizationApiKeys(organizationId)).toBe(2);
    for (const record of keys) expect(await findBoth(record)).toEqual({ byId: null, byLookupId: null });
    expect(await store.listApiKeys({ organizationId })).toEqual([]);
    expect(await store.listApiKeys({ organizationId: otherOrganizationId })).toEqual([elsewhere]);
    expect(await store.listApiKeys({ userId: creator, organizationId: null })).toEqual([own]);
    expect(await findBoth(elsewhere)).toEqual({ byId: elsewhere, byLookupId: elsewhere });
    expect(await store.deleteOrganizationApiKeys(organizationId)).toBe(0);
    expect(await store.deleteOrganizationApiKeys(uniqueId("org"))).toBe(0);
  },
};

/** The tests of `touchApiKey`. */
export const API_KEY_TOUCH_TESTS: StoreTests<ApiKeyContext>[string] = {
  "touchApiKey - a key never used: writes lastUsedAt and nothing else": async ({
    store,
    storedOrganizationKey,
    findBoth,
  }) => {
    const record = await storedOrganizationKey(uniqueId("org"), { expiresAt: T0 + 86_400_000 });
    expect(await store.touchApiKey(record.id, T0 + 10_000, MINUTE_MS)).toBe(true);
    const touched = { ...record, lastUsedAt: T0 + 10_000 };
    expect(await findBoth(record)).toEqual({ byId: touched, byLookupId: touched });
    expect(await store.listApiKeys({ organizationId: record.organizationId as string })).toEqual([touched]);
  },
  "touchApiKey - within minIntervalMs of the last write: false and unchanged; from then on: writes": async ({
    store,
    storedKey,
  }) => {
    const used = T0 + 10_000;
    const record = await storedKey({ lastUsedAt: used });
    for (const at of [used, used + 1, used + MINUTE_MS - 1, used - 5_000]) {
      expect(await store.touchApiKey(record.id, at, MINUTE_MS)).toBe(false);
      expect(await store.findApiKey(record.id)).toEqual(record);
    }
    expect(await store.touchApiKey(record.id, used + MINUTE_MS, MINUTE_MS)).toBe(true);
    expect((await store.findApiKey(record.id))?.lastUsedAt).toBe(used + MINUTE_MS);
    expect(await store.touchApiKey(record.id, used + MINUTE_MS + 1, MINUTE_MS)).toBe(false);
    expect(await store.touchApiKey(record.id, used + 5 * MINUTE_MS, MINUTE_MS)).toBe(true);
    expect((await store.findApiKeyByLookupId(record.lookupId))?.lastUsedAt).toBe(used + 5 * MINUTE_MS);
    expect(await store.touchApiKey(record.id, used + 5 * MINUTE_MS + 1, 1)).toBe(true);
    expect((await store.findApiKey(record.id))?.lastUsedAt).toBe(used + 5 * MINUTE_MS + 1);
  },
  "touchApiKey - 20 concurrent touches with the same time: exactly one writes": async ({
    store,
    storedKey,
  }) => {
    const record = await storedKey();
    const results = await concurrently(20, () => store.touchApiKey(record.id, T0 + 10_000, MINUTE_MS));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.findApiKey(record.id)).toEqual({ ...record, lastUsedAt: T0 + 10_000 });
  },
  "touchApiKey - 20 concurrent touches within a minute of each other: exactly one writes, its time": async ({
    store,
    storedKey,
  }) => {
    const used = T0 + 10_000;
    const record = await storedKey({ lastUsedAt: used });
    const at = (i: number) => used + MINUTE_MS + i * 1_000;
    const results = await concurrently(20, (i) => store.touchApiKey(record.id, at(i), MINUTE_MS));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await store.findApiKey(record.id))?.lastUsedAt).toBe(at(results.indexOf(true)));
  },
  "touchApiKey - false for a key that is gone or never was; nothing is created": async ({
    store,
    storedKey,
    findBoth,
  }) => {
    const record = await storedKey();
    await store.deleteApiKey(record.id);
    expect(await store.touchApiKey(record.id, T0 + 10_000, MINUTE_MS)).toBe(false);
    expect(await findBoth(record)).toEqual({ byId: null, byLookupId: null });
    expect(await store.listApiKeys({ userId: record.userId, organizationId: null })).toEqual([]);
    const missing = uniqueId("missing");
    expect(await store.touchApiKey(missing, T0 + 10_000, MINUTE_MS)).toBe(false);
    expect(await store.findApiKey(missing)).toBeNull();
  },
};
