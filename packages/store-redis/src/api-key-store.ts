import {
  type ApiKeyOwner,
  type ApiKeyRecord,
  type ApiKeyStore,
  type ApiKeyUse,
  createCountBatch,
} from "@portcullis/core";
import type { Cluster, Redis } from "ioredis";
import { withCommands } from "./scripts.js";

/** How many keys `listApiKeys` returns at most. */
const LIST_LIMIT = 1_000;

/**
 * KEYS[1] the key (a hash, named by its lookupId) · KEYS[2] its id's index (id → lookupId) ·
 * KEYS[3] its owner's index (a sorted set) · ARGV[1] id · ARGV[2] lookupId · ARGV[3] createdAt ·
 * ARGV[4] the owner's most keys · ARGV[5..] field, value… → 1 stored, 0 when the lookupId or the
 * id is taken, 2 when the owner already has that many keys (nothing written either way).
 */
const CREATE_API_KEY = `
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then return 2 end
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
redis.call('SET', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
return 1`;

/** KEYS[1] the id's index · ARGV[1] the prefix of key hashes → the key's fields (HGETALL), or an empty list. */
const FIND_API_KEY = `
local lookupId = redis.call('GET', KEYS[1])
if not lookupId then return {} end
return redis.call('HGETALL', ARGV[1] .. lookupId)`;

/**
 * What the scripts answer for a lookupId without a key: the fields of a key of the usual size
 * (one HGETALL's worth of bulk strings, like a stored key's) with an empty `id`, which reads back
 * as no key. An unknown key's reply then costs what a stored key's does to send and to parse, so
 * an unknown key, a wrong secret and a valid key take the same time (docs/api-keys.md).
 */
const ABSENT_KEY = `{'id', '', 'lookupId', string.rep('-', 12), 'keyHash', string.rep('-', 43),
  'name', string.rep('-', 16), 'start', string.rep('-', 11), 'userId', string.rep('-', 24),
  'createdAt', string.rep('0', 13), 'lastUsedAt', string.rep('0', 13)}`;

/** KEYS[i] a key (a hash, named by its lookupId) → for each, its fields (HGETALL), or `ABSENT_KEY`. */
const READ_API_KEYS = `
local out = {}
for i = 1, #KEYS do
  local fields = redis.call('HGETALL', KEYS[i])
  if #fields == 0 then fields = ${ABSENT_KEY} end
  out[i] = fields
end
return out`;

/**
 * KEYS[2i-1] a key (a hash, named by its lookupId) · KEYS[2i] its lookupId's request counter ·
 * ARGV[1] the window in ms · ARGV[i+1] the requests to count for the i-th (0: the key's read
 * alone) → for each, { the key's fields (HGETALL, or `ABSENT_KEY`), the count after
 * adding them (0 for none), the window's rest in ms (the window for none) }. A counter's expiry
 * is set by the requests that start it and never extended; one found
 * without an expiry (none is written so, but a key made by hand could be) is given the window
 * from now.
 */
const USE_API_KEYS = `
local out = {}
for i = 1, #KEYS / 2 do
  local counter = KEYS[2 * i]
  local count = 0
  local rest = tonumber(ARGV[1])
  if ARGV[i + 1] ~= '0' then
    rest = redis.call('PTTL', counter)
    count = redis.call('INCRBY', counter, ARGV[i + 1])
    if rest < 0 then
      redis.call('PEXPIRE', counter, ARGV[1])
      rest = tonumber(ARGV[1])
    end
  end
  local fields = redis.call('HGETALL', KEYS[2 * i - 1])
  if #fields == 0 then fields = ${ABSENT_KEY} end
  out[i] = {fields, count, rest}
end
return out`;

/**
 * KEYS[1] a lookupId's request counter · ARGV[1] the counts to give back · ARGV[2] the most the
 * window may have left (ms) → the count after (not below 0, the expiry kept), or false when no
 * such window runs (none, or a later one: nothing written).
 */
const RETURN_API_KEY_USES = `
local rest = redis.call('PTTL', KEYS[1])
if rest <= 0 or rest > tonumber(ARGV[2]) then return false end
local count = redis.call('DECRBY', KEYS[1], ARGV[1])
if count < 0 then
  redis.call('SET', KEYS[1], 0, 'PX', rest)
  count = 0
end
return count`;

