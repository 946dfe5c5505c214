import { timingSafeEqual } from "node:crypto";
import { AuthError, CooldownError, guardPort, portFailure, wholeSeconds } from "../errors.js";
import { issueApiKeyPrincipal, type Principal } from "../model.js";
import type { ResolvedApiKeysOptions } from "../options/api-key-options.js";
import type { ApiKeyRecord, ApiKeyStore } from "../ports/api-key-store.js";
import type { Clock } from "../ports/clock.js";
import type { BackgroundTasks } from "../support/background.js";
import type { KeyedHash } from "../tokens/keys.js";
import { apiKeyLookupId } from "./key-format.js";
import type { Leases } from "./leases.js";

/** What API keys need: their store and option, this instance's counts, the keyed hash, the clock. */
export interface ApiKeyDeps {
  apiKeys: ApiKeyStore | undefined;
  /** The counts of keys' request windows this instance holds (`createLeases`). */
  apiKeyLeases: Leases;
  /** The keyed hash keys are stored under (derived from `secret`). */
  apiKeyHash: KeyedHash;
  clock: Clock;
  background: BackgroundTasks;
  options: { apiKeys?: ResolvedApiKeysOptions };
}

/** The store and option while API keys are on. */
export interface ApiKeys {
  store: ApiKeyStore;
  options: NonNullable<ResolvedApiKeysOptions>;
}

/** The per-key request window. */
const WINDOW_MS = 60_000;
/** `lastUsedAt` is written at most once per this span. */
const TOUCH_INTERVAL_MS = 60_000;
/** What an unknown key's hash is compared with: the length of a real one, matching nothing. */
const NO_HASH = "-".repeat(43);

/** The store and option, or `NOT_FOUND` when API keys are off (their routes answer as unknown ones). */
export function apiKeysOn(deps: Pick<ApiKeyDeps, "apiKeys" | "options">): ApiKeys {
  const store = deps.apiKeys;
  const options = deps.options.apiKeys;
  if (store === undefined || options === undefined) throw new AuthError("NOT_FOUND");
  return { store, options };
}

/** True when API keys are configured (a `pc_…` credential is then read as one). */
export function apiKeysEnabled(deps: Pick<ApiKeyDeps, "apiKeys" | "options">): boolean {
  return deps.apiKeys !== undefined && deps.options.apiKeys !== undefined;
}

/**
 * Whether `key` hashes to `stored` under one of the keyed hash's keys (the current one first, then
 * rotated ones). Every candidate is computed and compared in constant time, whatever matched.
 */
function hashMatches(hash: KeyedHash, key: string, stored: string): boolean {
  const expected = Buffer.from(stored);
  let match = false;
  for (const candidate of hash.candidates(key)) {
    const actual = Buffer.from(candidate);
    match = (actual.length === expected.length && timingSafeEqual(actual, expected)) || match;
  }
  return match;
}

/**
 * A refused request's count (of the window ending at `endsAt`): kept by this instance's leases to
 * hand out again, or given back to the store in the background when this instance holds a block's
 * worth already or the store counted it past the limit (so that count no longer holds the store's
 * up); a count refused here without a store write (`PAST_LIMIT`) was counted nowhere and goes
 * nowhere. The window is named by its end: one ending within half a window of it, never a later
 * one. A failed give-back is logged; its count stays used, which refuses sooner, never later.
 */
function giveBack(deps: ApiKeyDeps, store: ApiKeyStore, lookupId: string, count: number, endsAt: number) {
  const now = deps.clock.now();
  if (deps.apiKeyLeases.giveBack(lookupId, count, endsAt, now) === 0) return;
  const maxRemainingMs = endsAt - now + WINDOW_MS / 2;
  deps.background.run("api_key.give_back_failed", () => store.returnApiKeyUses(lookupId, 1, maxRemainingMs));
}

