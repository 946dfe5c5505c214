import {
  type Clock,
  type ScimGroupPatch,
  type ScimGroupRecord,
  type ScimPageQuery,
  type ScimStore,
  type ScimUserPatch,
  type ScimUserRecord,
  systemClock,
} from "@portcullis/core";
import { clonePlain } from "./clone.js";

/** One connection's SCIM directory: plain maps, each record a copy of what the store was given. */
interface Directory {
  users: Map<string, ScimUserRecord>;
  /** userName, lowercased → user id. */
  userNames: Map<string, string>;
  /** userId (the account) → user id. */
  accounts: Map<string, string>;
  groups: Map<string, ScimGroupRecord>;
  /** displayName, lowercased → group id. */
  displayNames: Map<string, string>;
}

/** What the store holds. */
interface ScimState {
  clock: Clock;
  /** connectionId → its directory (absent while it has nothing). */
  directories: Map<string, Directory>;
  /** Every user id stored, of any connection (ids are unique across connections). */
  userIds: Set<string>;
  /** Every group id stored, of any connection. */
  groupIds: Set<string>;
}

/** The fields a patch may change, `updatedAt` with them. */
const USER_FIELDS = ["userName", "externalId", "active", "suspendedRole", "attributes", "updatedAt"] as const;
const GROUP_FIELDS = ["displayName", "externalId", "role", "memberIds", "updatedAt"] as const;

/** The key a name is unique by: compared without case. */
const fold = (name: string) => name.toLowerCase();

/** `ids` ascending in code unit order, without repeats. */
const sortedIds = (ids: string[]) => [...new Set(ids)].sort();

/** `a` before `b` in code unit order of their ids. */
const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The connection's directory, made empty when `create` and it has none. */
function directory(state: ScimState, connectionId: string): Directory | undefined;
function directory(state: ScimState, connectionId: string, create: true): Directory;
function directory(state: ScimState, connectionId: string, create = false) {
  let found = state.directories.get(connectionId);
  if (found === undefined && create) {
    found = {
      users: new Map(),
      userNames: new Map(),
      accounts: new Map(),
      groups: new Map(),
      displayNames: new Map(),
    };
    state.directories.set(connectionId, found);
  }
  return found;
}

/** `record` with the fields of `patch` that `fields` names and that are given (a copy of them). */
function patched<R extends object>(record: R, patch: object, fields: readonly string[]): R {
  const given = patch as Record<string, unknown>;
  const changes = fields.filter((field) => given[field] !== undefined).map((field) => [field, given[field]]);
  return { ...record, ...clonePlain(Object.fromEntries(changes)) };
}

/** A page of `records` (any order): ascending by id, after `page.after`, at most `page.limit`. */
function pageOf<R extends { id: string }>(records: Iterable<R>, page: ScimPageQuery): R[] {
  const { after } = page;
  const listed = [...records].filter((record) => after === undefined || record.id > after);
  return listed.sort(byId).slice(0, page.limit).map(clonePlain);
}

/** The record of `records` with this externalId and the lowest id, or null. */
function lowestWithExternalId<R extends { id: string; externalId: string | null }>(
  records: Iterable<R> | undefined,
  externalId: string,
): R | null {
  let lowest: R | null = null;
  for (const record of records ?? [])
    if (record.externalId === externalId && (lowest === null || record.id < lowest.id)) lowest = record;
  return clonePlain(lowest);
}

/** Rejects an id of `ids` (ids are random: one stored already is a caller's bug). */
function assertNewId(ids: Set<string>, method: string, id: string): void {
  if (ids.has(id)) throw new Error(`${method}: the id ${id} is taken`);
}

/** Forgets the connection's directory once it holds nothing. */
function dropIfEmpty(state: ScimState, connectionId: string, found: Directory): void {
  if (found.users.size === 0 && found.groups.size === 0) state.directories.delete(connectionId);
}

/** The atomic step of `createScimUser` (no await inside). */
function createUser(state: ScimState, user: ScimUserRecord) {
  assertNewId(state.userIds, "createScimUser", user.id);
  const found = directory(state, user.connectionId, true);
  if (found.userNames.has(fold(user.userName))) return "user-name-taken" as const;
  if (found.accounts.has(user.userId)) return "user-taken" as const;
  const stored = clonePlain(user);
  found.users.set(stored.id, stored);
  found.userNames.set(fold(stored.userName), stored.id);
  found.accounts.set(stored.userId, stored.id);
  state.userIds.add(stored.id);
  return "created" as const;
}

