import type { PasskeyRecord, PasskeyStore } from "@portcullis/core";
import type { Cluster, Redis } from "ioredis";
import { HASHES_OF, withCommands } from "./scripts.js";

/** KEYS[1] the passkey (a hash) · KEYS[2] the user's index (a set) · ARGV[1] id · ARGV[2..] field, value… → 1 stored, 0 taken. */
const CREATE_PASSKEY = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('SADD', KEYS[2], ARGV[1])
return 1`;

/** KEYS[1] the passkey · ARGV[1] expected counter · ARGV[2] counter · ARGV[3] backed up · ARGV[4] used at → 1 written, 0 not. */
const RECORD_USE = `
local counter = redis.call('HGET', KEYS[1], 'counter')
if not counter or counter ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'counter', ARGV[2], 'backedUp', ARGV[3], 'lastUsedAt', ARGV[4])
return 1`;

/** KEYS[1] the passkey · ARGV[1] user id · ARGV[2] name → the renamed passkey's fields, or an empty list. */
const RENAME_PASSKEY = `
if redis.call('HGET', KEYS[1], 'userId') ~= ARGV[1] then return {} end
redis.call('HSET', KEYS[1], 'name', ARGV[2])
return redis.call('HGETALL', KEYS[1])`;

/**
 * KEYS[1] the passkey · KEYS[2] the user's index · ARGV[1] user id · ARGV[2] id · ARGV[3] keep at
 * least → 1 removed, 0 not (another user's, absent, or the user would keep too few).
 */
const DELETE_PASSKEY = `
if redis.call('HGET', KEYS[1], 'userId') ~= ARGV[1] then return 0 end
if redis.call('SCARD', KEYS[2]) - 1 < tonumber(ARGV[3]) then return 0 end
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[2])
return 1`;

/** KEYS[1] the user's index · ARGV[1] the prefix of passkey keys → each passkey's fields (HGETALL), or with ARGV[2] '1', deletes them and returns how many. */
const USER_PASSKEYS = `${HASHES_OF}
local ids = redis.call('SMEMBERS', KEYS[1])
if ARGV[2] == '1' then
  for _, id in ipairs(ids) do redis.call('DEL', ARGV[1] .. id) end
  redis.call('DEL', KEYS[1])
  return #ids
end
return hashes_of(ARGV[1], ids)`;

const COMMANDS = {
  portcullisCreatePasskey: { numberOfKeys: 2, lua: CREATE_PASSKEY },
  portcullisRecordPasskeyUse: { numberOfKeys: 1, lua: RECORD_USE },
  portcullisRenamePasskey: { numberOfKeys: 1, lua: RENAME_PASSKEY },
  portcullisDeletePasskey: { numberOfKeys: 2, lua: DELETE_PASSKEY },
  portcullisUserPasskeys: { numberOfKeys: 1, lua: USER_PASSKEYS },
};

interface PasskeyCommands {
  portcullisCreatePasskey(...args: string[]): Promise<number>;
  portcullisRecordPasskeyUse(...args: string[]): Promise<number>;
  portcullisRenamePasskey(...args: string[]): Promise<string[]>;
  portcullisDeletePasskey(...args: string[]): Promise<number>;
  portcullisUserPasskeys(key: string, prefix: string, remove: string): Promise<string[][] | number>;
}

const toFields = (passkey: PasskeyRecord): string[] => [
  "id",
  passkey.id,
  "userId",
  passkey.userId,
  "publicKey",
  passkey.publicKey,
  "counter",
  String(passkey.counter),
  "transports",
  JSON.stringify(passkey.transports),
  "backupEligible",
  passkey.backupEligible ? "1" : "0",
  "backedUp",
  passkey.backedUp ? "1" : "0",
  "name",
  passkey.name,
  "createdAt",
  String(passkey.createdAt),
  "lastUsedAt",
  passkey.lastUsedAt === null ? "" : String(passkey.lastUsedAt),
];

const fromHash = (hash: Record<string, string>): PasskeyRecord => ({
  id: hash.id as string,
  userId: hash.userId as string,
  publicKey: hash.publicKey as string,
  counter: Number(hash.counter),
  transports: JSON.parse(hash.transports ?? "[]") as string[],
  backupEligible: hash.backupEligible === "1",
  backedUp: hash.backedUp === "1",
  name: hash.name as string,
  createdAt: Number(hash.createdAt),
  lastUsedAt: hash.lastUsedAt ? Number(hash.lastUsedAt) : null,
});

/** An HGETALL reply as a flat list (from a script), as a record. */
const fromList = (fields: string[]): PasskeyRecord => {
  const hash: Record<string, string> = {};
  for (let i = 0; i < fields.length; i += 2) hash[fields[i] as string] = fields[i + 1] as string;
  return fromHash(hash);
};

/**
 * Passkeys on Redis: a hash per passkey and a set of ids per user, every key under one hash tag
 * (`{passkeys}`, one cluster slot: an account has a few passkeys, and a credential id must be
 * unique across every account, which one slot makes one atomic check). Every write is one Lua
 * script. Passkeys do not expire.
 */
export function redisPasskeyStore(
  client: Redis | Cluster,
  bounded: <T>(operation: Promise<T>) => Promise<T>,
  prefix: string,
): PasskeyStore {
  const redis = withCommands<PasskeyCommands>(client, COMMANDS);
  const space = `${prefix}{passkeys}:`;
  const passkeyPrefix = `${space}p:`;
  const passkeyKey = (id: string) => `${passkeyPrefix}${id}`;
  const userKey = (userId: string) => `${space}u:${userId}`;
  return {
    async create(passkey) {
      const stored = await bounded(
        redis.portcullisCreatePasskey(
          passkeyKey(passkey.id),
          userKey(passkey.userId),
          passkey.id,
          ...toFields(passkey),
        ),
      );
      return stored === 1 ? { ...passkey, transports: [...passkey.transports] } : null;
    },
    async findById(id) {
      const hash = await bounded(client.hgetall(passkeyKey(id)));
      return hash.id === undefined ? null : fromHash(hash);
    },
    async listByUser(userId) {
      const lists = (await bounded(
        redis.portcullisUserPasskeys(userKey(userId), passkeyPrefix, "0"),
      )) as string[][];
      return lists.map(fromList).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
    },
    async recordUse(id, use) {
      const written = await bounded(
        redis.portcullisRecordPasskeyUse(
          passkeyKey(id),
          String(use.expectedCounter),
          String(use.counter),
          use.backedUp ? "1" : "0",
          String(use.usedAt),
        ),
      );
      return written === 1;
    },
    async rename(userId, id, name) {
      const fields = await bounded(redis.portcullisRenamePasskey(passkeyKey(id), userId, name));
      return fields.length === 0 ? null : fromList(fields);
    },
    async delete(userId, id, options) {
      const removed = await bounded(
        redis.portcullisDeletePasskey(
          passkeyKey(id),
          userKey(userId),
          userId,
          id,
          String(options?.keepAtLeast ?? 0),
        ),
      );
      return removed === 1;
    },
    async deleteAllForUser(userId) {
      return (await bounded(redis.portcullisUserPasskeys(userKey(userId), passkeyPrefix, "1"))) as number;
    },
  };
}
