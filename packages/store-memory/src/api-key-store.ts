import {
  type ApiKeyOwner,
  type ApiKeyRecord,
  type ApiKeyStore,
  type Clock,
  systemClock,
} from "@portcullis/core";
import { ExpiringMap, type Sweepable } from "./expiring-map.js";
import { OwnerIndex } from "./owner-index.js";

export type MemoryApiKeyStore = ApiKeyStore & Sweepable;

/** How many keys `listApiKeys` returns at most. */
const LIST_LIMIT = 1_000;

const copy = (record: ApiKeyRecord): ApiKeyRecord => ({
  ...record,
  permissions: record.permissions ? [...record.permissions] : null,
});

/** `createdAt`, then `id`, descending: the order of `listApiKeys`. */
const newestFirst = (a: ApiKeyRecord, b: ApiKeyRecord) =>
  b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** Requests counted per lookupId (`useApiKey`), each count under the end of its window on `clock`. */
function requestCounter(clock: Clock) {
  const counts = new ExpiringMap<number>(clock);
  return {
    count(lookupId: string, windowMs: number, uses: number) {
      const current = counts.get(lookupId);
      if (uses === 0) return { count: 0, remainingMs: windowMs };
      if (current === undefined) {
        counts.set(lookupId, uses, windowMs);
        return { count: uses, remainingMs: windowMs };
      }
      counts.cap(lookupId, windowMs);
      const remainingMs = counts.ttlMs(lookupId);
      counts.set(lookupId, current + uses, remainingMs); // same end: the window is never extended
      return { count: current + uses, remainingMs };
    },
    /** `returnApiKeyUses`: the count less `uses` (not below 0), its window's end kept. */
    giveBack(lookupId: string, uses: number, maxRemainingMs: number): void {
      const current = counts.get(lookupId);
      const remainingMs = counts.ttlMs(lookupId);
      // None running, or a later window than the one counted in: nothing to give back to.
      if (current === undefined || remainingMs > maxRemainingMs) return;
      counts.set(lookupId, Math.max(0, current - uses), remainingMs);
    },
    sweep: () => counts.sweep(),
    size: () => counts.size,
  };
}

/**
 * API keys in memory, indexed by `lookupId` (the read of every request that carries a key), by
 * user (their own keys only) and by organization, so no call walks other owners' keys. Every
 * check and write runs without an await between them, so creating (its per-owner count included),
 * deleting and touching a key are atomic for concurrent calls, as is counting a request
 * (`useApiKey`: a counter per lookupId whose window ends on `clock`, swept once ended). Records go
 * in and come out as copies.
 */
export function createMemoryApiKeyStore(options: { clock?: Clock } = {}): MemoryApiKeyStore {
  const uses = requestCounter(options.clock ?? systemClock);
  const byId = new Map<string, ApiKeyRecord>();
  const idByLookupId = new Map<string, string>();
  const ofUser = new OwnerIndex();
  const ofOrganization = new OwnerIndex();
  /** Which owner index holds the key, and under what. */
  const ownerOf = (record: ApiKeyRecord): [OwnerIndex, string] =>
    record.organizationId === null ? [ofUser, record.userId] : [ofOrganization, record.organizationId];
  const remove = (id: string) => {
    const found = byId.get(id);
    if (!found) return null;
    byId.delete(id);
    idByLookupId.delete(found.lookupId);
    const [index, owner] = ownerOf(found);
    index.remove(owner, id);
    return found;
  };
  const removeAll = (index: OwnerIndex, owner: string) => {
    const ids = index.keys(owner);
    for (const id of ids) remove(id);
    return ids.length;
  };
  const find = (lookupId: string) => {
    const id = idByLookupId.get(lookupId);
    const found = id === undefined ? undefined : byId.get(id);
    return found ? copy(found) : null;
  };
  const list = (owner: ApiKeyOwner) => {
    const [index, key] =
      owner.organizationId === null ? [ofUser, owner.userId] : [ofOrganization, owner.organizationId];
    const records = index.keys(key).flatMap((id) => byId.get(id) ?? []);
    return records.sort(newestFirst).slice(0, LIST_LIMIT).map(copy);
  };
  return {
    async createApiKey(record, limits) {
      if (byId.has(record.id)) throw new Error("an API key with this id exists");
      if (idByLookupId.has(record.lookupId)) throw new Error("an API key with this lookupId exists");
      const [index, owner] = ownerOf(record);
      if (index.keys(owner).length >= limits.maxPerOwner) return "limit-reached";
      byId.set(record.id, copy(record));
      idByLookupId.set(record.lookupId, record.id);
      index.add(owner, record.id);
      return "created";
    },
    async findApiKeyByLookupId(lookupId) {
      return find(lookupId);
    },
    async useApiKey(lookupId, windowMs, count) {
      return { record: find(lookupId), ...uses.count(lookupId, windowMs, count) };
    },
    returnApiKeyUses: async (lookupId, count, maxRemainingMs) =>
      uses.giveBack(lookupId, count, maxRemainingMs),
    async findApiKey(id) {
      const found = byId.get(id);
      return found ? copy(found) : null;
    },
    async listApiKeys(owner) {
      return list(owner);
    },
    async deleteApiKey(id) {
      return remove(id);
    },
    async touchApiKey(id, at, minIntervalMs) {
      const found = byId.get(id);
      if (!found) return false;
      if (found.lastUsedAt !== null && found.lastUsedAt > at - minIntervalMs) return false;
      found.lastUsedAt = at;
      return true;
    },
    async deleteUserApiKeys(userId) {
      return removeAll(ofUser, userId);
    },
    async deleteOrganizationApiKeys(organizationId) {
      return removeAll(ofOrganization, organizationId);
    },
    sweep: () => uses.sweep(),
    size: () => uses.size(),
  };
}
