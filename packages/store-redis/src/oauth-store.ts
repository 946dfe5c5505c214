import type { OAuthClientRecord, OAuthConsentRecord, OAuthStore } from "@portcullis/core";
import type { Cluster, Redis } from "ioredis";
import { redisOAuthDevices } from "./oauth-devices.js";
import { redisOAuthGrants } from "./oauth-grants.js";
import {
  CLIENT_FIELDS,
  CONSENT_FIELDS,
  fromHash,
  hashOf,
  type OAuthKeys,
  oauthKeys,
  toFields,
} from "./oauth-records.js";
import type { Bounded } from "./redis-stores.js";
import { withCommands } from "./scripts.js";

/** KEYS[1] the client · KEYS[2] every client id · ARGV[1] client id · ARGV[2..] field, value… → 1 stored, 0 taken. */
const CREATE_CLIENT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('ZADD', KEYS[2], 0, ARGV[1])
return 1`;

/** KEYS[1] the client · ARGV field, value… (none: only the check) → 1 changed, 0 no such client. */
const UPDATE_CLIENT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if #ARGV > 0 then redis.call('HSET', KEYS[1], unpack(ARGV)) end
return 1`;

/**
 * KEYS[1] every client id · ARGV[1] the range's start ('-', or '(' and the id to list after) ·
 * ARGV[2] limit · ARGV[3] the client key prefix → each client's fields, ordered by id.
 */
const LIST_CLIENTS = `
local out = {}
for _, id in ipairs(redis.call('ZRANGEBYLEX', KEYS[1], ARGV[1], '+', 'LIMIT', 0, ARGV[2])) do
  local fields = redis.call('HGETALL', ARGV[3] .. id)
  if #fields > 0 then out[#out + 1] = fields end
end
return out`;

/**
 * KEYS[1] the client · KEYS[2] every client id · KEYS[3] its grants · KEYS[4] its device
 * authorizations · KEYS[5] its consents · ARGV[1] client id · ARGV[2] the grant key prefix ·
 * ARGV[3] the authorization key prefix → 1 deleted with all of them (and their entries in their
 * users' indexes), 0 no such client. A member whose record is gone or is another client's (an id
 * stored again since) is only dropped.
 */
const DELETE_CLIENT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for _, id in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
  local grant = redis.call('HMGET', ARGV[2] .. id, '_ci', '_ui')
  if grant[1] == KEYS[3] then
    if grant[2] ~= '' then redis.call('ZREM', grant[2], id) end
    redis.call('DEL', ARGV[2] .. id)
  end
end
for _, hash in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
  local device = redis.call('HMGET', ARGV[3] .. hash, '_ci', '_uc')
  if device[1] == KEYS[4] then
    if redis.call('GET', device[2]) == hash then redis.call('DEL', device[2]) end
    redis.call('DEL', ARGV[3] .. hash)
  end
end
for _, key in ipairs(redis.call('SMEMBERS', KEYS[5])) do
  local user_index = redis.call('HGET', key, '_uk')
  if user_index then redis.call('SREM', user_index, key) end
  redis.call('DEL', key)
