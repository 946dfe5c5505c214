// The ScimStore conformance tests of calls made at once (SCIM_CONCURRENCY_TESTS): of creations
// naming one key one wins, of compare-and-set updates naming one version one wins, and no change
// is lost.
import type { ScimGroupRecord, ScimStore, ScimUserRecord } from "@portcullis/core";
import { expect } from "vitest";
import {
  AT_ONCE,
  caseVariant,
  NOW,
  newConnectionId,
  newLetters,
  newScimId,
  type ScimTests,
  sortedIds,
} from "./scim-store-context.js";
import { concurrently } from "./store-fixture.js";

/** How many times `addMember` reads and tries again before it gives up (each round, one caller wins). */
const MAX_ATTEMPTS = AT_ONCE * 5;

/**
 * Adds `memberId` to the group as an identity provider's PATCH does: reads it, updates it at the
 * version read, and on "conflict" reads again and retries. The group as it is after its update.
 */
async function addMember(store: ScimStore, group: ScimGroupRecord, memberId: string) {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const now = await store.findScimGroup(group.connectionId, group.id);
    if (now === null) throw new Error(`addMember: the group ${group.id} is gone`);
    const patch = { memberIds: [...now.memberIds, memberId], updatedAt: NOW };
    const result = await store.updateScimGroup(group.connectionId, group.id, now.version, patch);
    if (result !== "conflict") return result;
  }
  throw new Error(`addMember: still a conflict after ${MAX_ATTEMPTS} attempts`);
}

/** The records of `made` the store has: only `winner`, the others not at all. */
async function expectOnlyWinner(
  store: ScimStore,
  made: ScimUserRecord[],
  winner: ScimUserRecord | undefined,
) {
  expect(winner).toBeDefined();
  for (const one of made)
    expect(await store.findScimUser(one.connectionId, one.id)).toEqual(one === winner ? one : null);
}

/** The tests of users made and changed at once. */
const USER_CONCURRENCY_TESTS: ScimTests = {
  "createScimUser - 20 at once naming one userName in different cases: exactly one created, the others user-name-taken":
    async ({ store, user }) => {
      const connectionId = newConnectionId();
      const base = `${newLetters(8)}@example.com`;
      const made = Array.from({ length: AT_ONCE }, (_, index) =>
        user(connectionId, { userName: caseVariant(base, index) }),
      );
      const results = await concurrently(AT_ONCE, (index) =>
        store.createScimUser(structuredClone(made[index] as ScimUserRecord)),
      );
      expect(results.filter((result) => result === "created")).toHaveLength(1);
      expect(results.filter((result) => result === "user-name-taken")).toHaveLength(AT_ONCE - 1);
      await expectOnlyWinner(store, made, made[results.indexOf("created")]);
      expect(await store.countScimUsers(connectionId)).toBe(1);
    },
  "createScimUser - 20 at once for one account: exactly one created, the others user-taken": async ({
    store,
    user,
  }) => {
    const connectionId = newConnectionId();
    const first = user(connectionId);
    const made = Array.from({ length: AT_ONCE }, () => user(connectionId, { userId: first.userId }));
    const results = await concurrently(AT_ONCE, (index) =>
      store.createScimUser(structuredClone(made[index] as ScimUserRecord)),
    );
    expect(results.filter((result) => result === "created")).toHaveLength(1);
    expect(results.filter((result) => result === "user-taken")).toHaveLength(AT_ONCE - 1);
    const winner = made[results.indexOf("created")];
    await expectOnlyWinner(store, made, winner);
    expect(await store.findScimUserByUserId(connectionId, first.userId)).toEqual(winner);
  },
  "updateScimUser - 20 at once at one version: exactly one succeeds, the others conflict": async ({
    store,
    storedUser,
  }) => {
    const connectionId = newConnectionId();
    const made = await storedUser(connectionId);
    const patches = Array.from({ length: AT_ONCE }, (_, index) => ({
      userName: `Writer${index}.${newLetters(4)}@example.com`,
      attributes: { writer: index },
      updatedAt: NOW + index,
    }));
    const results = await concurrently(AT_ONCE, (index) =>
      store.updateScimUser(connectionId, made.id, 1, structuredClone(patches[index] ?? { updatedAt: NOW })),
    );
    expect(results.filter((result) => result === "conflict")).toHaveLength(AT_ONCE - 1);
    const winner = results.findIndex((result) => result !== "conflict");
    const updated = { ...made, ...patches[winner], version: 2 };
    expect(results[winner]).toEqual(updated);
    expect(await store.findScimUser(connectionId, made.id)).toEqual(updated);
    expect(await store.findScimUserByUserName(connectionId, made.userName)).toBeNull();
  },
  "updateScimUser - 20 users at once renaming to one userName in different cases: exactly one gets it":
    async ({ store, storedUsers }) => {
      const connectionId = newConnectionId();
      const users = await storedUsers(connectionId, AT_ONCE);
      const base = `${newLetters(8)}@example.com`;
      const results = await concurrently(AT_ONCE, (index) => {
        const { id } = users[index] as ScimUserRecord;
        return store.updateScimUser(connectionId, id, 1, {
          userName: caseVariant(base, index),
          updatedAt: NOW,
        });
      });
      expect(results.filter((result) => result === "user-name-taken")).toHaveLength(AT_ONCE - 1);
      const winner = results.findIndex((result) => result !== "user-name-taken");
      const renamed = { ...users[winner], userName: caseVariant(base, winner), version: 2, updatedAt: NOW };
      expect(results[winner]).toEqual(renamed);
      expect(await store.findScimUserByUserName(connectionId, base)).toEqual(renamed);
      for (const [index, one] of users.entries())
        if (index !== winner) expect(await store.findScimUser(connectionId, one.id)).toEqual(one);
    },
};