/**
 * KEYS[1] the id's index · ARGV[1] the prefix of key hashes · ARGV[2] of users' indexes · ARGV[3]
 * of organizations' indexes · ARGV[4] id → the deleted key's fields, or an empty list.
 */
const DELETE_API_KEY = `
local lookupId = redis.call('GET', KEYS[1])
if not lookupId then return {} end
local key = ARGV[1] .. lookupId
local fields = redis.call('HGETALL', key)
local organizationId = redis.call('HGET', key, 'organizationId')
if organizationId then
  redis.call('ZREM', ARGV[3] .. organizationId, ARGV[4])
else
  local userId = redis.call('HGET', key, 'userId')
  if userId then redis.call('ZREM', ARGV[2] .. userId, ARGV[4]) end
end
redis.call('DEL', key, KEYS[1])
return fields`;

/**
 * KEYS[1] the id's index · ARGV[1] the prefix of key hashes · ARGV[2] at · ARGV[3] min interval
 * ms → 1 when lastUsedAt was absent or at most at - interval and is now at, else 0 (or gone).
 */
const TOUCH_API_KEY = `
local lookupId = redis.call('GET', KEYS[1])
if not lookupId then return 0 end
local key = ARGV[1] .. lookupId
local last = redis.call('HGET', key, 'lastUsedAt')
if last and tonumber(last) > tonumber(ARGV[2]) - tonumber(ARGV[3]) then return 0 end
redis.call('HSET', key, 'lastUsedAt', ARGV[2])
return 1`;

/**
 * KEYS[1] an owner's index · ARGV[1] the prefix of id indexes · ARGV[2] of key hashes · ARGV[3]
 * the most to read → the fields of each of its keys, newest first (score createdAt, then id, descending).
 */
const LIST_API_KEYS = `
local ids = redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[3]) - 1)
local out = {}
for _, id in ipairs(ids) do
  local lookupId = redis.call('GET', ARGV[1] .. id)
  if lookupId then
    local fields = redis.call('HGETALL', ARGV[2] .. lookupId)
    if #fields > 0 then out[#out + 1] = fields end
  end
end
return out`;

/** KEYS[1] an owner's index · ARGV[1] the prefix of id indexes · ARGV[2] of key hashes → how many keys were deleted. */
const DELETE_OWNER_API_KEYS = `
local ids = redis.call('ZRANGE', KEYS[1], 0, -1)
local deleted = 0
for _, id in ipairs(ids) do
  local lookupId = redis.call('GET', ARGV[1] .. id)
  if lookupId then deleted = deleted + redis.call('DEL', ARGV[2] .. lookupId) end
  redis.call('DEL', ARGV[1] .. id)
end
redis.call('DEL', KEYS[1])
return deleted`;

const COMMANDS = {
  portcullisCreateApiKey: { numberOfKeys: 3, lua: CREATE_API_KEY },
  portcullisFindApiKey: { numberOfKeys: 1, lua: FIND_API_KEY },
  portcullisReadApiKeys: { lua: READ_API_KEYS },
  portcullisUseApiKeys: { lua: USE_API_KEYS },
  portcullisReturnApiKeyUses: { numberOfKeys: 1, lua: RETURN_API_KEY_USES },
  portcullisDeleteApiKey: { numberOfKeys: 1, lua: DELETE_API_KEY },
  portcullisTouchApiKey: { numberOfKeys: 1, lua: TOUCH_API_KEY },
  portcullisListApiKeys: { numberOfKeys: 1, lua: LIST_API_KEYS },
  portcullisDeleteOwnerApiKeys: { numberOfKeys: 1, lua: DELETE_OWNER_API_KEYS },
};

interface ApiKeyCommands {
  portcullisCreateApiKey(...args: string[]): Promise<number>;
  portcullisFindApiKey(index: string, keyPrefix: string): Promise<string[]>;
  portcullisReadApiKeys(numberOfKeys: number, ...keys: string[]): Promise<string[][]>;
  portcullisUseApiKeys(
    numberOfKeys: number,
    ...keysThenArgs: string[]
  ): Promise<[string[], number, number][]>;
  portcullisReturnApiKeyUses(counter: string, uses: string, maxRemainingMs: string): Promise<number | null>;
  portcullisDeleteApiKey(...args: string[]): Promise<string[]>;
  portcullisTouchApiKey(index: string, keyPrefix: string, at: string, minIntervalMs: string): Promise<number>;
  portcullisListApiKeys(
    owner: string,
    idPrefix: string,
    keyPrefix: string,
    limit: string,
  ): Promise<string[][]>;
  portcullisDeleteOwnerApiKeys(owner: string, idPrefix: string, keyPrefix: string): Promise<number>;
}