end
redis.call('DEL', KEYS[1], KEYS[3], KEYS[4], KEYS[5])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1`;

/**
 * KEYS[1] the consent · KEYS[2] the user's consents · KEYS[3] the client's consents · ARGV[1]
 * createdAt (JSON) · ARGV[2..] field, value… → 1. `createdAt` is written only when the consent is new.
 */
const SAVE_CONSENT = `
redis.call('HSETNX', KEYS[1], 'createdAt', ARGV[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('SADD', KEYS[2], KEYS[1])
redis.call('SADD', KEYS[3], KEYS[1])
return 1`;

/** KEYS[1] the consent · KEYS[2] the user's consents · KEYS[3] the client's consents → 1 deleted, 0 absent. */
const DELETE_CONSENT = `
redis.call('SREM', KEYS[2], KEYS[1])
redis.call('SREM', KEYS[3], KEYS[1])
return redis.call('DEL', KEYS[1])`;

/** KEYS[1] the user's consents → each consent's fields; members whose consent is gone leave the index. */
const LIST_CONSENTS = `
local out = {}
for _, key in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local fields = redis.call('HGETALL', key)
  if #fields > 0 then out[#out + 1] = fields else redis.call('SREM', KEYS[1], key) end
end
return out`;

const COMMANDS = {
  portcullisCreateOAuthClient: { numberOfKeys: 2, lua: CREATE_CLIENT },
  portcullisUpdateOAuthClient: { numberOfKeys: 1, lua: UPDATE_CLIENT },
  portcullisListOAuthClients: { numberOfKeys: 1, lua: LIST_CLIENTS },
  portcullisDeleteOAuthClient: { numberOfKeys: 5, lua: DELETE_CLIENT },
  portcullisSaveOAuthConsent: { numberOfKeys: 3, lua: SAVE_CONSENT },
  portcullisDeleteOAuthConsent: { numberOfKeys: 3, lua: DELETE_CONSENT },
  portcullisListOAuthConsents: { numberOfKeys: 1, lua: LIST_CONSENTS },
};

interface ClientCommands {
  portcullisCreateOAuthClient(...args: string[]): Promise<number>;
  portcullisUpdateOAuthClient(...args: string[]): Promise<number>;
  portcullisListOAuthClients(...args: string[]): Promise<string[][]>;
  portcullisDeleteOAuthClient(...args: string[]): Promise<number>;
  portcullisSaveOAuthConsent(...args: string[]): Promise<number>;
  portcullisDeleteOAuthConsent(...args: string[]): Promise<number>;
  portcullisListOAuthConsents(...args: string[]): Promise<string[][]>;
}

/** The most consents `listOAuthConsents` returns, and the most clients a page of `listOAuthClients`. */
const LIST_CAP = 1000;

/** The latest `updatedAt` first, ties by client id. */
const latestFirst = (a: OAuthConsentRecord, b: OAuthConsentRecord) =>
  b.updatedAt - a.updatedAt || (a.clientId < b.clientId ? -1 : a.clientId > b.clientId ? 1 : 0);

const clientOf = (hash: Record<string, string>) => fromHash<OAuthClientRecord>(hash, CLIENT_FIELDS);
const consentOf = (hash: Record<string, string>) => fromHash<OAuthConsentRecord>(hash, CONSENT_FIELDS);
const present = <T>(value: T | null): value is T => value !== null;

type ClientMethods = Pick<
  OAuthStore,
  "createOAuthClient" | "getOAuthClient" | "listOAuthClients" | "updateOAuthClient" | "deleteOAuthClient"
>;

/** The clients: a hash each and a sorted set of every id (scores 0: ordered by id, byte by byte). */
function redisOAuthClients(
  redis: ClientCommands & (Redis | Cluster),
  bounded: Bounded,
  keys: OAuthKeys,
): ClientMethods {
  return {
    async createOAuthClient(client) {
      const stored = await bounded(
        redis.portcullisCreateOAuthClient(
          keys.client(client.clientId),
          keys.clients,
          client.clientId,
          ...toFields(client, CLIENT_FIELDS),
        ),
      );
      return stored === 1;
    },
    async getOAuthClient(clientId) {
      return clientOf(await bounded(redis.hgetall(keys.client(clientId))));
    },
    async listOAuthClients({ after, limit }) {
      const count = Math.min(LIST_CAP, Math.max(1, Math.floor(limit)));
      const start = after === undefined ? "-" : `(${after}`;
      const lists = await bounded(
        redis.portcullisListOAuthClients(keys.clients, start, String(count), keys.clientPrefix),
      );
      return lists.map((fields) => clientOf(hashOf(fields))).filter(present);
    },
    async updateOAuthClient(clientId, patch) {
      const { name, secretHash, redirectUris, grantTypes, scopes } = patch;
      const fields = toFields({ name, secretHash, redirectUris, grantTypes, scopes }, [
        "name",
        "secretHash",
        "redirectUris",
        "grantTypes",
        "scopes",
      ]);
      return (await bounded(redis.portcullisUpdateOAuthClient(keys.client(clientId), ...fields))) === 1;
    },
    async deleteOAuthClient(clientId) {
      const deleted = await bounded(
        redis.portcullisDeleteOAuthClient(
          keys.client(clientId),
          keys.clients,
          keys.clientGrants(clientId),
          keys.clientDevices(clientId),
          keys.clientConsents(clientId),
          clientId,
          keys.grantPrefix,
          keys.devicePrefix,
        ),
      );
      return deleted === 1;
    },
  };
}

type ConsentMethods = Pick<
  OAuthStore,
  "saveOAuthConsent" | "getOAuthConsent" | "listOAuthConsents" | "deleteOAuthConsent"
>;

/** The consents: a hash each (they do not expire), in a set of its user's and one of its client's. */
function redisOAuthConsents(
  redis: ClientCommands & (Redis | Cluster),
  bounded: Bounded,
  keys: OAuthKeys,
): ConsentMethods {
  const keysOf = (userId: string, clientId: string) =>
    [keys.consent(userId, clientId), keys.userConsents(userId), keys.clientConsents(clientId)] as const;
  return {
    async saveOAuthConsent(consent) {
      const { createdAt, ...rest } = consent;
      await bounded(
        redis.portcullisSaveOAuthConsent(
          ...keysOf(consent.userId, consent.clientId),
          JSON.stringify(createdAt),
          ...toFields(rest, ["userId", "clientId", "scopes", "updatedAt"]),
          "_uk",
          keys.userConsents(consent.userId),
        ),
      );
    },
    async getOAuthConsent(userId, clientId) {
      return consentOf(await bounded(redis.hgetall(keys.consent(userId, clientId))));
    },
    async listOAuthConsents(userId) {
      const lists = await bounded(redis.portcullisListOAuthConsents(keys.userConsents(userId)));
      return lists
        .map((fields) => consentOf(hashOf(fields)))
        .filter(present)
        .sort(latestFirst)
        .slice(0, LIST_CAP);
    },
    async deleteOAuthConsent(userId, clientId) {
      return (await bounded(redis.portcullisDeleteOAuthConsent(...keysOf(userId, clientId)))) === 1;
    },
  };
}

/**
 * The OAuth / OpenID provider's state on Redis: clients, grants, consents and device
 * authorizations, each a hash, with the indexes that list them (a client's grants, devices and
 * consents; a user's grants and consents). Every key is under one hash tag (`{oauth}`, one
 * cluster slot: deleting a client reaches its users' indexes, revoking a user's grants reaches
 * every client's), so every step that reads and writes, or writes several keys, is one Lua
 * script. Grants and device authorizations expire at their end (TTLs measured from the caller's
 * `now`, never Redis's clock, which only times the deletion); indexes drop members whose record
 * is gone when a script passes over them, and expire with their last member. Clients and
 * consents never expire. Deleting a client, and revoking a user's grants, run over all of its
 * records in one script.
 */
export function redisOAuthStore(client: Redis | Cluster, bounded: Bounded, prefix: string): OAuthStore {
  const redis = withCommands<ClientCommands>(client, COMMANDS);
  const keys = oauthKeys(prefix);
  return {
    ...redisOAuthClients(redis, bounded, keys),
    ...redisOAuthGrants(client, bounded, keys),
    ...redisOAuthConsents(redis, bounded, keys),
    ...redisOAuthDevices(client, bounded, keys),
  };
}
