/**
 * An API key as stored: never the key itself, only its keyed hash. A user's key (`organizationId`
 * null) acts as `userId`; an organization's key acts for `organizationId` with `permissions`, and
 * `userId` is who created it (the key outlives that person's membership).
 */
export interface ApiKeyRecord {
  /** Opaque, unique, assigned by the core (names the key in `DELETE /api-keys/:id`). */
  id: string;
  /**
   * The key's non-secret id part (the first 12 characters after `pc_`), unique: a request's key is
   * found by it with one indexed read.
   */
  lookupId: string;
  /** HMAC-SHA-256 (base64url) of the whole key under a key derived from `secret`. */
  keyHash: string;
  /** 1 to 100 characters, as its creator wrote it. */
  name: string;
  /** The key's first characters (`pc_` and 8 more), shown in lists so its owner can tell keys apart. */
  start: string;
  /** A user's key: the user it acts as. An organization's key: who created it. */
  userId: string;
  /** The organization the key acts for; null for a user's key. */
  organizationId: string | null;
  /** An organization's key: the permissions it was given (kept as given). Null for a user's key. */
  permissions: string[] | null;
  /** Milliseconds since the Unix epoch. */
  createdAt: number;
  /** Milliseconds since the Unix epoch; null: never expires. From then on the key is refused. */
  expiresAt: number | null;
  /** When a request last used it (ms), written at most once a minute; null: never used. */
  lastUsedAt: number | null;
}

/** A key as `ApiKeyStore.useApiKey` read it, with requests counted. */
export interface ApiKeyUse {
  /** The key whose `lookupId` the request named, or null when there is none. */
  record: ApiKeyRecord | null;
  /** The requests counted for that `lookupId` in its current window, this call's `uses` included (0 for `uses` 0). */
  count: number;
  /** Milliseconds until that window ends (at least 1, at most its `windowMs`). */
  remainingMs: number;
}

/** Whose keys `ApiKeyStore.listApiKeys` lists. */
export type ApiKeyOwner = { userId: string; organizationId: null } | { organizationId: string };

/**
 * Where API keys live (docs/api-keys.md). Optional in `stores`; required while the
 * `apiKeys` option is set. The core hashes, checks and times everything; a store keeps records.
 * Records are returned as copies: changing one never changes what is stored. Every method rejects
 * only when the store itself fails.
 */
export interface ApiKeyStore {
  /**
   * Stores a new key: `created`. `limit-reached`, storing nothing, when its owner (the user for a
   * user's key, the organization for an organization's key, as `listApiKeys` groups them) already
   * has `limits.maxPerOwner` keys, expired ones included (they count until deleted). The count and
   * the write are one atomic step: of N concurrent creations for one owner with room for k more,
   * exactly k return `created`. Rejects (and stores nothing) when a key with the same `id` or
   * `lookupId` exists (the core then makes a new key; with 71 random bits this does not happen by
   * chance).
   */
  createApiKey(record: ApiKeyRecord, limits: { maxPerOwner: number }): Promise<"created" | "limit-reached">;
  /**
   * The key whose `lookupId` this is, or null: one indexed read (expired keys are returned as
   * stored; the core refuses them). A request whose count the core already holds reads its key
   * with it; otherwise with `useApiKey`.
   */
  findApiKeyByLookupId(lookupId: string): Promise<ApiKeyRecord | null>;
  /**
   * The read of every request that carries a key: the key whose `lookupId` this is (as
   * `findApiKeyByLookupId` returns it) and `uses` more requests counted for that `lookupId`, in
   * one round trip to the store. The core asks for 1 (one request), for a block of counts that it
   * hands out to the next requests itself, or for 0 when it holds the request's count already
   * (docs/api-keys.md): with 0 it is the key's read alone, nothing counted or written (the
   * answer's `count` is then 0 and `remainingMs` is `windowMs`). The count is
   * kept per `lookupId` in a fixed window of `windowMs` that starts with its first requests and is
   * never extended; the first requests after it ends start a new window at `uses`. Counted whether
   * or not a key came back, so a known and an unknown `lookupId` cost the store the same work.
   * Atomic: concurrent calls in one window each get the count after their own `uses` were added,
   * and these counts, less their `uses`, never overlap. A store that keeps time itself (Redis)
   * measures the window on its own clock. Counters are not part of the key: they outlive its
   * deletion until their window ends.
   */
  useApiKey(lookupId: string, windowMs: number, uses: number): Promise<ApiKeyUse>;
  /**
   * Gives back `uses` counts of the `lookupId`'s running window: requests the core counted and
   * then refused (a wrong secret), beyond what it keeps to hand out again itself
   * (docs/api-keys.md, "Counted in blocks"). The count goes down by `uses`, never below 0, and
   * the window's end does not move. Only the window that ends within `maxRemainingMs` from now is
   * given back to: a window that has ended, or a later one (which ends at least a window later),
   * is left as it is, and no window is started.
   */
  returnApiKeyUses(lookupId: string, uses: number, maxRemainingMs: number): Promise<void>;
  /** The key with this `id`, or null. */
  findApiKey(id: string): Promise<ApiKeyRecord | null>;
  /**
   * `{ userId, organizationId: null }`: the user's own keys (not the organizations' keys they
   * created). `{ organizationId }`: every key of the organization. Newest first (`createdAt`,
   * then `id` descending); at most 1000.
   */
  listApiKeys(owner: ApiKeyOwner): Promise<ApiKeyRecord[]>;
  /**
   * Deletes the key and returns it as it was; null when there was none. Of concurrent deletes of
   * one key, exactly one returns it. From the moment this resolves, `findApiKeyByLookupId` answers
   * null on every instance that shares the store.
   */
  deleteApiKey(id: string): Promise<ApiKeyRecord | null>;
  /**
   * Sets `lastUsedAt` to `at` when the stored value is null or at most `at - minIntervalMs` (an
   * atomic compare and set: of concurrent calls within `minIntervalMs`, at most one writes). True
   * when it wrote; false when it did not or the key is gone.
   */
  touchApiKey(id: string, at: number, minIntervalMs: number): Promise<boolean>;
  /** Deletes the user's own keys (`organizationId` null); organizations' keys stay. How many. */
  deleteUserApiKeys(userId: string): Promise<number>;
  /** Deletes every key of the organization. How many. */
  deleteOrganizationApiKeys(organizationId: string): Promise<number>;
}
