// The ScimStore conformance tests of the groups: createScimGroup, its finds, listScimGroups,
// countScimGroups and listScimGroupsOfUsers (SCIM_GROUP_TESTS); updateScimGroup
// (SCIM_GROUP_UPDATE_TESTS); deleteScimUser's groups, deleteScimGroup and removeConnectionScim
// (SCIM_DELETION_TESTS).
import type { ScimGroupRecord } from "@portcullis/core";
import { expect } from "vitest";
import {
  byId,
  caseVariant,
  NOW,
  newConnectionId,
  newExternalId,
  newLetters,
  newScimId,
  type ScimTests,
  sortedIds,
  swapCase,
  T0,
} from "./scim-store-context.js";

/** The tests of `createScimGroup`, the finds of groups, `listScimGroups`, `countScimGroups` and `listScimGroupsOfUsers`. */
export const SCIM_GROUP_TESTS: ScimTests = {
  "createScimGroup - stores the group as given, its members sorted without repeats; the finds read it back":
    async ({ store, group, storedUser }) => {
      const connectionId = newConnectionId();
      const ids: string[] = [];
      for (const first of ["b", "A1", "a0", "_", "0"])
        ids.push((await storedUser(connectionId, { id: newScimId(first) })).id);
      const [b = "", a1 = "", a0 = "", underscore = "", zero = ""] = ids;
      const given = [b, a1, a0, b, underscore, zero, a1];
      const first = group(connectionId, { memberIds: given, createdAt: T0 + 1, updatedAt: T0 + 9 });
      const second = group(connectionId, { displayName: "Équipe Zoë 🦊", externalId: null, role: null });
      for (const made of [first, second])
        expect(await store.createScimGroup(structuredClone(made))).toBe("created");
      const stored = { ...first, memberIds: [zero, a1, underscore, a0, b] };
      expect(stored.memberIds).toEqual(sortedIds(given));
      for (const made of [stored, second]) {
        expect(await store.findScimGroup(connectionId, made.id)).toEqual(made);
        expect(await store.findScimGroupByDisplayName(connectionId, made.displayName)).toEqual(made);
      }
      expect(await store.findScimGroupByExternalId(connectionId, first.externalId ?? "")).toEqual(stored);
      expect(await store.listScimGroups(connectionId, { limit: 10 })).toEqual(byId([stored, second]));
      expect(await store.countScimGroups(connectionId)).toBe(2);
    },
  "findScimGroup and the other finds, listScimGroups - return copies; the store keeps no reference to what it was given":
    async ({ store, group, storedUsers }) => {
      const connectionId = newConnectionId();
      const memberIds = (await storedUsers(connectionId, 2)).map((user) => user.id);
      const made = { ...group(connectionId), memberIds: sortedIds(memberIds) };
      const given = structuredClone(made);
      await store.createScimGroup(given);
      given.memberIds.push(newScimId());
      given.role = "owner";
      const finds = [
        await store.findScimGroup(connectionId, made.id),
        await store.findScimGroupByDisplayName(connectionId, made.displayName),
        await store.findScimGroupByExternalId(connectionId, made.externalId ?? ""),
        ...(await store.listScimGroups(connectionId, { limit: 1 })),
        ...(await store.listScimGroupsOfUsers(connectionId, [memberIds[0] ?? ""])),
      ];
      for (const found of finds) {
        expect(found).toEqual(made);
        found?.memberIds.pop();
        if (found) found.version = 9;
      }
      expect(await store.findScimGroup(connectionId, made.id)).toEqual(made);
    },
  "findScimGroup and the other finds - null for another connection, an unknown key, or an id or externalId of another case":
    async ({ store, storedGroup }) => {
      const connectionId = newConnectionId();
      const made = await storedGroup(connectionId);
      const externalId = made.externalId ?? "";
      for (const connection of [newConnectionId(), swapCase(connectionId)]) {
        expect(await store.findScimGroup(connection, made.id)).toBeNull();
        expect(await store.findScimGroupByDisplayName(connection, made.displayName)).toBeNull();
        expect(await store.findScimGroupByExternalId(connection, externalId)).toBeNull();
      }
      expect(await store.findScimGroup(connectionId, newScimId("G"))).toBeNull();
      expect(await store.findScimGroup(connectionId, swapCase(made.id))).toBeNull();
      expect(await store.findScimGroupByDisplayName(connectionId, `${made.displayName} 2`)).toBeNull();
      expect(await store.findScimGroupByExternalId(connectionId, swapCase(externalId))).toBeNull();
      expect(await store.findScimGroupByExternalId(connectionId, newExternalId())).toBeNull();
      expect(await store.findScimGroup(connectionId, made.id)).toEqual(made);
    },
  "findScimGroupByDisplayName - compares without case": async ({ store, storedGroup }) => {
    const connectionId = newConnectionId();
    const made = await storedGroup(connectionId, { displayName: `Admins ${newLetters(6)} EU` });
    for (const name of [
      made.displayName.toLowerCase(),
      made.displayName.toUpperCase(),
      swapCase(made.displayName),
    ])
      expect(await store.findScimGroupByDisplayName(connectionId, name)).toEqual(made);
  },
  "findScimGroupByExternalId - compares with case; of several groups, the lowest id (byte order)": async ({
    store,
    storedGroup,
  }) => {
    const connectionId = newConnectionId();
    const externalId = newExternalId();
    const a0 = await storedGroup(connectionId, { id: newScimId("a0"), externalId });
    const lowest = await storedGroup(connectionId, { id: newScimId("A1"), externalId });
    await storedGroup(connectionId, { id: newScimId("0"), externalId: swapCase(externalId) });
    await storedGroup(connectionId, { externalId: null });
    expect(await store.findScimGroupByExternalId(connectionId, externalId)).toEqual(lowest);
    expect(await store.deleteScimGroup(connectionId, lowest.id)).toBe(true);
    expect(await store.findScimGroupByExternalId(connectionId, externalId)).toEqual(a0);
    expect(await store.findScimGroupByExternalId(connectionId, "")).toBeNull();
  },
  "createScimGroup - display-name-taken when the connection has the name in any case; nothing stored":
    async ({ store, group, storedGroup }) => {
      const connectionId = newConnectionId();
      const first = await storedGroup(connectionId, { displayName: `Sales ${newLetters(6)} EMEA` });
      for (const displayName of [first.displayName, caseVariant(first.displayName, 0b0101_1010)]) {
        const refused = group(connectionId, { displayName, memberIds: [newScimId()] });
        expect(await store.createScimGroup(structuredClone(refused))).toBe("display-name-taken");
        expect(await store.findScimGroup(connectionId, refused.id)).toBeNull();
        expect(await store.findScimGroupByExternalId(connectionId, refused.externalId ?? "")).toBeNull();
        expect(await store.listScimGroupsOfUsers(connectionId, [refused.memberIds[0] ?? ""])).toEqual([]);
      }
      expect(await store.listScimGroups(connectionId, { limit: 10 })).toEqual([first]);
      expect(await store.countScimGroups(connectionId)).toBe(1);
      // Another connection may have a group of that name.
      const other = await storedGroup(newConnectionId(), { displayName: first.displayName.toLowerCase() });
      expect(await store.findScimGroupByDisplayName(other.connectionId, first.displayName)).toEqual(other);
      expect(await store.findScimGroupByDisplayName(connectionId, other.displayName)).toEqual(first);
    },
  "listScimGroups, countScimGroups - the connection's groups ascending by id in byte order, a page after `after`":
    async ({ store, storedGroup }) => {
      const connectionId = newConnectionId();
      expect(await store.countScimGroups(connectionId)).toBe(0);
      const made: ScimGroupRecord[] = [];
      for (const first of ["a0", "Z", "A1", "_", "0", "b"])
        made.push(await storedGroup(connectionId, { id: newScimId(first) }));
      await storedGroup(newConnectionId(), { id: newScimId("A") });
      const sorted = byId(made);
      expect(await store.listScimGroups(connectionId, { limit: 1_000 })).toEqual(sorted);
      expect(await store.listScimGroups(connectionId, { limit: 2 })).toEqual(sorted.slice(0, 2));
      const after = sorted[1]?.id;
      expect(await store.listScimGroups(connectionId, { after, limit: 3 })).toEqual(sorted.slice(2, 5));
      expect(await store.listScimGroups(connectionId, { after: sorted[5]?.id, limit: 3 })).toEqual([]);
      expect(await store.listScimGroups(connectionId, { after: "a", limit: 10 })).toEqual(
        sorted.filter((one) => one.id > "a"),
      );
      expect(await store.countScimGroups(connectionId)).toBe(6);
      expect(await store.listScimGroups(swapCase(connectionId), { limit: 10 })).toEqual([]);
      expect(await store.countScimGroups(swapCase(connectionId))).toBe(0);
    },
  "listScimGroupsOfUsers - the connection's groups naming the user, ascending by id; no other connection's":
    async ({ store, storedUsers, storedGroup }) => {
      const connectionId = newConnectionId();
      const [member = "", stranger = ""] = (await storedUsers(connectionId, 2)).map((user) => user.id);
      const b = await storedGroup(connectionId, { id: newScimId("b"), memberIds: [stranger, member] });
      const a1 = await storedGroup(connectionId, { id: newScimId("A1"), memberIds: [member] });
      await storedGroup(connectionId, { id: newScimId("0"), memberIds: [stranger] });
      const a0 = await storedGroup(connectionId, { id: newScimId("a0"), memberIds: [member, member] });
      // Another connection's group naming the same id (the store does not check member ids).
      await storedGroup(newConnectionId(), { id: newScimId("A0"), memberIds: [member] });
      expect(await store.listScimGroupsOfUsers(connectionId, [member])).toEqual([a1, a0, b]);
      expect(await store.listScimGroupsOfUsers(connectionId, [swapCase(member)])).toEqual([]);
      expect(await store.listScimGroupsOfUsers(connectionId, [newScimId()])).toEqual([]);
      expect(await store.listScimGroupsOfUsers(newConnectionId(), [member])).toEqual([]);
      // Several users at once: each group naming any of them, once.
      const zero = (await store.listScimGroupsOfUsers(connectionId, [stranger]))[0];
      expect(await store.listScimGroupsOfUsers(connectionId, [member, stranger, newScimId()])).toEqual([
        zero,
        a1,
        a0,
        b,
      ]);
      expect(await store.listScimGroupsOfUsers(connectionId, [])).toEqual([]);
    },
};

