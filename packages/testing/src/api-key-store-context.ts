// The store of one ApiKeyStore conformance test and the record makers its tests share
// (api-key-store-suite.ts, api-key-store-deletes.ts).
import { randomBytes, randomInt } from "node:crypto";
import type { ApiKeyRecord, ApiKeyStore } from "@portcullis/core";
import { type StoreFixture, uniqueId } from "./store-fixture.js";

/** The time the records of a test start from, in milliseconds since the Unix epoch. */
export const T0 = 1_700_000_000_000;

/** How long `touchApiKey` waits between two writes of `lastUsedAt` in these tests (one minute). */
export const MINUTE_MS = 60_000;

/**
 * A per-owner limit no test reaches (the listing test stores 1005 keys for one owner): for the
 * tests that are not about `maxPerOwner`.
 */
export const NO_LIMIT = { maxPerOwner: 1_000_000 };

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * A new key's id part: 12 base62 characters, as the core makes them. The first is an upper-case
 * letter, so a lower-cased copy is always another lookupId.
 */
export const newLookupId = () =>
  `${BASE62.charAt(randomInt(10, 36))}${Array.from({ length: 11 }, () => BASE62.charAt(randomInt(62))).join("")}`;

/** Record makers of one test: each record gets a `createdAt` later than the ones before (1 s apart). */
function recordMakers() {
  let ticks = 0;
  /** A time later than every time this helper gave before (1 s apart). */
  const later = () => T0 + ++ticks * 1_000;
  /** A user's key (`organizationId` and `permissions` null, never used, never expires). */
  const newKey = (overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord => {
    const lookupId = overrides.lookupId ?? newLookupId();
    return {
      id: uniqueId("apikey"),
      lookupId,
      keyHash: randomBytes(32).toString("base64url"),
      name: "CI deploy",
      start: `pc_${lookupId.slice(0, 8)}`,
      userId: uniqueId("user"),
      organizationId: null,
      permissions: null,
      createdAt: later(),
      expiresAt: null,
      lastUsedAt: null,
      ...overrides,
    };
  };
  /** An organization's key, created by `overrides.userId` (or a new user) with two permissions. */
  const newOrganizationKey = (organizationId: string, overrides: Partial<ApiKeyRecord> = {}) =>
    newKey({ organizationId, permissions: ["project:read", "member:read"], ...overrides });
  return { later, newKey, newOrganizationKey };
}

/** The store of one test, and helpers that make and store keys for it. */
export function apiKeyContext(fixture: StoreFixture<ApiKeyStore>) {
  const store = fixture.store;
  const makers = recordMakers();
  /** Stores `record` (a copy), well under any limit; throws unless it was created. */
  const stored = async (record: ApiKeyRecord) => {
    const outcome = await store.createApiKey(structuredClone(record), NO_LIMIT);
    if (outcome !== "created") throw new Error(`the key was not stored: ${outcome}`);
    return record;
  };
  /** A new user's key, created in the store. */
  const storedKey = (overrides: Partial<ApiKeyRecord> = {}) => stored(makers.newKey(overrides));
  /** A new organization's key, created in the store. */
  const storedOrganizationKey = (organizationId: string, overrides: Partial<ApiKeyRecord> = {}) =>
    stored(makers.newOrganizationKey(organizationId, overrides));
  /** Both reads of a key (by id and by lookupId), which must agree. */
  const findBoth = async (record: ApiKeyRecord) => {
    const byId = await store.findApiKey(record.id);
    const byLookupId = await store.findApiKeyByLookupId(record.lookupId);
    return { byId, byLookupId };
  };
  return { store, fixture, ...makers, storedKey, storedOrganizationKey, findBoth };
}

/** What each test of the suite gets: the store and its record makers. */
export type ApiKeyContext = ReturnType<typeof apiKeyContext>;

/** `records` in the order `listApiKeys` returns them: `createdAt`, then `id`, descending. */
export const newestFirst = (records: ApiKeyRecord[]) =>
  [...records].sort((a, b) =>
    a.createdAt !== b.createdAt ? b.createdAt - a.createdAt : a.id < b.id ? 1 : a.id > b.id ? -1 : 0,
  );
