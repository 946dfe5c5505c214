import { randomBytes } from "node:crypto";
import type { ActivityRecord, ActivityStore } from "@portcullis/core";
import { expect } from "vitest";
import {
  concurrently,
  defineStoreSuite,
  elapse,
  type StoreFixture,
  storeContext,
  uniqueId,
} from "./store-fixture.js";

const DAY_MS = 24 * 3600 * 1000;
const RETENTION_MS = 90 * DAY_MS;
/** An instant well inside the retention of every test clock. */
const BASE = Date.now();

/**
 * Ids as the core mints them (one length, lowercase hex, so they order alike in every store):
 * a prefix of the test's own (stores may share a table between tests), then `n`.
 */
const idsOfTest = () => {
  const prefix = randomBytes(6).toString("hex");
  return (n: number) => `${prefix}${n.toString(16).padStart(12, "0")}`;
};

/** An entry of `userId` at `at` (ms) with the id `idOf(n)`. */
function entryMaker(idOf: (n: number) => string) {
  return (userId: string, at: number, n: number, fields: Partial<ActivityRecord> = {}) =>
    entryOf(userId, at, idOf(n), fields);
}

function entryOf(userId: string, at: number, id: string, fields: Partial<ActivityRecord>): ActivityRecord {
  return {
    id,
    userId,
    type: "login.succeeded",
    at,
    ip: "203.0.113.7",
    browser: "Firefox 128",
    os: "Linux",
    reason: "password",
    ...fields,
  };
}

/** The store's clock now: the fixture's `now` (Redis's TIME) or the test process's. */
const storeNow = async (fixture: StoreFixture<ActivityStore>) =>
  Math.floor(await (fixture.now ?? Date.now)());

/** Every entry of the user, paged `size` at a time through `before`. */
async function listAll(store: ActivityStore, userId: string, size: number): Promise<ActivityRecord[]> {
  const all: ActivityRecord[] = [];
  for (let page = await store.list(userId, { limit: size }); page.length > 0; ) {
    all.push(...page);
    const last = page.at(-1) as ActivityRecord;
    page = await store.list(userId, { limit: size, before: { at: last.at, id: last.id } });
  }
  return all;
}

/**
 * The store of one test, with ids of the test's own, a maker of entries with them, and
 * `listedIds`: the ids a user's entries list with (newest first, 10 at most).
 */
function activityContext(fixture: StoreFixture<ActivityStore>) {
  const idOf = idsOfTest();
  const listedIds = async (userId: string) =>
    (await fixture.store.list(userId, { limit: 10 })).map((one) => one.id);
  return { ...storeContext(fixture), idOf, entry: entryMaker(idOf), listedIds };
}

/**
 * A new user's entries 1 to `earlier` recorded at the store's clock now, then entry `earlier + 1`
 * recorded 400 ms later on that clock, each kept `retentionMs`: the ids the user's entries list with.
 */
async function idsAfterALaterWrite(
  { store, fixture, entry, listedIds }: ReturnType<typeof activityContext>,
  earlier: number,
  retentionMs: number,
) {
  const user = uniqueId("user");
  for (let n = 1; n <= earlier; n++) await store.record(entry(user, await storeNow(fixture), n), retentionMs);
  await elapse(fixture, 400);
  await store.record(entry(user, await storeNow(fixture), earlier + 1), retentionMs);
  return listedIds(user);
}

/**
 * The executable contract of `ActivityStore` (see its TSDoc in @portcullis/core). The retention
 * tests let 400 ms pass on the store's clock (moved when the fixture can, waited for otherwise).
 */
