import type { Cluster, Redis } from "ioredis";

/**
 * The Lua scripts of the Redis stores. Each runs atomically in one round trip (ioredis sends
 * EVALSHA and falls back to EVAL once per connection). Every key a script touches is passed in
 * KEYS and, for one user, shares that user's hash tag, so the scripts also run on Redis Cluster.
 */

/**
 * True once Redis's clock has passed ARGV deadline (ms since the epoch, on Redis's clock): the
 * caller has given up by then, so a write that would only now run is refused instead of landing
 * after the request answered 500. (TIME before writes needs effects replication: Redis 5+ does it
 * by default, older ones when asked.)
 */
export const PAST_DEADLINE = `
if redis.replicate_commands then pcall(redis.replicate_commands) end
local function past_deadline(deadline)
  local now = redis.call('TIME')
  return tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) > tonumber(deadline)
end`;

/**
 * `hashes_of(prefix, ids)`: the fields (HGETALL) of the hash `prefix .. id` of each id, in the
 * ids' order, leaving out those that are gone (empty).
 */
export const HASHES_OF = `
local function hashes_of(prefix, ids)
  local out = {}
  for _, id in ipairs(ids) do
    local fields = redis.call('HGETALL', prefix .. id)
    if #fields > 0 then out[#out + 1] = fields end
  end
  return out
end`;

/**
 * What is left of the cooldown KEYS[1] (its value is the length it was started with): Redis
 * keeps expiries as instants on its clock, so one written while that clock ran ahead is further
 * away than its length once the clock is corrected; it is then moved to its length from now.
 * (A value of 1 is a cooldown written before the length was kept: left as it is.)
 */
const COOLDOWN_LEFT = `
local function cooldown_left(key)
  local left = redis.call('PTTL', key)
  if left < 0 then return 0 end
  local length = tonumber(redis.call('GET', key))
  if length and length > 1 and left > length then
    redis.call('PEXPIRE', key, length)
    left = length
  end
  return left
end`;

/**
 * KEYS[1] cooldown · ARGV[1] ttl ms · ARGV[2] deadline → {1, ttl} when acquired, {0, left} when
 * one runs (at most its own length: COOLDOWN_LEFT), {-1, 0} (nothing written) when it runs past
 * the deadline. The key's value is the cooldown's length.
 */
export const ACQUIRE_COOLDOWN = `${PAST_DEADLINE}${COOLDOWN_LEFT}
if past_deadline(ARGV[2]) then return {-1, 0} end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[1]) then
  return {1, tonumber(ARGV[1])}
end
return {0, cooldown_left(KEYS[1])}`;

/** KEYS[1] cooldown → the ms left of it, 0 when none runs; at most its own length (COOLDOWN_LEFT). */
export const REMAINING_COOLDOWN = `${COOLDOWN_LEFT}
return cooldown_left(KEYS[1])`;

/**
 * KEYS[1] counter · ARGV[1] window ms · ARGV[2] deadline → {count, pttl}: counts one hit; the first
 * hit opens the window (PEXPIRE), later hits never extend it. {-1, 0} (nothing counted) when it
 * runs past the deadline: a hit sent during a hang, whose request answered 500, never counts.
 */
export const HIT_COUNTER = `${PAST_DEADLINE}
if past_deadline(ARGV[2]) then return {-1, 0} end
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local left = redis.call('PTTL', KEYS[1])
if left < 1 or left > tonumber(ARGV[1]) then
  -- Also when further than the window (written while Redis's clock ran ahead): never longer.
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return {count, left}`;

/** KEYS[1] counter → 1 when a hit was given back, 0 otherwise: DECR (which keeps the TTL) only above 0. */
export const REFUND_HIT = `
local count = tonumber(redis.call('GET', KEYS[1]))
if count and count > 0 then
  redis.call('DECR', KEYS[1])
  return 1
end
return 0`;

/** Keeps the user's index alive at least as long as its longest-lived member. */
const TOUCH_INDEX = `
local function touch_index(index, ttl)
  local left = redis.call('PTTL', index)
  if left < tonumber(ttl) then redis.call('PEXPIRE', index, ttl) end
end`;

/** Redis's clock (TIME), in milliseconds since the epoch. */
const REDIS_NOW = `
local function redis_now()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end`;

/**
 * KEYS[1] session · KEYS[2] user's session index
 * ARGV[1] stored session JSON · ARGV[2] session id · ARGV[3] session ttl · ARGV[4] deadline
 * → 1, or 0 (nothing written) when it runs past the deadline. The stored JSON gets `startedAt`,
 * the creation on Redis's clock, which the session's lifetimes are measured from.
 */