/** The atomic step of `updateScimUser` (no await inside). */
function updateUser(
  state: ScimState,
  connectionId: string,
  id: string,
  version: number,
  patch: ScimUserPatch & { updatedAt: number },
): ScimUserRecord | null | "conflict" | "user-name-taken" {
  const found = directory(state, connectionId);
  const user = found?.users.get(id);
  if (found === undefined || user === undefined) return null;
  if (user.version !== version) return "conflict";
  const updated = { ...patched(user, patch, USER_FIELDS), version: version + 1 };
  const holder = found.userNames.get(fold(updated.userName));
  if (holder !== undefined && holder !== id) return "user-name-taken";
  found.userNames.delete(fold(user.userName));
  found.userNames.set(fold(updated.userName), id);
  found.users.set(id, updated);
  return clonePlain(updated);
}

/** The atomic step of `deleteScimUser` (no await inside): the user goes, and with it its memberships. */
function deleteUser(state: ScimState, connectionId: string, id: string): boolean {
  const found = directory(state, connectionId);
  const user = found?.users.get(id);
  if (found === undefined || user === undefined) return false;
  found.users.delete(id);
  found.userNames.delete(fold(user.userName));
  found.accounts.delete(user.userId);
  state.userIds.delete(id);
  const now = state.clock.now();
  for (const group of found.groups.values()) {
    if (!group.memberIds.includes(id)) continue;
    const memberIds = group.memberIds.filter((memberId) => memberId !== id);
    found.groups.set(group.id, { ...group, memberIds, version: group.version + 1, updatedAt: now });
  }
  dropIfEmpty(state, connectionId, found);
  return true;
}

function userMethods(state: ScimState) {
  const users = (connectionId: string) => directory(state, connectionId)?.users;
  return {
    async createScimUser(user: ScimUserRecord) {
      return createUser(state, user);
    },
    async findScimUser(connectionId: string, id: string) {
      return clonePlain(users(connectionId)?.get(id) ?? null);
    },
    async findScimUserByUserName(connectionId: string, userName: string) {
      const found = directory(state, connectionId);
      const id = found?.userNames.get(fold(userName));
      return clonePlain((id === undefined ? undefined : found?.users.get(id)) ?? null);
    },
    async findScimUserByExternalId(connectionId: string, externalId: string) {
      return lowestWithExternalId(users(connectionId)?.values(), externalId);
    },
    async findScimUserByUserId(connectionId: string, userId: string) {
      const found = directory(state, connectionId);
      const id = found?.accounts.get(userId);
      return clonePlain((id === undefined ? undefined : found?.users.get(id)) ?? null);
    },
    async listScimUsers(connectionId: string, page: ScimPageQuery) {
      return pageOf(users(connectionId)?.values() ?? [], page);
    },
    async countScimUsers(connectionId: string) {
      return users(connectionId)?.size ?? 0;
    },
    async updateScimUser(
      connectionId: string,
      id: string,
      version: number,
      patch: ScimUserPatch & { updatedAt: number },
    ) {
      return updateUser(state, connectionId, id, version, patch);
    },
    async deleteScimUser(connectionId: string, id: string) {
      return deleteUser(state, connectionId, id);
    },
  } satisfies Partial<ScimStore>;
}

/** The atomic step of `createScimGroup` (no await inside). */
function createGroup(state: ScimState, group: ScimGroupRecord) {
  assertNewId(state.groupIds, "createScimGroup", group.id);
  const found = directory(state, group.connectionId, true);
  if (found.displayNames.has(fold(group.displayName))) return "display-name-taken" as const;
  const stored = { ...clonePlain(group), memberIds: sortedIds(group.memberIds) };
  found.groups.set(stored.id, stored);
  found.displayNames.set(fold(stored.displayName), stored.id);
  state.groupIds.add(stored.id);
  return "created" as const;
}

