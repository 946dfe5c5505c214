import { HASHES_OF, PAST_DEADLINE } from "./scripts.js";

/**
 * The Lua scripts of the Redis webhook store (`webhook-store.ts`). Every key they touch is under
 * the `{webhooks}` hash tag, so each script stays on one cluster slot. Endpoints and deliveries
 * are hashes with one field per property, each value JSON: a script writes the fields it changes
 * and never decodes and encodes a whole record (cjson would turn an empty list into `{}`).
 */

/** True when ARGV `owner` holds the lease hash `lease` and its `until` is past `now`. */
const HOLDS_LEASE = `
local function holds_lease(lease, owner, now)
  local held = redis.call('HMGET', lease, 'owner', 'until')
  return held[1] == owner and tonumber(held[2] or '0') > tonumber(now)
end`;

/**
 * Writes a delivery: its hash (`ARGV[first]` to `ARGV[last]`, field and value pairs), its place in
 * the endpoint's deliveries (`all`, scored by createdAt) and in the pending set or the finished
 * set (`pending` is '1' or '0').
 */
const WRITE_DELIVERY = `
local function index_delivery(id, created, pending, pending_set, finished_set)
  if pending == '1' then
    redis.call('ZADD', pending_set, created, id)
    redis.call('ZREM', finished_set, id)
  else
    redis.call('ZREM', pending_set, id)
    redis.call('ZADD', finished_set, created, id)
  end
end
local function write_delivery(key, all, pending_set, finished_set, id, created, pending, first, last)
  redis.call('DEL', key)
  redis.call('HSET', key, unpack(ARGV, first, last))
  redis.call('ZADD', all, created, id)
  index_delivery(id, created, pending, pending_set, finished_set)
end`;

/**
 * KEYS[1] the endpoint · KEYS[2] every endpoint (by createdAt) · KEYS[3] its scope's endpoints ·
 * ARGV[1] deadline · ARGV[2] id · ARGV[3] createdAt · ARGV[4] the most endpoints of the scope ·
 * ARGV[5..] field, value… → 1 written, 2 when the scope already has that many, 0 when the id is
 * taken, -1 past the deadline (nothing written but for 1).
 */
export const CREATE_ENDPOINT = `${PAST_DEADLINE}
if past_deadline(ARGV[1]) then return -1 end
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then return 2 end
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[2])
return 1`;

/**
 * KEYS[1] the endpoint · ARGV[1] deadline · ARGV[2..] field, value… → its fields after the
 * change (HGETALL), 0 when it is gone, -1 past the deadline (nothing written either way).
 */
export const UPDATE_ENDPOINT = `${PAST_DEADLINE}
if past_deadline(ARGV[1]) then return -1 end
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if #ARGV > 1 then redis.call('HSET', KEYS[1], unpack(ARGV, 2)) end
return redis.call('HGETALL', KEYS[1])`;

/**
 * KEYS[1] the endpoint · KEYS[2] its lease · KEYS[3] every endpoint · KEYS[4] its deliveries ·
 * KEYS[5] its pending ones · KEYS[6] every finished delivery · ARGV[1] deadline · ARGV[2] id ·
 * ARGV[3] the prefix of delivery keys · ARGV[4] the deployment's endpoints · ARGV[5] the prefix of
 * organizations' → 1 removed (with its deliveries and lease), 0 when it was not there, -1 past
 * the deadline (nothing removed).
 */
export const DELETE_ENDPOINT = `${PAST_DEADLINE}
if past_deadline(ARGV[1]) then return -1 end
local organization = redis.call('HGET', KEYS[1], 'organizationId')
if not organization then return 0 end
organization = cjson.decode(organization)
if organization == cjson.null then
  redis.call('ZREM', ARGV[4], ARGV[2])
else
  redis.call('ZREM', ARGV[5] .. organization, ARGV[2])
end
redis.call('ZREM', KEYS[3], ARGV[2])
for _, id in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
  redis.call('DEL', ARGV[3] .. id)
  redis.call('ZREM', KEYS[6], id)
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[4], KEYS[5])
return 1`;

/**
 * KEYS[1] the endpoint · KEYS[2] its lease (a hash: owner, until) · ARGV[1] deadline · ARGV[2]
 * owner · ARGV[3] now · ARGV[4] until → 1 taken or renewed; 0 when another owner holds it past
 * `now` or the endpoint is gone; -1 past the deadline (nothing written either way).
 */