/** The hash fields of a key: a null field is left out (absent reads back as null). */
const toFields = (record: ApiKeyRecord): string[] => {
  const fields = [
    ["id", record.id],
    ["lookupId", record.lookupId],
    ["keyHash", record.keyHash],
    ["name", record.name],
    ["start", record.start],
    ["userId", record.userId],
    ["organizationId", record.organizationId],
    ["permissions", record.permissions === null ? null : JSON.stringify(record.permissions)],
    ["createdAt", String(record.createdAt)],
    ["expiresAt", record.expiresAt === null ? null : String(record.expiresAt)],
    ["lastUsedAt", record.lastUsedAt === null ? null : String(record.lastUsedAt)],
  ] as const;
  return fields.flatMap(([field, value]) => (value === null ? [] : [field, value]));
};

/**
 * A key's fields (an HGETALL's) as a record; null for none (an empty hash) or for `ABSENT_KEY`'s
 * (an empty `id`), which is converted all the same, so that it costs what a stored key's does.
 */
const fromHash = (hash: Record<string, string>): ApiKeyRecord | null => {
  const record: ApiKeyRecord = {
    id: hash.id as string,
    lookupId: hash.lookupId as string,
    keyHash: hash.keyHash as string,
    name: hash.name as string,
    start: hash.start as string,
    userId: hash.userId as string,
    organizationId: hash.organizationId ?? null,
    permissions: hash.permissions === undefined ? null : (JSON.parse(hash.permissions) as string[]),
    createdAt: Number(hash.createdAt),
    expiresAt: hash.expiresAt === undefined ? null : Number(hash.expiresAt),
    lastUsedAt: hash.lastUsedAt === undefined ? null : Number(hash.lastUsedAt),
  };
  return record.id === undefined || record.id === "" ? null : record;
};

/** A script's HGETALL reply (a flat list of field, value) as `fromHash` reads it. */
const fromList = (fields: string[]): ApiKeyRecord | null => {
  const hash: Record<string, string> = {};
  for (let i = 0; i < fields.length; i += 2) hash[fields[i] as string] = fields[i + 1] as string;
  return fromHash(hash);
};

/**
 * `useApiKey`: the calls of one turn of the event loop in one round trip (`createCountBatch`): the
 * script `USE_API_KEYS` when any counts, else `READ_API_KEYS` (the keys' HGETALLs alone).
 */
function keyUses(
  redis: ApiKeyCommands,
  bounded: <T>(operation: Promise<T>) => Promise<T>,
  keyPrefix: string,
  usePrefix: string,
): ApiKeyStore["useApiKey"] {
  return createCountBatch(
    async (counts: Map<string, number>, windowMs: number) => {
      const lookupIds = [...counts.keys()];
      if (lookupIds.every((lookupId) => counts.get(lookupId) === 0)) {
        // Reads alone: no counter touched.
        const keys = lookupIds.map((lookupId) => `${keyPrefix}${lookupId}`);
        const lists = await bounded(redis.portcullisReadApiKeys(keys.length, ...keys));
        return new Map(
          lookupIds.map((lookupId, i) => [
            lookupId,
            [lists[i] ?? [], 0, windowMs] as [string[], number, number],
          ]),
        );
      }
      const replies = await bounded(
        redis.portcullisUseApiKeys(
          lookupIds.length * 2,
          ...lookupIds.flatMap((lookupId) => [`${keyPrefix}${lookupId}`, `${usePrefix}${lookupId}`]),
          String(windowMs),
          ...lookupIds.map((lookupId) => String(counts.get(lookupId))),
        ),
      );
      return new Map(lookupIds.map((lookupId, i) => [lookupId, replies[i]]));
    },
    (reply, { through, of, weight, windowMs }): ApiKeyUse => {
      if (!reply) throw new Error("@portcullis/store-redis: the API key script answered no count");
      const [fields, count, remainingMs] = reply;
      const record = fromList(fields);
      if (weight === 0) return { record, count: 0, remainingMs: windowMs };
      return { record, count: count - of + through, remainingMs: Math.max(1, remainingMs) };
    },
  );
}

