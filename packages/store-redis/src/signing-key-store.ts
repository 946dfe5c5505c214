import type { SigningKeyRecord, SigningKeyStore } from "@portcullis/core";
import type { Cluster, Redis } from "ioredis";
import { withCommands } from "./scripts.js";

/**
 * KEYS[1] the keys (a hash: kid → the record's JSON) · KEYS[2] their creation times (a sorted
 * set: kid by createdAt) · ARGV[1] kid · ARGV[2] createdAt · ARGV[3] unlessCreatedSince ·
 * ARGV[4] the record's JSON → 1 stored, 0 a key created since the bound exists, -1 the kid exists.
 */
const ADD_SIGNING_KEY = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return -1 end
if #redis.call('ZRANGEBYSCORE', KEYS[2], ARGV[3], '+inf', 'LIMIT', 0, 1) > 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return 1`;

/** KEYS[1] the keys · KEYS[2] their creation times · ARGV the kids → how many existed (and were deleted). */
const DELETE_SIGNING_KEYS = `
local deleted = 0
for _, kid in ipairs(ARGV) do
  deleted = deleted + redis.call('HDEL', KEYS[1], kid)
  redis.call('ZREM', KEYS[2], kid)
end
return deleted`;

const COMMANDS = {
  portcullisAddSigningKey: { numberOfKeys: 2, lua: ADD_SIGNING_KEY },
  portcullisDeleteSigningKeys: { numberOfKeys: 2, lua: DELETE_SIGNING_KEYS },
};

interface SigningKeyCommands {
  portcullisAddSigningKey(...args: string[]): Promise<number>;
  portcullisDeleteSigningKeys(...args: string[]): Promise<number>;
}

/** Newest first: the latest `createdAt`, ties by `kid` descending (the port's order). */
const newestFirst = (a: SigningKeyRecord, b: SigningKeyRecord) =>
  b.createdAt - a.createdAt || (a.kid < b.kid ? 1 : a.kid > b.kid ? -1 : 0);

/** A stored value as a record: the fields of the port, and only those. */
const fromJson = (json: string): SigningKeyRecord => {
  const { kid, alg, publicJwk, sealedPrivateKey, createdAt, activatesAt } = JSON.parse(
    json,
  ) as SigningKeyRecord;
  return { kid, alg, publicJwk, sealedPrivateKey, createdAt, activatesAt };
};

/**
 * The OAuth provider's signing keys on Redis: one hash of records (JSON by kid) and a sorted set
 * of their creation times, both under one hash tag (`{signing-keys}`, one cluster slot), so
 * `addSigningKey`'s check (any key created since the bound, the kid taken) and its write are one
 * Lua script. A deployment has a few keys; they never expire by themselves (the provider deletes
 * retired ones).
 */
export function redisSigningKeyStore(
  client: Redis | Cluster,
  bounded: <T>(operation: Promise<T>) => Promise<T>,
  prefix: string,
): SigningKeyStore {
  const redis = withCommands<SigningKeyCommands>(client, COMMANDS);
  const records = `${prefix}{signing-keys}:records`;
  const created = `${prefix}{signing-keys}:created`;
  return {
    async listSigningKeys() {
      const values = await bounded(client.hvals(records));
      return values.map(fromJson).sort(newestFirst);
    },
    async addSigningKey(key, unlessCreatedSince) {
      const result = await bounded(
        redis.portcullisAddSigningKey(
          records,
          created,
          key.kid,
          String(key.createdAt),
          String(unlessCreatedSince),
          JSON.stringify(fromJson(JSON.stringify(key))),
        ),
      );
      if (result === -1) throw new Error(`@portcullis/store-redis: a signing key with kid ${key.kid} exists`);
      return result === 1;
    },
    async deleteSigningKeys(kids) {
      const unique = [...new Set(kids)];
      if (unique.length === 0) return 0;
      return bounded(redis.portcullisDeleteSigningKeys(records, created, ...unique));
    },
  };
}
