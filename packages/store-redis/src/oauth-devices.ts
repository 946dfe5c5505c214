import type { OAuthDeviceRecord, OAuthStore } from "@portcullis/core";
import type { Cluster, Redis } from "ioredis";
import {
  ADD_TO_INDEX,
  DEVICE_FIELDS,
  fromHash,
  hashOf,
  type OAuthKeys,
  toFields,
  ttlOf,
} from "./oauth-records.js";
import type { Bounded } from "./redis-stores.js";
import { withCommands } from "./scripts.js";

/**
 * How long a device authorization is kept after its `expiresAt`: polls in that time are answered
 * `expired` rather than `absent`. Also its shortest life when stored, should this process's clock
 * (which sets the first TTL: `createOAuthDevice` has no `now`) already be past its end.
 */
const DEVICE_GRACE_MS = 10 * 60_000;

/**
 * `keep_device(key, ends, now, grace)`: the authorization `key` and its user code (field `_uc`)
 * are kept until `grace` ms after `ends`, counted from the caller's `now`.
 */
const KEEP_DEVICE = `
local function keep_device(key, ends, now, grace)
  local ttl = math.ceil(math.max(tonumber(ends) - tonumber(now), 0) + tonumber(grace))
  redis.call('PEXPIRE', key, ttl)
  redis.call('PEXPIRE', redis.call('HGET', key, '_uc'), ttl)
end`;

/**
 * KEYS[1] the authorization · KEYS[2] its user code · KEYS[3] its client's authorizations ·
 * ARGV[1] device code hash · ARGV[2] ttl · ARGV[3] expiresAt · ARGV[4] the authorization key
 * prefix · ARGV[5..] field, value… → 1 stored, 0 the device or user code is taken.
 */
const CREATE_DEVICE = `${ADD_TO_INDEX}
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
add_to_index(KEYS[3], ARGV[1], ARGV[3], ARGV[4], ARGV[2])
return 1`;

/**
 * `pending(user_code_key, prefix, now)`: the key of the pending authorization with that user
 * code that has not ended at `now` (and its `expiresAt`), else nil.
 */
const PENDING = `
local function pending(user_code_key, prefix, now)
  local hash = redis.call('GET', user_code_key)
  if not hash then return nil end
  local key = prefix .. hash
  local device = redis.call('HMGET', key, 'status', 'expiresAt')
  if device[1] ~= '"pending"' or tonumber(device[2]) <= tonumber(now) then return nil end
  return key, device[2]
end`;

/** KEYS[1] the user code · ARGV[1] the authorization key prefix · ARGV[2] now → its fields when pending, else {}. */
const FIND_DEVICE = `${PENDING}
local key = pending(KEYS[1], ARGV[1], ARGV[2])
if not key then return {} end
return redis.call('HGETALL', key)`;

/**
 * KEYS[1] the user code · ARGV[1] the authorization key prefix · ARGV[2] now · ARGV[3] status
 * (JSON) · ARGV[4] user id (JSON) · ARGV[5] authTime · ARGV[6] grace ms → 1 decided, 0 not pending.
 */
const DECIDE_DEVICE = `${PENDING}${KEEP_DEVICE}
local key, ends = pending(KEYS[1], ARGV[1], ARGV[2])
if not key then return 0 end
redis.call('HSET', key, 'status', ARGV[3], 'userId', ARGV[4], 'authTime', ARGV[5])
keep_device(key, ends, ARGV[2], ARGV[6])
return 1`;

/**
 * KEYS[1] the authorization · ARGV[1] device code hash · ARGV[2] now · ARGV[3] grace ms →
 * {outcome} or {'approved', fields…}; an ended, approved or denied one is deleted (with its user
 * code and its index entry), a pending one records the poll.
 */
