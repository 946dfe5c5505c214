import type { ScimUserRecord } from "@portcullis/core";
import { expect } from "vitest";
import { SCIM_CONCURRENCY_TESTS } from "./scim-store-concurrency.js";
import {
  byId,
  caseVariant,
  NOW,
  newAccountId,
  newConnectionId,
  newExternalId,
  newLetters,
  newScimId,
  type ScimTests,
  sampleAttributes,
  scimContext,
  swapCase,
  T0,
} from "./scim-store-context.js";
import { SCIM_DELETION_TESTS, SCIM_GROUP_TESTS, SCIM_GROUP_UPDATE_TESTS } from "./scim-store-groups.js";
import { defineStoreSuite } from "./store-fixture.js";

/** The tests of `createScimUser`, the finds of users, `listScimUsers` and `countScimUsers`. */
const USER_TESTS: ScimTests = {
  "createScimUser - stores the user as given; every find reads it back, its attributes' JSON whole": async ({
    store,
    user,
  }) => {
    const connectionId = newConnectionId();
    const first = user(connectionId, { createdAt: T0 + 1, updatedAt: T0 + 7 });
    const second = user(connectionId, {
      userName: "Zoë.Łukasiewicz+🦊@Example.com",
      externalId: null,
      active: false,
      suspendedRole: "Billing admin ✓",
      attributes: {},
    });
    for (const made of [first, second])
      expect(await store.createScimUser(structuredClone(made))).toBe("created");
    for (const made of [first, second]) {
      expect(await store.findScimUser(connectionId, made.id)).toEqual(made);
      expect(await store.findScimUserByUserName(connectionId, made.userName)).toEqual(made);
      expect(await store.findScimUserByUserId(connectionId, made.userId)).toEqual(made);
    }
    expect(await store.findScimUserByExternalId(connectionId, first.externalId ?? "")).toEqual(first);
    expect(await store.listScimUsers(connectionId, { limit: 10 })).toEqual(byId([first, second]));
    expect(await store.countScimUsers(connectionId)).toBe(2);
  },
  "findScimUser and the other finds, listScimUsers - return copies; the store keeps no reference to what it was given":
    async ({ store, user }) => {
      const connectionId = newConnectionId();
      const made = user(connectionId);
      const given = structuredClone(made);
      await store.createScimUser(given);
      (given.attributes.name as Record<string, unknown>).givenName = "Mallory";
      (given.attributes.emails as unknown[]).push({ value: "mallory@example.com" });
      given.active = false;
      const finds = [
        await store.findScimUser(connectionId, made.id),
        await store.findScimUserByUserName(connectionId, made.userName),
        await store.findScimUserByExternalId(connectionId, made.externalId ?? ""),
        await store.findScimUserByUserId(connectionId, made.userId),
        ...(await store.listScimUsers(connectionId, { limit: 1 })),
      ];
      for (const found of finds) {
        expect(found).toEqual(made);
        if (!found) continue;
        (found.attributes.emails as unknown[]).length = 0;
        found.attributes.added = true;
        found.version = 9;
      }
      expect(await store.findScimUser(connectionId, made.id)).toEqual(made);
      expect(await store.listScimUsers(connectionId, { limit: 1 })).toEqual([made]);
    },
  "findScimUser and the other finds - null for another connection, an unknown key, or an id, userId or externalId of another case":
    async ({ store, storedUser }) => {
      const connectionId = newConnectionId();
      const made = await storedUser(connectionId);
      const other = newConnectionId();
      const externalId = made.externalId ?? "";
      for (const connection of [other, swapCase(connectionId)]) {
        expect(await store.findScimUser(connection, made.id)).toBeNull();
        expect(await store.findScimUserByUserName(connection, made.userName)).toBeNull();
        expect(await store.findScimUserByExternalId(connection, externalId)).toBeNull();
        expect(await store.findScimUserByUserId(connection, made.userId)).toBeNull();
      }
      expect(await store.findScimUser(connectionId, newScimId())).toBeNull();
      expect(await store.findScimUser(connectionId, swapCase(made.id))).toBeNull();
      expect(await store.findScimUserByUserName(connectionId, `x${made.userName}`)).toBeNull();
      expect(await store.findScimUserByExternalId(connectionId, newExternalId())).toBeNull();
      expect(await store.findScimUserByExternalId(connectionId, swapCase(externalId))).toBeNull();
      expect(await store.findScimUserByUserId(connectionId, newAccountId())).toBeNull();
      expect(await store.findScimUserByUserId(connectionId, swapCase(made.userId))).toBeNull();
      expect(await store.findScimUser(connectionId, made.id)).toEqual(made);
    },
  "findScimUserByUserName - compares without case": async ({ store, storedUser }) => {
    const connectionId = newConnectionId();
    const made = await storedUser(connectionId, { userName: `Ada.${newLetters(6)}@Example.com` });
    for (const userName of [
      made.userName.toLowerCase(),
      made.userName.toUpperCase(),
      swapCase(made.userName),
    ])
      expect(await store.findScimUserByUserName(connectionId, userName)).toEqual(made);
    expect(await store.findScimUserByUserName(newConnectionId(), made.userName.toLowerCase())).toBeNull();
  },
  "createScimUser - user-name-taken when the connection has the userName in any case; nothing stored":
    async ({ store, user, storedUser }) => {
      const connectionId = newConnectionId();
      const first = await storedUser(connectionId, { userName: `Ada.${newLetters(6)}@Example.com` });
      const variants = [
        first.userName,
        first.userName.toLowerCase(),
        caseVariant(first.userName, 0b1010_0110),
      ];
      for (const userName of variants) {
        const refused = user(connectionId, { userName });
        expect(await store.createScimUser(structuredClone(refused))).toBe("user-name-taken");
        expect(await store.findScimUser(connectionId, refused.id)).toBeNull();
        expect(await store.findScimUserByUserId(connectionId, refused.userId)).toBeNull();
        expect(await store.findScimUserByExternalId(connectionId, refused.externalId ?? "")).toBeNull();
      }
      expect(await store.findScimUserByUserName(connectionId, first.userName.toUpperCase())).toEqual(first);
      expect(await store.listScimUsers(connectionId, { limit: 10 })).toEqual([first]);
      expect(await store.countScimUsers(connectionId)).toBe(1);
    },
  "createScimUser - user-taken when the connection has a user for the account; nothing stored": async ({
    store,
    user,
    storedUser,
  }) => {
    const connectionId = newConnectionId();
    const first = await storedUser(connectionId);
    const refused = user(connectionId, { userId: first.userId });
    expect(await store.createScimUser(structuredClone(refused))).toBe("user-taken");
    expect(await store.findScimUser(connectionId, refused.id)).toBeNull();
    expect(await store.findScimUserByUserName(connectionId, refused.userName)).toBeNull();
    expect(await store.findScimUserByUserId(connectionId, first.userId)).toEqual(first);
    expect(await store.countScimUsers(connectionId)).toBe(1);
    // Another account of another case is another account.
    await storedUser(connectionId, { userId: swapCase(first.userId) });
  },
  "createScimUser - another connection may have a user of the same userName, account and externalId": async ({
    store,
    storedUser,
  }) => {
    const [connectionId, otherId] = [newConnectionId(), newConnectionId()];
    const first = await storedUser(connectionId);
    const { userId, externalId } = first;
    const second = await storedUser(otherId, { userName: swapCase(first.userName), userId, externalId });
    for (const [connection, made] of [
      [connectionId, first],
      [otherId, second],
    ] as const) {
      expect(await store.findScimUserByUserName(connection, first.userName)).toEqual(made);
      expect(await store.findScimUserByUserId(connection, userId)).toEqual(made);
      expect(await store.findScimUserByExternalId(connection, externalId ?? "")).toEqual(made);
      expect(await store.listScimUsers(connection, { limit: 10 })).toEqual([made]);
      expect(await store.countScimUsers(connection)).toBe(1);
    }
  },
  "findScimUserByExternalId - compares with case; of several users, the lowest id (byte order)": async ({
    store,
    storedUser,
  }) => {
    const connectionId = newConnectionId();
    const externalId = newExternalId();
    const [b, lowest, a0] = [
      await storedUser(connectionId, { id: newScimId("b"), externalId }),
      await storedUser(connectionId, { id: newScimId("A1"), externalId }),
      await storedUser(connectionId, { id: newScimId("a0"), externalId }),
    ];
    await storedUser(connectionId, { externalId: swapCase(externalId) });
    await storedUser(connectionId, { externalId: null });
    expect(await store.findScimUserByExternalId(connectionId, externalId)).toEqual(lowest);
    expect(await store.deleteScimUser(connectionId, lowest.id)).toBe(true);
    expect(await store.findScimUserByExternalId(connectionId, externalId)).toEqual(a0);
    expect(await store.deleteScimUser(connectionId, a0.id)).toBe(true);
    expect(await store.findScimUserByExternalId(connectionId, externalId)).toEqual(b);
    // A user without an externalId has none: not the empty one.
    expect(await store.findScimUserByExternalId(connectionId, "")).toBeNull();
  },
  "listScimUsers - the connection's users ascending by id in byte order, a page after `after` of `limit`":
    async ({ store, storedUser }) => {
      const connectionId = newConnectionId();
      const made: ScimUserRecord[] = [];
      for (const first of ["a0", "Z9", "b", "A1", "_x", "0z", "B", "a1", "-"])
        made.push(await storedUser(connectionId, { id: newScimId(first) }));
      await storedUser(newConnectionId(), { id: newScimId("A") });
      const sorted = byId(made);
      const ids = sorted.map((one) => one.id);
      expect(await store.listScimUsers(connectionId, { limit: 1_000 })).toEqual(sorted);
      expect(await store.listScimUsers(connectionId, { limit: 3 })).toEqual(sorted.slice(0, 3));
      expect(await store.listScimUsers(connectionId, { after: ids[2], limit: 3 })).toEqual(
        sorted.slice(3, 6),
      );
      expect(await store.listScimUsers(connectionId, { after: ids[8], limit: 3 })).toEqual([]);
      // `after` need not be an id of the connection.
      const after = (one: ScimUserRecord) => one.id > "B";
      expect(await store.listScimUsers(connectionId, { after: "B", limit: 100 })).toEqual(
        sorted.filter(after),
      );
      const paged: ScimUserRecord[] = [];
      for (let page = await store.listScimUsers(connectionId, { limit: 1 }); page.length > 0; ) {
        expect(page).toHaveLength(1);
        paged.push(...page);
        page = await store.listScimUsers(connectionId, { after: page[0]?.id ?? "", limit: 1 });
      }
      expect(paged).toEqual(sorted);
      expect(await store.listScimUsers(newConnectionId(), { limit: 1_000 })).toEqual([]);
      expect(await store.listScimUsers(swapCase(connectionId), { limit: 1_000 })).toEqual([]);
    },
  "countScimUsers - the connection's users, and no other's": async ({ store, storedUser, storedUsers }) => {
    const connectionId = newConnectionId();
    expect(await store.countScimUsers(connectionId)).toBe(0);
    const [first] = await storedUsers(connectionId, 3);
    await storedUser(newConnectionId());
    expect(await store.countScimUsers(connectionId)).toBe(3);
    await store.deleteScimUser(connectionId, first?.id ?? "");
    expect(await store.countScimUsers(connectionId)).toBe(2);
    expect(await store.countScimUsers(swapCase(connectionId))).toBe(0);
  },
  "deleteScimUser - true and the user is gone; false when absent, of another connection or another case":
    async ({ store, storedUser }) => {
      const connectionId = newConnectionId();
      const gone = await storedUser(connectionId);
      const kept = await storedUser(connectionId);
      expect(await store.deleteScimUser(newConnectionId(), gone.id)).toBe(false);
      expect(await store.deleteScimUser(connectionId, swapCase(gone.id))).toBe(false);
      expect(await store.deleteScimUser(connectionId, newScimId())).toBe(false);
      expect(await store.findScimUser(connectionId, gone.id)).toEqual(gone);
      expect(await store.deleteScimUser(connectionId, gone.id)).toBe(true);
      expect(await store.findScimUser(connectionId, gone.id)).toBeNull();
      expect(await store.findScimUserByUserName(connectionId, gone.userName)).toBeNull();
      expect(await store.findScimUserByExternalId(connectionId, gone.externalId ?? "")).toBeNull();
      expect(await store.findScimUserByUserId(connectionId, gone.userId)).toBeNull();
      expect(await store.listScimUsers(connectionId, { limit: 10 })).toEqual([kept]);
      expect(
        await store.updateScimUser(connectionId, gone.id, 1, { active: false, updatedAt: NOW }),
      ).toBeNull();
      expect(await store.deleteScimUser(connectionId, gone.id)).toBe(false);
      // Its userName and account are free again.
      await storedUser(connectionId, { userName: gone.userName.toUpperCase(), userId: gone.userId });
    },
};

