// The ApiKeyStore conformance tests of a request's read of its key and its counter (`useApiKey`;
// run by api-key-store-suite.ts).
import { expect } from "vitest";
import { type ApiKeyContext, newLookupId } from "./api-key-store-context.js";
import { concurrently, elapse, type StoreTests } from "./store-fixture.js";

/** The window of the tests that do not let it end: longer than any test runs. */
const LONG_WINDOW_MS = 600_000;
/** The window of the tests that let it end (a store that keeps its own time waits it out for real). */
const SHORT_WINDOW_MS = 1_000;

/** The tests of `useApiKey`. */
export const API_KEY_USE_TESTS: StoreTests<ApiKeyContext>[string] = {
  "useApiKey - reads the key as findApiKeyByLookupId does and counts each request: 1, 2, 3": async ({
    store,
    storedKey,
  }) => {
    const record = await storedKey();
    for (const count of [1, 2, 3]) {
      const use = await store.useApiKey(record.lookupId, LONG_WINDOW_MS, 1);
      expect(use).toEqual({ record, count, remainingMs: expect.any(Number) });
      expect(use.remainingMs).toBeGreaterThan(0);
      expect(use.remainingMs).toBeLessThanOrEqual(LONG_WINDOW_MS);
    }
  },
  "useApiKey - an unknown lookupId is counted too, with no record; a lookupId differing only in case is another":
    async ({ store, storedKey }) => {
      const unknown = newLookupId();
      expect(await store.useApiKey(unknown, LONG_WINDOW_MS, 1)).toMatchObject({ record: null, count: 1 });
      expect(await store.useApiKey(unknown, LONG_WINDOW_MS, 1)).toMatchObject({ record: null, count: 2 });
      const record = await storedKey();
      const other = `${record.lookupId.charAt(0).toLowerCase()}${record.lookupId.slice(1)}`;
      expect(await store.useApiKey(other, LONG_WINDOW_MS, 1)).toMatchObject({ record: null, count: 1 });
      expect(await store.useApiKey(record.lookupId, LONG_WINDOW_MS, 1)).toMatchObject({ record, count: 1 });
    },
  "useApiKey - 20 concurrent requests of one key are counted 1 to 20, each once": async ({
    store,
    storedKey,
  }) => {
    const record = await storedKey();
    const uses = await concurrently(20, () => store.useApiKey(record.lookupId, LONG_WINDOW_MS, 1));
    expect(uses.map((use) => use.count).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    for (const use of uses) expect(use.record).toEqual(record);
  },
  "useApiKey - the window is not extended by its requests; the first request after it ends counts 1": async ({
    store,
    fixture,
    storedKey,
  }) => {
    const record = await storedKey();
    expect((await store.useApiKey(record.lookupId, SHORT_WINDOW_MS, 1)).count).toBe(1);
    await elapse(fixture, SHORT_WINDOW_MS / 2);
    const second = await store.useApiKey(record.lookupId, SHORT_WINDOW_MS, 1);
    expect(second.count).toBe(2);
    expect(second.remainingMs).toBeLessThanOrEqual(SHORT_WINDOW_MS / 2);
    await elapse(fixture, SHORT_WINDOW_MS / 2 + 50);
    expect(await store.useApiKey(record.lookupId, SHORT_WINDOW_MS, 1)).toMatchObject({ record, count: 1 });
  },
  "useApiKey - a deleted key reads null at once; its requests go on being counted in their window": async ({
    store,
    storedKey,
  }) => {
    const record = await storedKey();
    await store.useApiKey(record.lookupId, LONG_WINDOW_MS, 1);
    expect(await store.deleteApiKey(record.id)).toEqual(record);
    expect(await store.useApiKey(record.lookupId, LONG_WINDOW_MS, 1)).toMatchObject({
      record: null,
      count: 2,
    });
  },
  "useApiKey - uses counts that many at once: a block of counts, the next call counting on from its end":
    async ({ store, storedKey }) => {
      const record = await storedKey();
      expect(await store.useApiKey(record.lookupId, LONG_WINDOW_MS, 5)).toMatchObject({ record, count: 5 });
      expect(await store.useApiKey(record.lookupId, LONG_WINDOW_MS, 1)).toMatchObject({ record, count: 6 });
      const blocks = await concurrently(10, () => store.useApiKey(record.lookupId, LONG_WINDOW_MS, 3));
      // Ten blocks of 3 after count 6: their ends are 9, 12, ..., 36, each once.
      expect(blocks.map((use) => use.count).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 10 }, (_, i) => 9 + 3 * i),
      );
    },
  "useApiKey - uses 0 is the key's read alone: nothing counted, count 0 and the whole window": async ({
    store,
    storedKey,
  }) => {
    const record = await storedKey();
    const none = { count: 0, remainingMs: SHORT_WINDOW_MS };
    expect(await store.useApiKey(record.lookupId, SHORT_WINDOW_MS, 0)).toEqual({ record, ...none });
    expect(await store.useApiKey(newLookupId(), SHORT_WINDOW_MS, 0)).toEqual({ record: null, ...none });
    await store.useApiKey(record.lookupId, SHORT_WINDOW_MS, 2);
    const [read, counted] = await Promise.all([
      store.useApiKey(record.lookupId, SHORT_WINDOW_MS, 0),
      store.useApiKey(record.lookupId, SHORT_WINDOW_MS, 1),
    ]);
    expect(read).toEqual({ record, ...none });
    expect(counted).toMatchObject({ record, count: 3 });
    expect(await store.useApiKey(record.lookupId, SHORT_WINDOW_MS, 0)).toEqual({ record, ...none });
    expect((await store.useApiKey(record.lookupId, SHORT_WINDOW_MS, 1)).count).toBe(4);
    await store.deleteApiKey(record.id);
    expect(await store.useApiKey(record.lookupId, SHORT_WINDOW_MS, 0)).toEqual({ record: null, ...none });
  },
  "useApiKey - a window's first call starts it at its uses; after the window ends, at the next call's uses":
    async ({ store, fixture, storedKey }) => {
      const record = await storedKey();
      expect((await store.useApiKey(record.lookupId, SHORT_WINDOW_MS, 4)).count).toBe(4);
      await elapse(fixture, SHORT_WINDOW_MS + 50);
      expect((await store.useApiKey(record.lookupId, SHORT_WINDOW_MS, 2)).count).toBe(2);
    },
  "returnApiKeyUses - gives counts back to the running window, not below 0, its end kept; concurrent ones all land":
    async ({ store, storedKey }) => {
      const record = await storedKey();
      const first = await store.useApiKey(record.lookupId, LONG_WINDOW_MS, 10);
      await store.returnApiKeyUses(record.lookupId, 3, LONG_WINDOW_MS);
      const after = await store.useApiKey(record.lookupId, LONG_WINDOW_MS, 1);
      expect(after.count).toBe(8);
      expect(after.remainingMs).toBeLessThanOrEqual(first.remainingMs);
      await concurrently(4, () => store.returnApiKeyUses(record.lookupId, 1, LONG_WINDOW_MS));
      expect((await store.useApiKey(record.lookupId, LONG_WINDOW_MS, 1)).count).toBe(5);
      await store.returnApiKeyUses(record.lookupId, 50, LONG_WINDOW_MS);
      expect((await store.useApiKey(record.lookupId, LONG_WINDOW_MS, 1)).count).toBe(1);
    },
  "returnApiKeyUses - leaves a window that ends later than maxRemainingMs as it is, and starts none": async ({
    store,
    fixture,
    storedKey,
  }) => {
    const record = await storedKey();
    await store.returnApiKeyUses(record.lookupId, 2, LONG_WINDOW_MS); // no window yet: none started
    expect((await store.useApiKey(record.lookupId, LONG_WINDOW_MS, 3)).count).toBe(3);
    // A window counted in earlier would end within 1 s; this one ends in about LONG_WINDOW_MS.
    await store.returnApiKeyUses(record.lookupId, 2, 1_000);
    expect((await store.useApiKey(record.lookupId, LONG_WINDOW_MS, 1)).count).toBe(4);
    const unknown = newLookupId();
    expect((await store.useApiKey(unknown, SHORT_WINDOW_MS, 2)).count).toBe(2);
    await elapse(fixture, SHORT_WINDOW_MS + 50);
    await store.returnApiKeyUses(unknown, 1, LONG_WINDOW_MS); // its window has ended
    expect((await store.useApiKey(unknown, SHORT_WINDOW_MS, 1)).count).toBe(1);
  },
};