export const TRY_LEASE = `${PAST_DEADLINE}
if past_deadline(ARGV[1]) then return -1 end
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local held = redis.call('HMGET', KEYS[2], 'owner', 'until')
if held[1] and held[1] ~= ARGV[2] and tonumber(held[2] or '0') > tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[2], 'owner', ARGV[2], 'until', ARGV[4])
return 1`;

/** KEYS[1] the lease · ARGV[1] owner → 1 when it was the owner's (and is now gone), else 0. */
export const RELEASE_LEASE = `
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1`;

/**
 * KEYS[1] the endpoint · KEYS[2] its lease · KEYS[3] the endpoint's deliveries · KEYS[4] its
 * pending ones · KEYS[5] every finished delivery · ARGV[1] deadline · ARGV[2] owner · ARGV[3] now ·
 * ARGV[4] from · ARGV[5] to · ARGV[6] the reason to disable the endpoint with, as JSON ('' none) ·
 * ARGV[7] the prefix of delivery keys · ARGV[8] how many deliveries · then per delivery: its id,
 * its createdAt, '1' when pending, how many field and value items follow, the items → 1 written;
 * 0 when the lease is not held or the cursor is not at `from`; -1 past the deadline (nothing
 * written either way). Every check comes before the first write.
 */
export const ADVANCE = `${PAST_DEADLINE}${HOLDS_LEASE}${WRITE_DELIVERY}
if past_deadline(ARGV[1]) then return -1 end
if not holds_lease(KEYS[2], ARGV[2], ARGV[3]) then return 0 end
local cursor = redis.call('HGET', KEYS[1], 'cursor')
if not cursor or tonumber(cursor) ~= tonumber(ARGV[4]) then return 0 end
redis.call('HSET', KEYS[1], 'cursor', ARGV[5])
if ARGV[6] ~= '' then redis.call('HSET', KEYS[1], 'enabled', 'false', 'disabledReason', ARGV[6]) end
local at = 9
for _ = 1, tonumber(ARGV[8]) do
  local id, created, pending, count = ARGV[at], ARGV[at + 1], ARGV[at + 2], tonumber(ARGV[at + 3])
  write_delivery(ARGV[7] .. id, KEYS[3], KEYS[4], KEYS[5], id, created, pending, at + 4, at + 3 + count)
  at = at + 4 + count
end
return 1`;

/**
 * KEYS[1] the endpoint · KEYS[2] its lease · KEYS[3] the delivery · KEYS[4] the endpoint's pending
 * deliveries · KEYS[5] every finished delivery · ARGV[1] deadline · ARGV[2] owner · ARGV[3] now ·
 * ARGV[4] the endpoint's id as JSON · ARGV[5] the delivery's id · ARGV[6] '1' when it stays
 * pending · ARGV[7] the reason to disable the endpoint with, as JSON ('' none) · ARGV[8..] field,
 * value… → 1 written; 0 when the lease is not held or the delivery is not the endpoint's; -1 past
 * the deadline (nothing written either way). Every check comes before the first write.
 */
export const RECORD_ATTEMPT = `${PAST_DEADLINE}${HOLDS_LEASE}${WRITE_DELIVERY}
if past_deadline(ARGV[1]) then return -1 end
if not holds_lease(KEYS[2], ARGV[2], ARGV[3]) then return 0 end
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HGET', KEYS[3], 'endpointId') ~= ARGV[4] then return 0 end
local created = redis.call('HGET', KEYS[3], 'createdAt')
redis.call('HSET', KEYS[3], unpack(ARGV, 8))
index_delivery(ARGV[5], created, ARGV[6], KEYS[4], KEYS[5])
if ARGV[7] ~= '' then redis.call('HSET', KEYS[1], 'enabled', 'false', 'disabledReason', ARGV[7]) end
return 1`;

/**
 * KEYS[1] the endpoint · KEYS[2] the delivery · KEYS[3] the endpoint's deliveries · KEYS[4] its
 * pending ones · KEYS[5] every finished delivery · ARGV[1] deadline · ARGV[2] the delivery's id ·
 * ARGV[3] its createdAt · ARGV[4] '1' when pending · ARGV[5..] field, value… → 1 written, 0 when
 * the endpoint is gone, -1 past the deadline (nothing written either way).
 */