/** The tests of `updateScimGroup`. */
export const SCIM_GROUP_UPDATE_TESTS: ScimTests = {
  "updateScimGroup - changes the given fields only: version + 1, updatedAt as given; memberIds replaced, sorted, without repeats":
    async ({ store, storedUsers, storedGroup }) => {
      const connectionId = newConnectionId();
      const [x = "", y = "", z = ""] = byId(await storedUsers(connectionId, 3)).map((user) => user.id);
      const made = await storedGroup(connectionId, { memberIds: [z, x] });
      const other = await storedGroup(connectionId, { memberIds: [x] });
      const members = { memberIds: [z, y, z, x, y], updatedAt: NOW };
      const replaced = { ...made, memberIds: [x, y, z], version: 2, updatedAt: NOW };
      expect(await store.updateScimGroup(connectionId, made.id, 1, structuredClone(members))).toEqual(
        replaced,
      );
      expect(await store.findScimGroup(connectionId, made.id)).toEqual(replaced);
      const next = {
        displayName: `Renamed ${newLetters(6)} ✓`,
        externalId: null,
        role: "admin",
        memberIds: [y],
        updatedAt: NOW + 1,
      };
      const renamed = { ...replaced, ...next, version: 3 };
      expect(await store.updateScimGroup(connectionId, made.id, 2, structuredClone(next))).toEqual(renamed);
      expect(await store.findScimGroupByDisplayName(connectionId, next.displayName.toUpperCase())).toEqual(
        renamed,
      );
      expect(await store.findScimGroupByDisplayName(connectionId, made.displayName)).toBeNull();
      expect(await store.findScimGroupByExternalId(connectionId, made.externalId ?? "")).toBeNull();
      const touched = { ...renamed, version: 4, updatedAt: NOW + 2 };
      expect(await store.updateScimGroup(connectionId, made.id, 3, { updatedAt: NOW + 2 })).toEqual(touched);
      const emptied = { ...touched, role: null, memberIds: [], version: 5, updatedAt: NOW + 3 };
      const empty = { role: null, memberIds: [], updatedAt: NOW + 3 };
      expect(await store.updateScimGroup(connectionId, made.id, 4, empty)).toEqual(emptied);
      expect(await store.listScimGroups(connectionId, { limit: 10 })).toEqual(byId([emptied, other]));
      expect(await store.listScimGroupsOfUsers(connectionId, [x])).toEqual([other]);
      // Its old name is free.
      await storedGroup(connectionId, { displayName: made.displayName });
    },
  "updateScimGroup - conflict when the version moved on; null for an unknown id, one of another connection or case":
    async ({ store, storedGroup }) => {
      const connectionId = newConnectionId();
      const made = await storedGroup(connectionId, { memberIds: [newScimId()] });
      const updated = { ...made, role: "viewer", version: 2, updatedAt: NOW };
      expect(
        await store.updateScimGroup(connectionId, made.id, 1, { role: "viewer", updatedAt: NOW }),
      ).toEqual(updated);
      const stale = { displayName: `Stale ${newLetters(6)}`, memberIds: [], updatedAt: NOW + 1 };
      expect(await store.updateScimGroup(connectionId, made.id, 1, stale)).toBe("conflict");
      expect(await store.findScimGroupByDisplayName(connectionId, stale.displayName)).toBeNull();
      for (const [connection, id] of [
        [connectionId, newScimId("G")],
        [newConnectionId(), made.id],
        [connectionId, swapCase(made.id)],
      ] as const)
        expect(await store.updateScimGroup(connection, id, 2, stale)).toBeNull();
      expect(await store.findScimGroup(connectionId, made.id)).toEqual(updated);
    },
  "updateScimGroup - display-name-taken when another group of the connection has the name in any case; nothing changes":
    async ({ store, storedGroup }) => {
      const connectionId = newConnectionId();
      const first = await storedGroup(connectionId, { displayName: `Support ${newLetters(6)} APAC` });
      const second = await storedGroup(connectionId);
      const stranger = await storedGroup(newConnectionId());
      for (const displayName of [first.displayName, first.displayName.toLowerCase()]) {
        const patch = { displayName, role: "owner", memberIds: [newScimId()], updatedAt: NOW };
        expect(await store.updateScimGroup(connectionId, second.id, 1, patch)).toBe("display-name-taken");
      }
      expect(await store.findScimGroup(connectionId, second.id)).toEqual(second);
      // Its own name in another case, or another connection's, is no other group's.
      const recased = { ...first, displayName: first.displayName.toUpperCase(), version: 2, updatedAt: NOW };
      const patch = { displayName: recased.displayName, updatedAt: NOW };
      expect(await store.updateScimGroup(connectionId, first.id, 1, patch)).toEqual(recased);
      const adopted = { ...second, displayName: stranger.displayName, version: 2, updatedAt: NOW };
      const adopt = { displayName: stranger.displayName, updatedAt: NOW };
      expect(await store.updateScimGroup(connectionId, second.id, 1, adopt)).toEqual(adopted);
      expect(await store.findScimGroupByDisplayName(connectionId, first.displayName)).toEqual(recased);
    },
  "updateScimGroup - returns a copy; the store keeps no reference to the patch": async ({
    store,
    storedGroup,
  }) => {
    const connectionId = newConnectionId();
    const made = await storedGroup(connectionId);
    const memberIds = [newScimId("b"), newScimId("a")];
    const patch = { memberIds: [...memberIds], updatedAt: NOW };
    const updated = { ...made, memberIds: sortedIds(memberIds), version: 2, updatedAt: NOW };
    const result = await store.updateScimGroup(connectionId, made.id, 1, patch);
    expect(result).toEqual(updated);
    patch.memberIds.push(newScimId());
    if (result && typeof result === "object") result.memberIds.length = 0;
    expect(await store.findScimGroup(connectionId, made.id)).toEqual(updated);
  },
};