/** The tests of `updateScimUser`. */
const USER_UPDATE_TESTS: ScimTests = {
  "updateScimUser - changes the given fields only: version + 1, updatedAt as given; the user as it is now":
    async ({ store, storedUser }) => {
      const connectionId = newConnectionId();
      const made = await storedUser(connectionId);
      const other = await storedUser(connectionId);
      const suspended = { ...made, active: false, suspendedRole: "admin", version: 2, updatedAt: NOW };
      const patch = { active: false, suspendedRole: "admin", updatedAt: NOW };
      expect(await store.updateScimUser(connectionId, made.id, 1, patch)).toEqual(suspended);
      expect(await store.findScimUser(connectionId, made.id)).toEqual(suspended);
      const next = {
        userName: `Grace.${newLetters(6)}@Example.com`,
        externalId: null,
        active: true,
        suspendedRole: null,
        attributes: { ...sampleAttributes(), title: "Rear Admiral ⚓" },
        updatedAt: NOW + 1,
      };
      const renamed = { ...suspended, ...next, version: 3 };
      expect(await store.updateScimUser(connectionId, made.id, 2, structuredClone(next))).toEqual(renamed);
      expect(await store.findScimUserByUserName(connectionId, next.userName.toLowerCase())).toEqual(renamed);
      expect(await store.findScimUserByUserName(connectionId, made.userName)).toBeNull();
      expect(await store.findScimUserByExternalId(connectionId, made.externalId ?? "")).toBeNull();
      const touched = { ...renamed, version: 4, updatedAt: NOW + 2 };
      expect(await store.updateScimUser(connectionId, made.id, 3, { updatedAt: NOW + 2 })).toEqual(touched);
      const externalId = newExternalId();
      const relinked = { ...touched, externalId, version: 5, updatedAt: NOW + 3 };
      expect(
        await store.updateScimUser(connectionId, made.id, 4, { externalId, updatedAt: NOW + 3 }),
      ).toEqual(relinked);
      expect(await store.findScimUserByExternalId(connectionId, externalId)).toEqual(relinked);
      expect(await store.findScimUserByUserId(connectionId, made.userId)).toEqual(relinked);
      expect(await store.listScimUsers(connectionId, { limit: 10 })).toEqual(byId([relinked, other]));
      // Its old userName is free.
      await storedUser(connectionId, { userName: made.userName });
    },
  "updateScimUser - conflict when the version moved on; nothing changes": async ({ store, storedUser }) => {
    const connectionId = newConnectionId();
    const made = await storedUser(connectionId);
    const updated = { ...made, active: false, version: 2, updatedAt: NOW };
    expect(await store.updateScimUser(connectionId, made.id, 1, { active: false, updatedAt: NOW })).toEqual(
      updated,
    );
    const stale = { userName: `Stale.${newLetters(6)}@example.com`, active: true, updatedAt: NOW + 1 };
    expect(await store.updateScimUser(connectionId, made.id, 1, stale)).toBe("conflict");
    expect(await store.findScimUser(connectionId, made.id)).toEqual(updated);
    expect(await store.findScimUserByUserName(connectionId, stale.userName)).toBeNull();
    const again = { ...updated, active: true, version: 3, updatedAt: NOW + 2 };
    expect(
      await store.updateScimUser(connectionId, made.id, 2, { active: true, updatedAt: NOW + 2 }),
    ).toEqual(again);
    expect(await store.updateScimUser(connectionId, made.id, 2, { updatedAt: NOW + 3 })).toBe("conflict");
    expect(await store.findScimUser(connectionId, made.id)).toEqual(again);
  },
  "updateScimUser - null for an unknown id, one of another connection or case; nothing changes": async ({
    store,
    storedUser,
  }) => {
    const connectionId = newConnectionId();
    const made = await storedUser(connectionId);
    const patch = { active: false, suspendedRole: "owner", updatedAt: NOW };
    expect(await store.updateScimUser(connectionId, newScimId(), 1, patch)).toBeNull();
    expect(await store.updateScimUser(newConnectionId(), made.id, 1, patch)).toBeNull();
    expect(await store.updateScimUser(connectionId, swapCase(made.id), 1, patch)).toBeNull();
    expect(await store.findScimUser(connectionId, made.id)).toEqual(made);
  },
  "updateScimUser - user-name-taken when another user of the connection has the name in any case; nothing changes":
    async ({ store, storedUser }) => {
      const connectionId = newConnectionId();
      const first = await storedUser(connectionId, { userName: `Ada.${newLetters(6)}@Example.com` });
      const second = await storedUser(connectionId);
      const stranger = await storedUser(newConnectionId());
      for (const userName of [
        first.userName,
        first.userName.toLowerCase(),
        caseVariant(first.userName, 0b11),
      ]) {
        const patch = { userName, active: false, attributes: {}, updatedAt: NOW };
        expect(await store.updateScimUser(connectionId, second.id, 1, patch)).toBe("user-name-taken");
      }
      expect(await store.findScimUser(connectionId, second.id)).toEqual(second);
      expect(await store.findScimUserByUserName(connectionId, first.userName)).toEqual(first);
      // Its own name in another case, or another connection's, is no other user's.
      const recased = { ...first, userName: first.userName.toUpperCase(), version: 2, updatedAt: NOW };
      const patch = { userName: recased.userName, updatedAt: NOW };
      expect(await store.updateScimUser(connectionId, first.id, 1, patch)).toEqual(recased);
      const taken = { ...second, userName: stranger.userName, version: 2, updatedAt: NOW };
      const adopt = { userName: stranger.userName, updatedAt: NOW };
      expect(await store.updateScimUser(connectionId, second.id, 1, adopt)).toEqual(taken);
      expect(await store.findScimUserByUserName(connectionId, first.userName.toLowerCase())).toEqual(recased);
    },
  "updateScimUser - returns a copy; the store keeps no reference to the patch": async ({
    store,
    storedUser,
  }) => {
    const connectionId = newConnectionId();
    const made = await storedUser(connectionId);
    const attributes = sampleAttributes();
    const patch = { attributes: structuredClone(attributes), updatedAt: NOW };
    const updated = { ...made, attributes, version: 2, updatedAt: NOW };
    const result = await store.updateScimUser(connectionId, made.id, 1, patch);
    expect(result).toEqual(updated);
    (patch.attributes.emails as unknown[]).pop();
    patch.attributes.note = "changed";
    if (result && typeof result === "object")
      (result.attributes.name as Record<string, unknown>).givenName = "";
    expect(await store.findScimUser(connectionId, made.id)).toEqual(updated);
  },
};

