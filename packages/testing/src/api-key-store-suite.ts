import type { ApiKeyRecord } from "@portcullis/core";
import { expect } from "vitest";
import {
  type ApiKeyContext,
  apiKeyContext,
  NO_LIMIT,
  newestFirst,
  newLookupId,
  T0,
} from "./api-key-store-context.js";
import { API_KEY_DELETE_TESTS, API_KEY_TOUCH_TESTS } from "./api-key-store-deletes.js";
import { API_KEY_LIMIT_TESTS } from "./api-key-store-limits.js";
import { API_KEY_USE_TESTS } from "./api-key-store-uses.js";
import { concurrently, defineStoreSuite, type StoreTests, uniqueId } from "./store-fixture.js";

/** How many keys `listApiKeys` returns at most. */
const LIST_LIMIT = 1_000;

/**
 * Calls `call` for each item, `size` at a time started together (a SQL pool is not flooded; the
 * creations of one owner take turns on the owner's lock, so only a few wait for it at once).
 */
async function inBatches<T>(items: T[], size: number, call: (item: T) => Promise<unknown>) {
  for (let start = 0; start < items.length; start += size) {
    const batch = items.slice(start, start + size);
    await concurrently(batch.length, (i) => call(batch[i] as T));
  }
}

const CREATE_AND_FIND_TESTS: StoreTests<ApiKeyContext>[string] = {
  "createApiKey - stores a user's key; findApiKey and findApiKeyByLookupId read it back": async ({
    store,
    newKey,
    findBoth,
  }) => {
    const record = newKey();
    await store.createApiKey(structuredClone(record), NO_LIMIT);
    expect(await findBoth(record)).toEqual({ byId: record, byLookupId: record });
    expect(await store.listApiKeys({ userId: record.userId, organizationId: null })).toEqual([record]);
  },
  "createApiKey - keeps null and set expiresAt, lastUsedAt and permissions as given (their order too)":
    async ({ storedKey, storedOrganizationKey, findBoth }) => {
      const never = await storedKey({ expiresAt: null, lastUsedAt: null, permissions: null });
      const organizationId = uniqueId("org");
      const set = await storedOrganizationKey(organizationId, {
        expiresAt: T0 + 90 * 86_400_000,
        lastUsedAt: T0 + 5_000,
        permissions: ["project:write", "billing:read", "member:invite", "api-key:manage"],
      });
      const none = await storedOrganizationKey(organizationId, { permissions: [] });
      for (const record of [never, set, none]) {
        expect(await findBoth(record)).toEqual({ byId: record, byLookupId: record });
      }
    },
  "createApiKey - keeps a name of 100 characters, accents and quotes included, as written": async ({
    storedKey,
    findBoth,
  }) => {
    const name = `Clé « prod » 'déploiement' "CI" \\ ${"ü".repeat(100)}`.slice(0, 100);
    const record = await storedKey({ name });
    expect(await findBoth(record)).toEqual({ byId: record, byLookupId: record });
  },
  "createApiKey - an id already stored rejects and stores nothing": async ({ store, storedKey, newKey }) => {
    const first = await storedKey();
    const second = newKey({ id: first.id });
    await expect(store.createApiKey(second, NO_LIMIT)).rejects.toBeDefined();
    expect(await store.findApiKey(first.id)).toEqual(first);
    expect(await store.findApiKeyByLookupId(second.lookupId)).toBeNull();
    expect(await store.listApiKeys({ userId: second.userId, organizationId: null })).toEqual([]);
    expect(await store.listApiKeys({ userId: first.userId, organizationId: null })).toEqual([first]);
  },
  "createApiKey - a lookupId already stored rejects and stores nothing": async ({
    store,
    storedKey,
    newOrganizationKey,
  }) => {
    const first = await storedKey();
    const organizationId = uniqueId("org");
    const second = newOrganizationKey(organizationId, { lookupId: first.lookupId });
    await expect(store.createApiKey(second, NO_LIMIT)).rejects.toBeDefined();
    expect(await store.findApiKey(second.id)).toBeNull();
    expect(await store.findApiKeyByLookupId(first.lookupId)).toEqual(first);
    expect(await store.listApiKeys({ organizationId })).toEqual([]);
    expect(await store.listApiKeys({ userId: second.userId, organizationId: null })).toEqual([]);
  },
  "createApiKey - 20 concurrent creates with one lookupId: exactly one is stored": async ({
    store,
    newKey,
  }) => {
    const lookupId = newLookupId();
    const userId = uniqueId("user");
    const records = Array.from({ length: 20 }, () => newKey({ lookupId, userId }));
    const results = await Promise.allSettled(records.map((record) => store.createApiKey(record, NO_LIMIT)));
    const stored = records.filter((_, i) => results[i]?.status === "fulfilled");
    expect(stored).toHaveLength(1);
    expect(await store.findApiKeyByLookupId(lookupId)).toEqual(stored[0]);
    for (const record of records) {
      expect(await store.findApiKey(record.id)).toEqual(record === stored[0] ? record : null);
    }
    expect(await store.listApiKeys({ userId, organizationId: null })).toEqual(stored);
  },
  "createApiKey - 20 concurrent creates with one id: exactly one is stored": async ({ store, newKey }) => {
    const id = uniqueId("apikey");
    const userId = uniqueId("user");
    const records = Array.from({ length: 20 }, () => newKey({ id, userId }));
    const results = await Promise.allSettled(records.map((record) => store.createApiKey(record, NO_LIMIT)));
    const stored = records.filter((_, i) => results[i]?.status === "fulfilled");
    expect(stored).toHaveLength(1);
    expect(await store.findApiKey(id)).toEqual(stored[0]);
    for (const record of records) {
      expect(await store.findApiKeyByLookupId(record.lookupId)).toEqual(record === stored[0] ? record : null);
    }
    expect(await store.listApiKeys({ userId, organizationId: null })).toEqual(stored);
  },
  "findApiKey, findApiKeyByLookupId - null when absent; expired keys are returned as stored": async ({
    store,
    storedKey,
    findBoth,
  }) => {
    expect(await store.findApiKey(uniqueId("missing"))).toBeNull();
    expect(await store.findApiKeyByLookupId(newLookupId())).toBeNull();
    const expired = await storedKey({ expiresAt: 1 });
    expect(await findBoth(expired)).toEqual({ byId: expired, byLookupId: expired });
  },
  "findApiKeyByLookupId - matches exactly: a lookupId differing only in case is another key": async ({
    store,
    storedKey,
  }) => {
    const upper = await storedKey();
    const lookupId = upper.lookupId.toLowerCase();
    expect(await store.findApiKeyByLookupId(lookupId)).toBeNull();
    expect(await store.findApiKeyByLookupId(upper.lookupId.slice(0, 11))).toBeNull();
    const lower = await storedKey({ lookupId });
    expect(await store.findApiKeyByLookupId(lookupId)).toEqual(lower);
    expect(await store.findApiKeyByLookupId(upper.lookupId)).toEqual(upper);
  },
  "records - returned and given records are copies: mutating them does not change the store": async ({
    store,
    newOrganizationKey,
  }) => {
    const record = newOrganizationKey(uniqueId("org"));
    const given = structuredClone(record);
    await store.createApiKey(given, NO_LIMIT);
    given.name = "given";
    given.permissions?.push("given:write");
    const reads = [
      await store.findApiKey(record.id),
      await store.findApiKeyByLookupId(record.lookupId),
      ...(await store.listApiKeys({ organizationId: record.organizationId as string })),
    ];
    for (const read of reads) {
      if (!read) throw new Error("the key was not found");
      read.name = "changed";
      read.lastUsedAt = 1;
      read.permissions?.push("read:write");
    }
    expect(await store.findApiKey(record.id)).toEqual(record);
    expect(await store.findApiKeyByLookupId(record.lookupId)).toEqual(record);
    const deleted = await store.deleteApiKey(record.id);
    expect(deleted).toEqual(record);
  },
};

