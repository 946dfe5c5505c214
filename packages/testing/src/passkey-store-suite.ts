import type { PasskeyRecord, PasskeyStore } from "@portcullis/core";
import { expect } from "vitest";
import { concurrently, defineStoreSuite, storeContext, uniqueId } from "./store-fixture.js";

const newPasskey = (overrides: Partial<PasskeyRecord> = {}): PasskeyRecord => ({
  id: uniqueId("cred").replace(/[^A-Za-z0-9_-]/g, ""),
  userId: uniqueId("user"),
  publicKey: "pQECAyYgASFYIBoqLmVkdGhpcy1pcy1hLXB1YmxpYy1rZXk",
  counter: 0,
  transports: ["internal", "hybrid"],
  backupEligible: true,
  backedUp: true,
  name: "Laptop",
  createdAt: 1_700_000_000_000,
  lastUsedAt: null,
  ...overrides,
});

const use = (expectedCounter: number, counter: number, usedAt = 1_700_000_100_000) => ({
  expectedCounter,
  counter,
  backedUp: false,
  usedAt,
});

/** The executable contract of `PasskeyStore` (see its TSDoc in @portcullis/core). */
export const runPasskeyStoreSuite = defineStoreSuite("PasskeyStore", storeContext<PasskeyStore>, {
  "": {
    "create - stores the passkey and returns it; findById and listByUser read it back": async ({ store }) => {
      const passkey = newPasskey();
      expect(await store.create(passkey)).toEqual(passkey);
      expect(await store.findById(passkey.id)).toEqual(passkey);
      expect(await store.listByUser(passkey.userId)).toEqual([passkey]);
    },
    "create - keeps an empty transport list, false flags, a used time and a large counter": async ({
      store,
    }) => {
      const passkey = newPasskey({
        transports: [],
        backupEligible: false,
        backedUp: false,
        counter: 4_000_000_000,
        lastUsedAt: 1_700_000_000_999,
      });
      await store.create(passkey);
      expect(await store.findById(passkey.id)).toEqual(passkey);
    },
    "create - a credential id already stored (any user's) stores nothing and returns null": async ({
      store,
    }) => {
      const passkey = newPasskey();
      await store.create(passkey);
      const other = newPasskey({ id: passkey.id, name: "Other" });
      expect(await store.create(other)).toBeNull();
      expect(await store.findById(passkey.id)).toEqual(passkey);
      expect(await store.listByUser(other.userId)).toEqual([]);
    },
    "create - 20 concurrent creates of one credential id for 20 users: exactly one succeeds": async ({
      store,
    }) => {
      const id = newPasskey().id;
      const passkeys = Array.from({ length: 20 }, () => newPasskey({ id }));
      const results = await concurrently(20, (i) => store.create(passkeys[i] as PasskeyRecord));
      const created = results.filter((result) => result !== null);
      expect(created).toHaveLength(1);
      expect(await store.findById(id)).toEqual(created[0]);
    },
    "findById - null when absent; ids match exactly (case matters)": async ({ store }) => {
      const passkey = newPasskey({ id: `${newPasskey().id}AbC` });
      await store.create(passkey);
      expect(await store.findById(uniqueId("missing"))).toBeNull();
      expect(await store.findById(passkey.id.toLowerCase())).toBeNull();
      expect(await store.findById(passkey.id.toUpperCase())).toBeNull();
    },
    "listByUser - empty when none; the user's own, oldest first": async ({ store }) => {
      const userId = uniqueId("user");
      expect(await store.listByUser(userId)).toEqual([]);
      const later = newPasskey({ userId, createdAt: 1_700_000_000_500 });
      const earlier = newPasskey({ userId, createdAt: 1_700_000_000_000 });
      const someoneElse = newPasskey();
      await store.create(later);
      await store.create(earlier);
      await store.create(someoneElse);
      expect(await store.listByUser(userId)).toEqual([earlier, later]);
    },
    "recordUse - writes counter, backup state and last use while the counter is the expected one": async ({
      store,
    }) => {
      const passkey = newPasskey({ counter: 5 });
      await store.create(passkey);
      expect(await store.recordUse(passkey.id, use(5, 6))).toBe(true);
      expect(await store.findById(passkey.id)).toEqual({
        ...passkey,
        counter: 6,
        backedUp: false,
        lastUsedAt: 1_700_000_100_000,
      });
      expect(await store.recordUse(passkey.id, use(5, 7))).toBe(false);
      expect((await store.findById(passkey.id))?.counter).toBe(6);
      expect(await store.recordUse(uniqueId("missing"), use(0, 1))).toBe(false);
    },
    "recordUse - a counter of 0 (synced passkeys) is written again and again": async ({ store }) => {
      const passkey = newPasskey();
      await store.create(passkey);
      expect(await store.recordUse(passkey.id, use(0, 0, 1))).toBe(true);
      expect(await store.recordUse(passkey.id, use(0, 0, 2))).toBe(true);
      expect((await store.findById(passkey.id))?.lastUsedAt).toBe(2);
    },
    "recordUse - 20 concurrent uses verified against one counter: exactly one raises it": async ({
      store,
    }) => {
      const passkey = newPasskey({ counter: 10 });
      await store.create(passkey);
      const results = await concurrently(20, (i) => store.recordUse(passkey.id, use(10, 11 + i)));
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect((await store.findById(passkey.id))?.counter).toBe(11 + winner);
    },
    "rename - renames the user's passkey only; null for another user's or an unknown one": async ({
      store,
    }) => {
      const passkey = newPasskey();
      await store.create(passkey);
      expect(await store.rename(uniqueId("user"), passkey.id, "Stolen")).toBeNull();
      expect(await store.rename(passkey.userId, uniqueId("missing"), "Nothing")).toBeNull();
      expect(await store.rename(passkey.userId, passkey.id, "Phone")).toEqual({ ...passkey, name: "Phone" });
      expect(await store.findById(passkey.id)).toEqual({ ...passkey, name: "Phone" });
    },
    "delete - removes the user's passkey, frees its id, false the second time and for another user": async ({
      store,
    }) => {
      const passkey = newPasskey();
      await store.create(passkey);
      expect(await store.delete(uniqueId("user"), passkey.id)).toBe(false);
      expect(await store.findById(passkey.id)).toEqual(passkey);
      expect(await store.delete(passkey.userId, passkey.id)).toBe(true);
      expect(await store.findById(passkey.id)).toBeNull();
      expect(await store.delete(passkey.userId, passkey.id)).toBe(false);
      expect(await store.create(passkey)).toEqual(passkey);
    },
    "delete - keepAtLeast: removes only when the user keeps that many passkeys afterwards": async ({
      store,
    }) => {
      const userId = uniqueId("user");
      const first = newPasskey({ userId });
      const second = newPasskey({ userId, createdAt: first.createdAt + 1 });
      await store.create(first);
      await store.create(second);
      expect(await store.delete(userId, first.id, { keepAtLeast: 2 })).toBe(false);
      expect(await store.delete(userId, first.id, { keepAtLeast: 1 })).toBe(true);
      expect(await store.delete(userId, second.id, { keepAtLeast: 1 })).toBe(false);
      expect(await store.listByUser(userId)).toEqual([second]);
      expect(await store.delete(userId, second.id, { keepAtLeast: 0 })).toBe(true);
      expect(await store.listByUser(userId)).toEqual([]);
    },
    "delete - 20 concurrent deletes with keepAtLeast 1 of a user's 5 passkeys: exactly 1 is left": async ({
      store,
    }) => {
      const userId = uniqueId("user");
      const passkeys = Array.from({ length: 5 }, (_, i) =>
        newPasskey({ userId, createdAt: 1_700_000_000_000 + i }),
      );
      for (const passkey of passkeys) await store.create(passkey);
      const other = newPasskey();
      await store.create(other);
      const results = await concurrently(20, (i) =>
        store.delete(userId, (passkeys[i % 5] as PasskeyRecord).id, { keepAtLeast: 1 }),
      );
      expect(results.filter(Boolean)).toHaveLength(4);
      expect(await store.listByUser(userId)).toHaveLength(1);
      expect(await store.listByUser(other.userId)).toEqual([other]);
    },
    "deleteAllForUser - removes every passkey of the user and says how many; others stay": async ({
      store,
    }) => {
      const userId = uniqueId("user");
      const mine = [newPasskey({ userId }), newPasskey({ userId, createdAt: 1_700_000_000_001 })];
      for (const passkey of mine) await store.create(passkey);
      const other = newPasskey();
      await store.create(other);
      expect(await store.deleteAllForUser(userId)).toBe(2);
      expect(await store.listByUser(userId)).toEqual([]);
      expect(await store.findById((mine[0] as PasskeyRecord).id)).toBeNull();
      expect(await store.deleteAllForUser(userId)).toBe(0);
      expect(await store.findById(other.id)).toEqual(other);
    },
    "records - returned objects are copies: mutating them does not change the store": async ({ store }) => {
      const passkey = newPasskey();
      const created = await store.create(passkey);
      if (created) created.transports.push("usb");
      const found = await store.findById(passkey.id);
      if (found) {
        found.name = "evil";
        found.transports.push("nfc");
      }
      const [listed] = await store.listByUser(passkey.userId);
      if (listed) listed.counter = 99;
      expect(await store.findById(passkey.id)).toEqual(passkey);
    },
  },
});