/**
 * The executable contract of `ScimStore` (see its TSDoc in @portcullis/core). The tests make their
 * own random connections and ids, so they may share a store (a key prefix or SQL schema) with
 * other tests: none expects an empty store. Where the port's TSDoc leaves a point open, the suite
 * reads it so:
 * - Ids, connection ids, account ids and externalIds match byte for byte: one of another letter
 *   case is another (a case-insensitive SQL collation fails the suite).
 * - "Ascending by id" and "the lowest id" are byte order (code unit order of the ASCII ids the
 *   suite makes): "A1…" before "a0…", "_…" after "Z…".
 * - "Without case" is tested on ASCII letters only; how letters outside ASCII compare is left open
 *   (a userName outside ASCII is found by itself).
 * - Member ids are not checked: a group may name ids no user of its connection has (another
 *   connection's group names a user's id in one test), and the store keeps them, sorted.
 * - A group that `deleteScimUser` takes a member out of has version + 1; its `updatedAt` is left
 *   open (the store may set it by its clock).
 * - Left open: which of "user-name-taken" and "user-taken" a user with both answers; which of
 *   "conflict" and "*-taken" an update with both answers; an update naming a version the record
 *   has not reached; creating a record whose id is already stored; a record given with a version
 *   other than 1.
 */
export const runScimStoreSuite = defineStoreSuite("ScimStore", scimContext, {
  users: USER_TESTS,
  updateScimUser: USER_UPDATE_TESTS,
  groups: SCIM_GROUP_TESTS,
  updateScimGroup: SCIM_GROUP_UPDATE_TESTS,
  deletions: SCIM_DELETION_TESTS,
  concurrency: SCIM_CONCURRENCY_TESTS,
});