export const ADD_DELIVERY = `${PAST_DEADLINE}${WRITE_DELIVERY}
if past_deadline(ARGV[1]) then return -1 end
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
write_delivery(KEYS[2], KEYS[3], KEYS[4], KEYS[5], ARGV[2], ARGV[3], ARGV[4], 5, #ARGV)
return 1`;

/**
 * KEYS[1] a sorted set of ids · ARGV[1] the prefix of their hashes · ARGV[2] 'asc' or 'desc' ·
 * ARGV[3] the id to start after ('' from the end; an id not in the set: nothing) · ARGV[4] how
 * many (-1 every one) → the fields (HGETALL) of each, in the set's order (score, then id).
 */
export const READ_INDEXED = `${HASHES_OF}
local desc = ARGV[2] == 'desc'
local first = 0
if ARGV[3] ~= '' then
  local rank
  if desc then rank = redis.call('ZREVRANK', KEYS[1], ARGV[3]) else rank = redis.call('ZRANK', KEYS[1], ARGV[3]) end
  if not rank then return {} end
  first = rank + 1
end
local count = tonumber(ARGV[4])
local last = count < 0 and -1 or first + count - 1
local ids
if desc then ids = redis.call('ZREVRANGE', KEYS[1], first, last) else ids = redis.call('ZRANGE', KEYS[1], first, last) end
return hashes_of(ARGV[1], ids)`;

/**
 * KEYS[1] every finished delivery (by createdAt) · ARGV[1] olderThan · ARGV[2] the most to remove ·
 * ARGV[3] the prefix of delivery keys · ARGV[4] of endpoints' delivery sets → { how many
 * deliveries went, how many index entries were read } (those with createdAt < olderThan, oldest first).
 */
export const SWEEP_DELIVERIES = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'LIMIT', 0, ARGV[2])
local removed = 0
for _, id in ipairs(ids) do
  local endpoint = redis.call('HGET', ARGV[3] .. id, 'endpointId')
  if endpoint then redis.call('ZREM', ARGV[4] .. cjson.decode(endpoint), id) end
  removed = removed + redis.call('DEL', ARGV[3] .. id)
  redis.call('ZREM', KEYS[1], id)
end
return {removed, #ids}`;

export const WEBHOOK_COMMANDS = {
  portcullisCreateWebhookEndpoint: { numberOfKeys: 3, lua: CREATE_ENDPOINT },
  portcullisUpdateWebhookEndpoint: { numberOfKeys: 1, lua: UPDATE_ENDPOINT },
  portcullisDeleteWebhookEndpoint: { numberOfKeys: 6, lua: DELETE_ENDPOINT },
  portcullisTryWebhookLease: { numberOfKeys: 2, lua: TRY_LEASE },
  portcullisReleaseWebhookLease: { numberOfKeys: 1, lua: RELEASE_LEASE },
  portcullisAdvanceWebhook: { numberOfKeys: 5, lua: ADVANCE },
  portcullisRecordWebhookAttempt: { numberOfKeys: 5, lua: RECORD_ATTEMPT },
  portcullisAddWebhookDelivery: { numberOfKeys: 5, lua: ADD_DELIVERY },
  portcullisReadWebhookIndex: { numberOfKeys: 1, lua: READ_INDEXED },
  portcullisSweepWebhookDeliveries: { numberOfKeys: 1, lua: SWEEP_DELIVERIES },
};

/** The scripts as ioredis commands (keys first, then arguments, as each script's comment lists them). */
export interface WebhookCommands {
  portcullisCreateWebhookEndpoint(...args: string[]): Promise<number>;
  portcullisUpdateWebhookEndpoint(...args: string[]): Promise<number | string[]>;
  portcullisDeleteWebhookEndpoint(...args: string[]): Promise<number>;
  portcullisTryWebhookLease(...args: string[]): Promise<number>;
  portcullisReleaseWebhookLease(lease: string, owner: string): Promise<number>;
  portcullisAdvanceWebhook(...args: string[]): Promise<number>;
  portcullisRecordWebhookAttempt(...args: string[]): Promise<number>;
  portcullisAddWebhookDelivery(...args: string[]): Promise<number>;
  portcullisReadWebhookIndex(
    set: string,
    hashPrefix: string,
    order: "asc" | "desc",
    after: string,
    count: string,
  ): Promise<string[][]>;
  portcullisSweepWebhookDeliveries(
    finished: string,
    olderThan: string,
    batch: string,
    deliveryPrefix: string,
    deliverySetPrefix: string,
  ): Promise<[number, number]>;
}