export const CREATE_SESSION = `${TOUCH_INDEX}${PAST_DEADLINE}${REDIS_NOW}
if past_deadline(ARGV[4]) then return 0 end
local stored = cjson.decode(ARGV[1])
stored.startedAt = redis_now()
redis.call('SET', KEYS[1], cjson.encode(stored), 'PX', ARGV[3])
redis.call('SADD', KEYS[2], ARGV[2])
touch_index(KEYS[2], ARGV[3])
return 1`;

/**
 * CREATE_SESSION (KEYS[1], KEYS[2], ARGV[1]-ARGV[4] as there) with the session's access token
 * allowed in the same step: KEYS[3] its `jti`'s allowlist key · ARGV[5] the entry JSON · ARGV[6]
 * its ttl ms → 1, or 0 (neither written) when it runs past the deadline.
 */
export const CREATE_SESSION_WITH_ACCESS_TOKEN = `${TOUCH_INDEX}${PAST_DEADLINE}${REDIS_NOW}
if past_deadline(ARGV[4]) then return 0 end
local stored = cjson.decode(ARGV[1])
stored.startedAt = redis_now()
redis.call('SET', KEYS[3], ARGV[5], 'PX', ARGV[6])
redis.call('SET', KEYS[1], cjson.encode(stored), 'PX', ARGV[3])
redis.call('SADD', KEYS[2], ARGV[2])
touch_index(KEYS[2], ARGV[3])
return 1`;

/**
 * `rotate_session()`, the rotation of both scripts below: KEYS[1] session · KEYS[2] user's session
 * index · ARGV[1] presented hash · ARGV[2] next fields JSON · ARGV[3] session ttl · ARGV[4]
 * remembered hashes · ARGV[5] deadline · ARGV[6] reuse interval ms · ARGV[7] idle timeout ms ·
 * ARGV[8] absolute lifetime ms (0: no limits) → the status and, but for 'invalid' and 'late', the
 * record (rotated: the new one) and the `accessTokenJti` of the record as it was read:
 * 'rotated' | 'current' (the parent within the interval, after `rotatedAt`, on Redis's clock) |
 * 'reused' (deleted) | 'expired' (a hash the session had, but the session is past its limits on
 * Redis's clock, from `startedAt` and `rotatedAt`: deleted) | 'invalid' | 'late' (nothing changed:
 * past the deadline)
 */
const ROTATE_SESSION = `${TOUCH_INDEX}${PAST_DEADLINE}${REDIS_NOW}
local function rotate_session()
  if past_deadline(ARGV[5]) then return 'late' end
  local raw = redis.call('GET', KEYS[1])
  if not raw then return 'invalid' end
  local stored = cjson.decode(raw)
  local record = stored.record
  local read_jti = record.accessTokenJti
  local now = redis_now()
  local interval = tonumber(ARGV[6])
  local known = record.refreshTokenHash == ARGV[1]
  for _, previous in ipairs(stored.previousHashes) do
    if previous == ARGV[1] then known = true end
  end
  if not known then return 'invalid' end
  local idle, lifetime = tonumber(ARGV[7]), tonumber(ARGV[8])
  local started = stored.startedAt or record.createdAt
  if lifetime > 0 and (now - (stored.rotatedAt or started) > idle or now - started > lifetime) then
    redis.call('DEL', KEYS[1])
    redis.call('SREM', KEYS[2], record.id)
    return 'expired', record, read_jti
  end
  if record.refreshTokenHash ~= ARGV[1] then
    if stored.previousHashes[1] == ARGV[1] and interval > 0 and stored.rotatedAt
      and now - stored.rotatedAt <= interval then
      return 'current', record, read_jti
    end
    redis.call('DEL', KEYS[1])
    redis.call('SREM', KEYS[2], record.id)
    return 'reused', record, read_jti
  end
  local next = cjson.decode(ARGV[2])
  for field, value in pairs(next) do record[field] = value end
  table.insert(stored.previousHashes, 1, ARGV[1])
  while #stored.previousHashes > tonumber(ARGV[4]) do table.remove(stored.previousHashes) end
  stored.rotatedAt = now
  redis.call('SET', KEYS[1], cjson.encode(stored), 'PX', ARGV[3])
  touch_index(KEYS[2], ARGV[3])
  return 'rotated', record, read_jti
end`;

/** `rotate_session()` alone (ARGV as there) → {status, record JSON} | {'invalid'} | {'late'}. */
export const ROTATE_REFRESH_TOKEN = `${ROTATE_SESSION}
local status, record = rotate_session()
if record then return {status, cjson.encode(record)} end
return {status}`;