/** The tests of `deleteScimUser`'s groups, `deleteScimGroup` and `removeConnectionScim`. */
export const SCIM_DELETION_TESTS: ScimTests = {
  "deleteScimUser - takes the user out of every group of the connection, whose version moves on; no other group changes":
    async ({ store, storedUsers, storedGroup }) => {
      const connectionId = newConnectionId();
      const [gone = "", kept = ""] = (await storedUsers(connectionId, 2)).map((user) => user.id);
      const both = await storedGroup(connectionId, { memberIds: [gone, kept] });
      const only = await storedGroup(connectionId, { memberIds: [gone] });
      const without = await storedGroup(connectionId, { memberIds: [kept] });
      const stranger = await storedGroup(newConnectionId(), { memberIds: [gone] });
      expect(await store.deleteScimUser(connectionId, gone)).toBe(true);
      const updatedAt = expect.any(Number);
      const both2 = { ...both, memberIds: [kept], version: 2, updatedAt };
      expect(await store.findScimGroup(connectionId, both.id)).toEqual(both2);
      expect(await store.findScimGroup(connectionId, only.id)).toEqual({
        ...only,
        memberIds: [],
        version: 2,
        updatedAt,
      });
      expect(await store.findScimGroup(connectionId, without.id)).toEqual(without);
      expect(await store.findScimGroup(stranger.connectionId, stranger.id)).toEqual(stranger);
      expect(await store.listScimGroupsOfUsers(connectionId, [gone])).toEqual([]);
      expect(await store.listScimGroupsOfUsers(stranger.connectionId, [gone])).toEqual([stranger]);
      // An update read before the deletion finds the version moved: the user cannot come back.
      const patch = { memberIds: [gone, kept], updatedAt: NOW };
      expect(await store.updateScimGroup(connectionId, both.id, 1, patch)).toBe("conflict");
      expect(await store.deleteScimUser(connectionId, gone)).toBe(false);
      expect(await store.findScimGroup(connectionId, both.id)).toEqual(both2);
    },
  "deleteScimGroup - true and the group is gone; false when absent, of another connection or another case":
    async ({ store, storedUsers, storedGroup }) => {
      const connectionId = newConnectionId();
      const users = await storedUsers(connectionId, 2);
      const memberIds = users.map((user) => user.id);
      const gone = await storedGroup(connectionId, { memberIds });
      const kept = await storedGroup(connectionId, { memberIds });
      expect(await store.deleteScimGroup(newConnectionId(), gone.id)).toBe(false);
      expect(await store.deleteScimGroup(connectionId, swapCase(gone.id))).toBe(false);
      expect(await store.deleteScimGroup(connectionId, newScimId("G"))).toBe(false);
      expect(await store.findScimGroup(connectionId, gone.id)).toEqual(gone);
      expect(await store.deleteScimGroup(connectionId, gone.id)).toBe(true);
      expect(await store.findScimGroup(connectionId, gone.id)).toBeNull();
      expect(await store.findScimGroupByDisplayName(connectionId, gone.displayName)).toBeNull();
      expect(await store.findScimGroupByExternalId(connectionId, gone.externalId ?? "")).toBeNull();
      expect(await store.listScimGroups(connectionId, { limit: 10 })).toEqual([kept]);
      expect(await store.listScimGroupsOfUsers(connectionId, [memberIds[0] ?? ""])).toEqual([kept]);
      expect(await store.countScimGroups(connectionId)).toBe(1);
      expect(
        await store.updateScimGroup(connectionId, gone.id, 1, { role: null, updatedAt: NOW }),
      ).toBeNull();
      expect(await store.deleteScimGroup(connectionId, gone.id)).toBe(false);
      // Its members stay; its name is free.
      for (const user of users) expect(await store.findScimUser(connectionId, user.id)).toEqual(user);
      await storedGroup(connectionId, { displayName: swapCase(gone.displayName) });
    },
  "removeConnectionScim - removes the connection's users and groups, and no other connection's": async ({
    store,
    storedUsers,
    storedGroup,
  }) => {
    const [connectionId, otherId] = [newConnectionId(), newConnectionId()];
    const users = await storedUsers(connectionId, 3);
    const group = await storedGroup(connectionId, { memberIds: users.map((user) => user.id) });
    const [user] = users;
    if (!user) throw new Error("no user");
    const others = await storedUsers(otherId, 2);
    const otherGroup = await storedGroup(otherId, { memberIds: [...others, user].map((one) => one.id) });
    await store.removeConnectionScim(connectionId);
    expect(await store.countScimUsers(connectionId)).toBe(0);
    expect(await store.countScimGroups(connectionId)).toBe(0);
    expect(await store.listScimUsers(connectionId, { limit: 10 })).toEqual([]);
    expect(await store.listScimGroups(connectionId, { limit: 10 })).toEqual([]);
    expect(await store.findScimUser(connectionId, user.id)).toBeNull();
    expect(await store.findScimUserByUserId(connectionId, user.userId)).toBeNull();
    expect(await store.findScimGroup(connectionId, group.id)).toBeNull();
    expect(await store.listScimGroupsOfUsers(connectionId, [user.id])).toEqual([]);
    expect(await store.listScimUsers(otherId, { limit: 10 })).toEqual(byId(others));
    expect(await store.listScimGroups(otherId, { limit: 10 })).toEqual([otherGroup]);
    expect(await store.listScimGroupsOfUsers(otherId, [user.id])).toEqual([otherGroup]);
    // Its names and accounts are free; removing it again, or a connection with nothing, is no error.
    await store.removeConnectionScim(connectionId);
    await store.removeConnectionScim(newConnectionId());
    const { userName, userId } = user;
    const again = await storedGroup(connectionId, { displayName: group.displayName });
    expect(await store.createScimUser({ ...user, id: newScimId(), userName, userId })).toBe("created");
    expect(await store.listScimGroups(connectionId, { limit: 10 })).toEqual([again]);
    expect(await store.listScimUsers(otherId, { limit: 10 })).toEqual(byId(others));
  },
};