/** The tests of groups made and changed at once, and of users deleted while their groups change. */
const GROUP_CONCURRENCY_TESTS: ScimTests = {
  "createScimGroup - 20 at once naming one displayName in different cases: exactly one created": async ({
    store,
    group,
  }) => {
    const connectionId = newConnectionId();
    const base = `Platform ${newLetters(8)}`;
    const made = Array.from({ length: AT_ONCE }, (_, index) =>
      group(connectionId, { displayName: caseVariant(base, index), memberIds: [newScimId()] }),
    );
    const results = await concurrently(AT_ONCE, (index) =>
      store.createScimGroup(structuredClone(made[index] as ScimGroupRecord)),
    );
    expect(results.filter((result) => result === "created")).toHaveLength(1);
    expect(results.filter((result) => result === "display-name-taken")).toHaveLength(AT_ONCE - 1);
    const winner = made[results.indexOf("created")];
    for (const one of made)
      expect(await store.findScimGroup(connectionId, one.id)).toEqual(one === winner ? one : null);
    expect(await store.listScimGroups(connectionId, { limit: 100 })).toEqual([winner]);
  },
  "updateScimGroup - 20 at once each adding a member, reading again on conflict: no member is lost": async ({
    store,
    storedUsers,
    storedGroup,
  }) => {
    const connectionId = newConnectionId();
    const memberIds = (await storedUsers(connectionId, AT_ONCE)).map((user) => user.id);
    const made = await storedGroup(connectionId);
    const results = await concurrently(AT_ONCE, (index) => addMember(store, made, memberIds[index] ?? ""));
    for (const [index, result] of results.entries()) {
      expect(result).not.toBeNull();
      if (result && typeof result === "object") expect(result.memberIds).toContain(memberIds[index]);
    }
    const found = await store.findScimGroup(connectionId, made.id);
    expect(found).toEqual({ ...made, memberIds: sortedIds(memberIds), version: AT_ONCE + 1, updatedAt: NOW });
    for (const memberId of memberIds)
      expect(await store.listScimGroupsOfUsers(connectionId, [memberId])).toEqual([found]);
  },
  "deleteScimUser - 20 members of one group at once: none is left, its version moved on once for each":
    async ({ store, storedUsers, storedGroup }) => {
      const connectionId = newConnectionId();
      const memberIds = (await storedUsers(connectionId, AT_ONCE)).map((user) => user.id);
      const made = await storedGroup(connectionId, { memberIds });
      const results = await concurrently(AT_ONCE, (index) =>
        store.deleteScimUser(connectionId, memberIds[index] ?? ""),
      );
      expect(results).toEqual(Array(AT_ONCE).fill(true));
      const found = await store.findScimGroup(connectionId, made.id);
      expect(found).toEqual({ ...made, memberIds: [], version: AT_ONCE + 1, updatedAt: expect.any(Number) });
      expect(await store.countScimUsers(connectionId)).toBe(0);
    },
  "deleteScimUser, updateScimGroup - 10 of each at once, the updates naming the deleted users: none comes back":
    async ({ store, storedUsers, storedGroup }) => {
      const connectionId = newConnectionId();
      const memberIds = (await storedUsers(connectionId, AT_ONCE)).map((user) => user.id);
      const made = await storedGroup(connectionId, { memberIds });
      const deleted = memberIds.filter((_, index) => index % 2 === 0);
      const results = await concurrently(AT_ONCE, async (index) => {
        if (index % 2 === 0) return store.deleteScimUser(connectionId, memberIds[index] ?? "");
        const patch = { memberIds: [...memberIds, newScimId()], updatedAt: NOW + index };
        return store.updateScimGroup(connectionId, made.id, 1, patch);
      });
      expect(results.filter((result) => result === true)).toHaveLength(AT_ONCE / 2);
      const updated = results.filter((result) => typeof result === "object" && result !== null);
      expect(updated.length).toBeLessThanOrEqual(1);
      expect(results.filter((result) => result === "conflict")).toHaveLength(AT_ONCE / 2 - updated.length);
      const found = await store.findScimGroup(connectionId, made.id);
      for (const memberId of deleted) expect(found?.memberIds).not.toContain(memberId);
      for (const memberId of memberIds.filter((id) => !deleted.includes(id)))
        expect(found?.memberIds).toContain(memberId);
      expect(found?.version).toBe(1 + AT_ONCE / 2 + updated.length);
    },
};

/** The tests of calls made at once. */
export const SCIM_CONCURRENCY_TESTS: ScimTests = { ...USER_CONCURRENCY_TESTS, ...GROUP_CONCURRENCY_TESTS };