const LIST_TESTS: StoreTests<ApiKeyContext>[string] = {
  "listApiKeys - a user's own keys only: not the organizations' keys they created, not others'": async ({
    store,
    storedKey,
    storedOrganizationKey,
  }) => {
    const userId = uniqueId("user");
    expect(await store.listApiKeys({ userId, organizationId: null })).toEqual([]);
    const first = await storedKey({ userId });
    const second = await storedKey({ userId });
    await storedOrganizationKey(uniqueId("org"), { userId });
    await storedKey();
    expect(await store.listApiKeys({ userId, organizationId: null })).toEqual([second, first]);
  },
  "listApiKeys - an organization's keys, whoever created them; not other organizations' keys": async ({
    store,
    storedKey,
    storedOrganizationKey,
  }) => {
    const organizationId = uniqueId("org");
    expect(await store.listApiKeys({ organizationId })).toEqual([]);
    const creator = uniqueId("user");
    const first = await storedOrganizationKey(organizationId, { userId: creator });
    const second = await storedOrganizationKey(organizationId);
    const third = await storedOrganizationKey(organizationId, { userId: creator });
    await storedOrganizationKey(uniqueId("org"), { userId: creator });
    await storedKey({ userId: creator });
    expect(await store.listApiKeys({ organizationId })).toEqual([third, second, first]);
  },
  "listApiKeys - newest first by createdAt, then id descending, whatever order they were created in": async ({
    store,
    storedKey,
    storedOrganizationKey,
  }) => {
    const userId = uniqueId("user");
    const organizationId = uniqueId("org");
    const base = uniqueId("apikey");
    const plan: [string, number][] = [
      ["b", T0 + 2_000],
      ["e", T0 + 1_000],
      ["a", T0 + 3_000],
      ["d", T0 + 2_000],
      ["c", T0 + 2_000],
      ["f", T0 + 500],
    ];
    const mine: ApiKeyRecord[] = [];
    const organizations: ApiKeyRecord[] = [];
    for (const [suffix, createdAt] of plan) {
      mine.push(await storedKey({ id: `${base}-u${suffix}`, userId, createdAt }));
      organizations.push(
        await storedOrganizationKey(organizationId, { id: `${base}-o${suffix}`, createdAt }),
      );
    }
    const expectIds = (records: ApiKeyRecord[], suffixes: string) =>
      expect(records.map((record) => record.id.slice(-1)).join("")).toBe(suffixes);
    const listedMine = await store.listApiKeys({ userId, organizationId: null });
    expectIds(listedMine, "adcbef");
    expect(listedMine).toEqual(newestFirst(mine));
    const listedOrganization = await store.listApiKeys({ organizationId });
    expectIds(listedOrganization, "adcbef");
    expect(listedOrganization).toEqual(newestFirst(organizations));
  },
  "listApiKeys - at most 1000, the newest; deleted keys leave room for older ones": async ({
    store,
    newKey,
    newOrganizationKey,
  }) => {
    const userId = uniqueId("user");
    const organizationId = uniqueId("org");
    const owners = [
      { owner: { userId, organizationId: null }, make: (createdAt: number) => newKey({ userId, createdAt }) },
      {
        owner: { organizationId },
        make: (createdAt: number) => newOrganizationKey(organizationId, { createdAt }),
      },
    ] as const;
    // The two owners side by side: each one's creations take turns on its own lock.
    await Promise.all(
      owners.map(async ({ owner, make }) => {
        const records = Array.from({ length: LIST_LIMIT + 5 }, (_, i) =>
          make(T0 + ((i * 7_919) % (LIST_LIMIT + 5)) * 1_000),
        );
        await inBatches(records, 4, (record) => store.createApiKey(record, NO_LIMIT));
        const listed = await store.listApiKeys(owner);
        const sorted = newestFirst(records);
        const ids = (list: ApiKeyRecord[]) => list.map((record) => record.id);
        expect(ids(listed)).toEqual(ids(sorted.slice(0, LIST_LIMIT)));
        await inBatches(listed, 50, (record) => store.deleteApiKey(record.id));
        expect(await store.listApiKeys(owner)).toEqual(sorted.slice(LIST_LIMIT));
      }),
    );
  },
};

/**
 * The executable contract of `ApiKeyStore` (see its TSDoc in @portcullis/core): times are passed
 * in, so no test waits but the two that let a request window end (`elapse`: a store on its
 * own clock waits 1 s), and the concurrency tests start their calls in one tick.
 */
export const runApiKeyStoreSuite = defineStoreSuite("ApiKeyStore", apiKeyContext, {
  "create and find": CREATE_AND_FIND_TESTS,
  limits: API_KEY_LIMIT_TESTS,
  list: LIST_TESTS,
  delete: API_KEY_DELETE_TESTS,
  touch: API_KEY_TOUCH_TESTS,
  use: API_KEY_USE_TESTS,
});