/**
 * API keys on Redis: a hash per key named by its lookupId, so the read of every request that
 * carries a key is one script (`useApiKey`: its HGETALL and the INCRBY of its lookupId's request
 * counter, a string that expires with its window), one script for all the keys of the requests
 * that arrive in one turn of the event loop (`keyUses`); an id → lookupId index; and a sorted set of ids per user (their own
 * keys) and per organization, scored by `createdAt` (Redis orders equal scores by member, which
 * is the id tie-break). Every key is under one hash tag (`{apikeys}`, one cluster slot: an id and
 * a lookupId must each be unique across all keys, which one slot makes one atomic check). Every
 * write is one Lua script (creating counts the owner's sorted set, ZCARD, in the script that
 * writes, so concurrent creations never overshoot `maxPerOwner`); keys do not expire (the core
 * refuses them after `expiresAt`).
 */
export function redisApiKeyStore(
  client: Redis | Cluster,
  bounded: <T>(operation: Promise<T>) => Promise<T>,
  prefix: string,
): ApiKeyStore {
  const redis = withCommands<ApiKeyCommands>(client, COMMANDS);
  const space = `${prefix}{apikeys}:`;
  const keyPrefix = `${space}k:`;
  const idPrefix = `${space}id:`;
  const usePrefix = `${space}n:`;
  const userPrefix = `${space}u:`;
  const organizationPrefix = `${space}o:`;
  const ownerKey = (owner: ApiKeyOwner) =>
    owner.organizationId === null
      ? `${userPrefix}${owner.userId}`
      : `${organizationPrefix}${owner.organizationId}`;
  const deleteOwnerKeys = (owner: string) =>
    bounded(redis.portcullisDeleteOwnerApiKeys(owner, idPrefix, keyPrefix));
  return {
    async createApiKey(record, limits) {
      const stored = await bounded(
        redis.portcullisCreateApiKey(
          `${keyPrefix}${record.lookupId}`,
          `${idPrefix}${record.id}`,
          ownerKey(record.organizationId === null ? record : { organizationId: record.organizationId }),
          record.id,
          record.lookupId,
          String(record.createdAt),
          String(limits.maxPerOwner),
          ...toFields(record),
        ),
      );
      if (stored === 2) return "limit-reached";
      if (stored !== 1) throw new Error("An API key with this id or lookupId is already stored");
      return "created";
    },
    async findApiKeyByLookupId(lookupId) {
      return fromHash(await bounded(client.hgetall(`${keyPrefix}${lookupId}`)));
    },
    useApiKey: keyUses(redis, bounded, keyPrefix, usePrefix),
    async returnApiKeyUses(lookupId, uses, maxRemainingMs) {
      await bounded(
        redis.portcullisReturnApiKeyUses(
          `${usePrefix}${lookupId}`,
          String(uses),
          String(Math.floor(maxRemainingMs)),
        ),
      );
    },
    async findApiKey(id) {
      return fromList(await bounded(redis.portcullisFindApiKey(`${idPrefix}${id}`, keyPrefix)));
    },
    async listApiKeys(owner) {
      const lists = await bounded(
        redis.portcullisListApiKeys(ownerKey(owner), idPrefix, keyPrefix, String(LIST_LIMIT)),
      );
      return lists.flatMap((fields) => fromList(fields) ?? []);
    },
    async deleteApiKey(id) {
      const fields = await bounded(
        redis.portcullisDeleteApiKey(`${idPrefix}${id}`, keyPrefix, userPrefix, organizationPrefix, id),
      );
      return fromList(fields);
    },
    async touchApiKey(id, at, minIntervalMs) {
      const written = await bounded(
        redis.portcullisTouchApiKey(`${idPrefix}${id}`, keyPrefix, String(at), String(minIntervalMs)),
      );
      return written === 1;
    },
    deleteUserApiKeys: (userId) => deleteOwnerKeys(`${userPrefix}${userId}`),
    deleteOrganizationApiKeys: (organizationId) => deleteOwnerKeys(`${organizationPrefix}${organizationId}`),
  };
}