export const runActivityStoreSuite = defineStoreSuite("ActivityStore", activityContext, {
  "": {
    "record - an entry reads back whole, every field, nulls included": async ({ store, entry }) => {
      const user = uniqueId("user");
      const full = entry(user, BASE, 1, { browser: "Édge 120 «beta»", os: null, ip: null, reason: null });
      await store.record(full, RETENTION_MS);
      expect(await store.list(user, { limit: 10 })).toEqual([full]);
    },
    "list - newest first: by at descending, then id descending": async ({ store, idOf, entry }) => {
      const user = uniqueId("user");
      const entries = [
        entry(user, BASE, 3),
        entry(user, BASE + 5, 1),
        entry(user, BASE, 7),
        entry(user, BASE - 9, 9),
      ];
      for (const one of entries) await store.record(one, RETENTION_MS);
      const ids = (await store.list(user, { limit: 10 })).map((one) => one.id);
      expect(ids).toEqual([idOf(1), idOf(7), idOf(3), idOf(9)]);
    },
    "list - an unknown user has [] and another user's entries are never listed": async ({ store, entry }) => {
      const [ada, bob] = [uniqueId("ada"), uniqueId("bob")];
      await store.record(entry(ada, BASE, 1), RETENTION_MS);
      await store.record(entry(bob, BASE, 2, { type: "login.failed" }), RETENTION_MS);
      expect((await store.list(ada, { limit: 10 })).map((one) => one.userId)).toEqual([ada]);
      expect((await store.list(bob, { limit: 10 })).map((one) => one.type)).toEqual(["login.failed"]);
      expect(await store.list(uniqueId("nobody"), { limit: 10 })).toEqual([]);
    },
    "list - before and limit page through every entry once, ties of at included": async ({
      store,
      entry,
    }) => {
      const user = uniqueId("user");
      const entries = Array.from({ length: 13 }, (_, n) => entry(user, BASE + Math.floor(n / 3), n + 1));
      for (const one of entries) await store.record(one, RETENTION_MS);
      const paged = await listAll(store, user, 4);
      expect(paged.map((one) => one.id)).toEqual(
        (await store.list(user, { limit: 100 })).map((one) => one.id),
      );
      expect(new Set(paged.map((one) => one.id)).size).toBe(13);
      expect(paged.map((one) => one.at)).toEqual([...paged.map((one) => one.at)].sort((a, b) => b - a));
    },
    "list - since leaves out entries older than it": async ({ store, idOf, entry }) => {
      const user = uniqueId("user");
      await store.record(entry(user, BASE - 10, 1), RETENTION_MS);
      await store.record(entry(user, BASE, 2), RETENTION_MS);
      expect((await store.list(user, { limit: 10, since: BASE - 5 })).map((one) => one.id)).toEqual([
        idOf(2),
      ]);
    },
    "record - 40 concurrent writes for one user and 10 for another all land, none twice": async ({
      store,
      idOf,
      entry,
    }) => {
      const [ada, bob] = [uniqueId("ada"), uniqueId("bob")];
      await concurrently(50, (n) =>
        store.record(entry(n < 40 ? ada : bob, BASE + (n % 7), n + 1), RETENTION_MS),
      );
      const adas = await listAll(store, ada, 7);
      expect(adas.map((one) => one.id).sort()).toEqual(
        Array.from({ length: 40 }, (_, n) => idOf(n + 1)).sort(),
      );
      expect(await store.list(bob, { limit: 100 })).toHaveLength(10);
    },
    "recordMany - (optional) entries of two users land whole, as record writes them; 10 concurrent batches all land":
      async ({ store, idOf, entry }) => {
        const recordMany = store.recordMany;
        if (recordMany === undefined) return;
        const [ada, bob] = [uniqueId("ada"), uniqueId("bob")];
        const first = [
          entry(ada, BASE, 1, { browser: "Édge 120 «beta»", os: null, ip: null, reason: null }),
          entry(bob, BASE + 1, 2, { type: "login.failed" }),
          entry(ada, BASE + 2, 3),
        ];
        await recordMany.call(store, first, RETENTION_MS);
        expect(await store.list(ada, { limit: 10 })).toEqual([first[2], first[0]]);
        expect(await store.list(bob, { limit: 10 })).toEqual([first[1]]);
        await recordMany.call(store, [], RETENTION_MS);
        await concurrently(10, (batch) =>
          recordMany.call(
            store,
            Array.from({ length: 4 }, (_, n) => entry(ada, BASE + 10 + n, 10 + batch * 4 + n)),
            RETENTION_MS,
          ),
        );
        const adas = await listAll(store, ada, 7);
        expect(adas.map((one) => one.id).sort()).toEqual(
          [1, 3, ...Array.from({ length: 40 }, (_, n) => 10 + n)].map(idOf).sort(),
        );
      },
    "deleteUserActivity - removes every entry of the user and only theirs; answers how many": async ({
      store,
      entry,
    }) => {
      const [ada, bob] = [uniqueId("ada"), uniqueId("bob")];
      for (let n = 1; n <= 3; n++) await store.record(entry(ada, BASE, n), RETENTION_MS);
      await store.record(entry(bob, BASE, 9), RETENTION_MS);
      expect(await store.deleteUserActivity(ada)).toBe(3);
      expect(await store.list(ada, { limit: 10 })).toEqual([]);
      expect(await store.list(bob, { limit: 10 })).toHaveLength(1);
      expect(await store.deleteUserActivity(ada)).toBe(0);
    },
    "sweepActivity - removes the entries older than the instant, of every user": async ({
      store,
      idOf,
      entry,
      listedIds,
    }) => {
      const [ada, bob] = [uniqueId("ada"), uniqueId("bob")];
      await store.record(entry(ada, BASE - 100, 1), RETENTION_MS);
      await store.record(entry(ada, BASE, 2), RETENTION_MS);
      await store.record(entry(bob, BASE - 100, 3), RETENTION_MS);
      expect(await store.sweepActivity(BASE - 50)).toBeGreaterThanOrEqual(2);
      expect(await listedIds(ada)).toEqual([idOf(2)]);
      expect(await store.list(bob, { limit: 10 })).toEqual([]);
    },
  },
  retention: {
    "record - a write a retention after older entries (on the store's clock) drops them": async (context) => {
      expect(await idsAfterALaterWrite(context, 2, 300)).toEqual([context.idOf(3)]);
    },
    "record - entries within the retention stay through later writes": async (context) => {
      expect(await idsAfterALaterWrite(context, 1, DAY_MS)).toEqual([context.idOf(2), context.idOf(1)]);
    },
  },
});