const POLL_DEVICE = `${KEEP_DEVICE}
local now = tonumber(ARGV[2])
local device = redis.call('HMGET', KEYS[1], 'status', 'expiresAt', 'intervalSeconds', 'lastPolledAt', '_uc', '_ci')
if not device[1] then return {'absent'} end
local function forget()
  if redis.call('GET', device[5]) == ARGV[1] then redis.call('DEL', device[5]) end
  redis.call('ZREM', device[6], ARGV[1])
  redis.call('DEL', KEYS[1])
end
if tonumber(device[2]) <= now then
  forget()
  return {'expired'}
end
if device[1] == '"approved"' then
  local fields = redis.call('HGETALL', KEYS[1])
  forget()
  return {'approved', fields}
end
if device[1] == '"denied"' then
  forget()
  return {'denied'}
end
keep_device(KEYS[1], device[2], ARGV[2], ARGV[3])
local interval = tonumber(device[3])
if device[4] ~= 'null' and now - tonumber(device[4]) < interval * 1000 then
  redis.call('HSET', KEYS[1], 'intervalSeconds', tostring(interval + 5), 'lastPolledAt', ARGV[2])
  return {'slow_down'}
end
redis.call('HSET', KEYS[1], 'lastPolledAt', ARGV[2])
return {'pending'}`;

const COMMANDS = {
  portcullisCreateOAuthDevice: { numberOfKeys: 3, lua: CREATE_DEVICE },
  portcullisFindOAuthDevice: { numberOfKeys: 1, lua: FIND_DEVICE },
  portcullisDecideOAuthDevice: { numberOfKeys: 1, lua: DECIDE_DEVICE },
  portcullisPollOAuthDevice: { numberOfKeys: 1, lua: POLL_DEVICE },
};

interface DeviceCommands {
  portcullisCreateOAuthDevice(...args: string[]): Promise<number>;
  portcullisFindOAuthDevice(...args: string[]): Promise<string[]>;
  portcullisDecideOAuthDevice(...args: string[]): Promise<number>;
  portcullisPollOAuthDevice(...args: string[]): Promise<[string, string[]?]>;
}

type DeviceMethods = Pick<
  OAuthStore,
  "createOAuthDevice" | "findOAuthDevice" | "decideOAuthDevice" | "pollOAuthDevice"
>;

/**
 * Device authorizations: a hash per authorization by device code hash and a key per user code
 * naming it, both with a TTL a grace after `expiresAt` (first from this process's clock, then
 * from the `now` of each decision and poll), listed by client (for the client's deletion). Every
 * step is one Lua script, so of concurrent decisions one wins and of concurrent polls of an
 * approval one gets it.
 */
export function redisOAuthDevices(client: Redis | Cluster, bounded: Bounded, keys: OAuthKeys): DeviceMethods {
  const redis = withCommands<DeviceCommands>(client, COMMANDS);
  return {
    async createOAuthDevice(device) {
      const stored = await bounded(
        redis.portcullisCreateOAuthDevice(
          keys.device(device.deviceCodeHash),
          keys.userCode(device.userCodeHash),
          keys.clientDevices(device.clientId),
          device.deviceCodeHash,
          ttlOf(Math.max(device.expiresAt - Date.now(), 0) + DEVICE_GRACE_MS),
          String(device.expiresAt),
          keys.devicePrefix,
          ...toFields(device, DEVICE_FIELDS),
          "_uc",
          keys.userCode(device.userCodeHash),
          "_ci",
          keys.clientDevices(device.clientId),
        ),
      );
      return stored === 1;
    },
    async findOAuthDevice(userCodeHash, now) {
      const fields = await bounded(
        redis.portcullisFindOAuthDevice(keys.userCode(userCodeHash), keys.devicePrefix, String(now)),
      );
      return fromHash<OAuthDeviceRecord>(hashOf(fields), DEVICE_FIELDS);
    },
    async decideOAuthDevice(userCodeHash, decision, now) {
      const decided = await bounded(
        redis.portcullisDecideOAuthDevice(
          keys.userCode(userCodeHash),
          keys.devicePrefix,
          String(now),
          JSON.stringify(decision.approve ? "approved" : "denied"),
          JSON.stringify(decision.userId),
          JSON.stringify(decision.authTime),
          String(DEVICE_GRACE_MS),
        ),
      );
      return decided === 1;
    },
    async pollOAuthDevice(deviceCodeHash, now) {
      const [outcome, fields] = await bounded(
        redis.portcullisPollOAuthDevice(
          keys.device(deviceCodeHash),
          deviceCodeHash,
          String(now),
          String(DEVICE_GRACE_MS),
        ),
      );
      const device = fields ? fromHash<OAuthDeviceRecord>(hashOf(fields), DEVICE_FIELDS) : null;
      if (outcome === "approved") return device ? { outcome, device } : { outcome: "absent" };
      if (outcome === "denied" || outcome === "pending" || outcome === "slow_down" || outcome === "expired")
        return { outcome };
      return { outcome: "absent" };
    },
  };
}