/**
 * A request's count and key, in one round trip: a count this instance holds and the key's read
 * (`useApiKey` counting 0), or the store's `useApiKey` that counts and reads (docs/api-keys.md). A store
 * failure is `DATABASE_FAILURE`, and the request is not counted.
 */
async function countedRead(deps: ApiKeyDeps, store: ApiKeyStore, lookupId: string) {
  const { apiKeyLeases: leases, clock } = deps;
  const now = clock.now();
  const taken = leases.take(lookupId, now);
  if ("count" in taken) {
    try {
      return { record: (await store.useApiKey(lookupId, WINDOW_MS, 0)).record, ...taken };
    } catch (error) {
      giveBack(deps, store, lookupId, taken.count, taken.endsAt);
      throw portFailure("DATABASE_FAILURE", error);
    }
  }
  try {
    const use = await store.useApiKey(lookupId, WINDOW_MS, taken.uses);
    return {
      record: use.record,
      ...leases.grant(lookupId, taken, use.count, now + use.remainingMs, clock.now()),
    };
  } catch (error) {
    leases.abandon(lookupId, taken);
    throw portFailure("DATABASE_FAILURE", error);
  }
}

/**
 * A request's API key → its principal (docs/api-keys.md). A malformed key or a wrong checksum is
 * `API_KEY_INVALID` without a store read. Otherwise one store round trip (`countedRead`) gives the
 * key's record and the request's count; the hash is computed and compared whether or not a
 * record came back, so an unknown key, a wrong secret and a valid key take the same time. Wrong,
 * expired or deleted: `API_KEY_INVALID` (its count given back, so nobody wears down a key they do
 * not hold); over `requestsPerMinute`: `API_KEY_RATE_LIMITED` with the window's rest (a count the
 * store gave past the limit given back as well). A valid key
 * has its `lastUsedAt` written in the background, at most once a minute.
 */
export async function authenticateApiKey(deps: ApiKeyDeps, key: string): Promise<Principal> {
  const { store, options } = apiKeysOn(deps);
  const lookupId = apiKeyLookupId(key);
  if (lookupId === null) throw new AuthError("API_KEY_INVALID");
  const { record, count, endsAt } = await countedRead(deps, store, lookupId);
  const now = deps.clock.now();
  const matches = hashMatches(deps.apiKeyHash, key, record?.keyHash ?? NO_HASH);
  if (record === null || !matches || record.lookupId !== lookupId || isExpired(record, now)) {
    giveBack(deps, store, lookupId, count, endsAt);
    throw new AuthError("API_KEY_INVALID");
  }
  if (count > options.requestsPerMinute) {
    // A count the store gave past the limit goes back too: left there, it would hold the store's
    // count above the limit, and a count refused elsewhere (a wrong secret's) given back later
    // would only take it down to the limit instead of making room for one request.
    giveBack(deps, store, lookupId, count, endsAt);
    throw new CooldownError("API_KEY_RATE_LIMITED", wholeSeconds(Math.max(1, endsAt - now)));
  }
  if (record.lastUsedAt === null || now - record.lastUsedAt >= TOUCH_INTERVAL_MS) {
    deps.background.run("api_key.touch_failed", () => store.touchApiKey(record.id, now, TOUCH_INTERVAL_MS));
  }
  return issueApiKeyPrincipal(record.userId, {
    id: record.id,
    organizationId: record.organizationId,
    permissions: record.permissions,
  });
}

/** True once the key's `expiresAt` has come. */
export function isExpired(record: ApiKeyRecord, now: number): boolean {
  return record.expiresAt !== null && record.expiresAt <= now;
}

/** Deletes the user's own keys (account deleted or locked); a store failure is `DATABASE_FAILURE`. */
export async function deleteUserKeys(deps: Pick<ApiKeyDeps, "apiKeys">, userId: string): Promise<void> {
  const store = deps.apiKeys;
  if (store !== undefined) await guardPort("DATABASE_FAILURE", () => store.deleteUserApiKeys(userId));
}