/** The atomic step of `updateScimGroup` (no await inside). */
function updateGroup(
  state: ScimState,
  connectionId: string,
  id: string,
  version: number,
  patch: ScimGroupPatch & { updatedAt: number },
): ScimGroupRecord | null | "conflict" | "display-name-taken" {
  const found = directory(state, connectionId);
  const group = found?.groups.get(id);
  if (found === undefined || group === undefined) return null;
  if (group.version !== version) return "conflict";
  const changed = patched(group, patch, GROUP_FIELDS);
  const updated = { ...changed, memberIds: sortedIds(changed.memberIds), version: version + 1 };
  const holder = found.displayNames.get(fold(updated.displayName));
  if (holder !== undefined && holder !== id) return "display-name-taken";
  found.displayNames.delete(fold(group.displayName));
  found.displayNames.set(fold(updated.displayName), id);
  found.groups.set(id, updated);
  return clonePlain(updated);
}

/** The atomic step of `deleteScimGroup` (no await inside). */
function deleteGroup(state: ScimState, connectionId: string, id: string): boolean {
  const found = directory(state, connectionId);
  const group = found?.groups.get(id);
  if (found === undefined || group === undefined) return false;
  found.groups.delete(id);
  found.displayNames.delete(fold(group.displayName));
  state.groupIds.delete(id);
  dropIfEmpty(state, connectionId, found);
  return true;
}

function groupMethods(state: ScimState) {
  const groups = (connectionId: string) => directory(state, connectionId)?.groups;
  return {
    async createScimGroup(group: ScimGroupRecord) {
      return createGroup(state, group);
    },
    async findScimGroup(connectionId: string, id: string) {
      return clonePlain(groups(connectionId)?.get(id) ?? null);
    },
    async findScimGroupByDisplayName(connectionId: string, displayName: string) {
      const found = directory(state, connectionId);
      const id = found?.displayNames.get(fold(displayName));
      return clonePlain((id === undefined ? undefined : found?.groups.get(id)) ?? null);
    },
    async findScimGroupByExternalId(connectionId: string, externalId: string) {
      return lowestWithExternalId(groups(connectionId)?.values(), externalId);
    },
    async listScimGroups(connectionId: string, page: ScimPageQuery) {
      return pageOf(groups(connectionId)?.values() ?? [], page);
    },
    async countScimGroups(connectionId: string) {
      return groups(connectionId)?.size ?? 0;
    },
    async listScimGroupsOfUsers(connectionId: string, userScimIds: readonly string[]) {
      const wanted = new Set(userScimIds);
      const all = [...(groups(connectionId)?.values() ?? [])];
      return all
        .filter((group) => group.memberIds.some((id) => wanted.has(id)))
        .sort(byId)
        .map(clonePlain);
    },
    async updateScimGroup(
      connectionId: string,
      id: string,
      version: number,
      patch: ScimGroupPatch & { updatedAt: number },
    ) {
      return updateGroup(state, connectionId, id, version, patch);
    },
    async deleteScimGroup(connectionId: string, id: string) {
      return deleteGroup(state, connectionId, id);
    },
  } satisfies Partial<ScimStore>;
}

/** Removes the connection's users and groups. */
function removeConnection(state: ScimState, connectionId: string): void {
  const found = directory(state, connectionId);
  if (found === undefined) return;
  for (const id of found.users.keys()) state.userIds.delete(id);
  for (const id of found.groups.keys()) state.groupIds.delete(id);
  state.directories.delete(connectionId);
}

export interface MemoryScimStoreOptions {
  /**
   * The clock that stamps the `updatedAt` of the groups `deleteScimUser` takes a member out of;
   * tests pass a fake clock. Default: the system clock.
   */
  clock?: Clock;
}

/**
 * The SCIM directories of SSO connections in memory (one process: every instance of a deployment
 * must share a store, so this one is for development and tests). Each method runs without an
 * await inside, so each is one atomic step: of concurrent creations naming one userName, account
 * or group name, or updates naming one version, exactly one wins. Records are copied in and out.
 * Names are compared without case by `toLowerCase`; ids in code unit order. A group that
 * `deleteScimUser` takes a member out of gets `updatedAt` from `clock`. A user id already stored
 * (of any connection) makes `createScimUser` reject, a group id `createScimGroup` (ids are
 * random: it is a caller's bug).
 */
export function createMemoryScimStore(options: MemoryScimStoreOptions = {}): ScimStore {
  const state: ScimState = {
    clock: options.clock ?? systemClock,
    directories: new Map(),
    userIds: new Set(),
    groupIds: new Set(),
  };
  return {
    ...userMethods(state),
    ...groupMethods(state),
    async removeConnectionScim(connectionId: string) {
      removeConnection(state, connectionId);
    },
  };
}