/**
 * `rotate_session()` (KEYS[1], KEYS[2] and ARGV[1]-ARGV[8] as there) with the allowlist's writes
 * it calls for, in the same step: KEYS[3] the new `jti`'s allowlist key · ARGV[9] its entry JSON ·
 * ARGV[10] its ttl ms · ARGV[11] the prefix of the session's allowlist keys (its user's space,
 * `…{tag}:at:`) · ARGV[12] the session's tag. 'rotated' sets KEYS[3] and deletes the replaced
 * `jti`'s key; 'reused' and 'expired' delete the session's `jti`'s key. A `jti` whose tag is not
 * the session's (not minted by this allowlist: its key is on another slot) is not touched here
 * but answered, for the caller to revoke → {status, record JSON, that jti or ''} | {'invalid'} |
 * {'late'}.
 */
export const ROTATE_WITH_ACCESS_TOKEN = `${ROTATE_SESSION}
local status, record, read_jti = rotate_session()
if not record then return {status} end
local elsewhere = ''
local function revoke(jti)
  if type(jti) ~= 'string' then return end
  if string.sub(jti, 1, string.len(ARGV[12])) == ARGV[12] then
    redis.call('DEL', ARGV[11] .. jti)
  else
    elsewhere = jti
  end
end
if status == 'rotated' then
  redis.call('SET', KEYS[3], ARGV[9], 'PX', ARGV[10])
  if read_jti ~= record.accessTokenJti then revoke(read_jti) end
elseif status == 'reused' or status == 'expired' then
  revoke(read_jti)
end
return {status, cjson.encode(record), elsewhere}`;

/** KEYS[1] session · KEYS[2] user's session index → the deleted record JSON or false. */
export const DELETE_SESSION = `
local raw = redis.call('GET', KEYS[1])
if not raw then return false end
local record = cjson.decode(raw).record
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], record.id)
return cjson.encode(record)`;

/**
 * KEYS[1] user's session index · ARGV[1] session key prefix · ARGV[2] session id to keep
 * → the deleted records' JSON. Stale index members (expired sessions) are dropped on the way.
 */
export const DELETE_USER_SESSIONS = `
local deleted = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if id ~= ARGV[2] then
    local raw = redis.call('GET', ARGV[1] .. id)
    if raw then
      redis.call('DEL', ARGV[1] .. id)
      table.insert(deleted, cjson.encode(cjson.decode(raw).record))
    end
    redis.call('SREM', KEYS[1], id)
  end
end
return deleted`;

/** KEYS[1] user's session index · ARGV[1] session key prefix → the live sessions' JSON; drops stale members. */
export const LIST_SESSIONS = `
local result = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local raw = redis.call('GET', ARGV[1] .. id)
  if raw then table.insert(result, raw) else redis.call('SREM', KEYS[1], id) end
end
return result`;

/** KEYS[1] a user's token index · ARGV[1] token key · ARGV[2] ttl ms: adds the member and only ever extends the index's TTL. */
export const INDEX_TOKEN = `${TOUCH_INDEX}
redis.call('SADD', KEYS[1], ARGV[1])
touch_index(KEYS[1], ARGV[2])
return 1`;

/**
 * KEYS[1] token · KEYS[2] its claim · ARGV[1] lease ms → the token's JSON when it exists and was
 * not claimed (the claim is set for the lease, on Redis's clock), nil otherwise.
 */
export const CLAIM_TOKEN = `
local raw = redis.call('GET', KEYS[1])
if not raw then return false end
if redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[1]) then return raw end
return false`;

/**
 * KEYS[1] session · ARGV[1] `{"id": <organization id or null>}` → the updated record JSON, or
 * false when the session is gone. Only the active organization changes; the TTL stays as it was.
 */
export const SET_ACTIVE_ORGANIZATION = `
local raw = redis.call('GET', KEYS[1])
if not raw then return false end
local ttl = redis.call('PTTL', KEYS[1])
local stored = cjson.decode(raw)
stored.record.activeOrganizationId = cjson.decode(ARGV[1]).id
if ttl > 0 then
  redis.call('SET', KEYS[1], cjson.encode(stored), 'PX', ttl)
else
  redis.call('SET', KEYS[1], cjson.encode(stored))
end
return cjson.encode(stored.record)`;

/** Scripts to define on a client, by command name: each with how many of its arguments are keys (none: the first argument says). */
export type CommandDefinitions = Record<string, { numberOfKeys?: number; lua: string }>;

/**
 * `client` with `commands` defined on it (once per client: a store made again on the same client
 * finds them there), typed with `C`, the commands' call signatures.
 */
export function withCommands<C>(
  client: Redis | Cluster,
  commands: CommandDefinitions,
): C & (Redis | Cluster) {
  for (const [name, definition] of Object.entries(commands)) {
    if (!(name in client)) client.defineCommand(name, definition);
  }
  return client as unknown as C & (Redis | Cluster);
}
