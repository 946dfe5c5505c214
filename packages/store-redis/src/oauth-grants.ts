import { type OAuthGrantRecord, type OAuthStore, oauthTombstone } from "@portcullis/core";
import type { Cluster, Redis } from "ioredis";
import {
  ADD_TO_INDEX,
  fromHash,
  GRANT_FIELDS,
  hashOf,
  type OAuthKeys,
  toFields,
  ttlOf,
} from "./oauth-records.js";
import type { Bounded } from "./redis-stores.js";
import { withCommands } from "./scripts.js";

/**
 * KEYS[1] the grant · KEYS[2] its client · KEYS[3] the client's grants · KEYS[4] the user's grants
 * (any key of the slot without a user) · ARGV[1] grant id · ARGV[2] ttl · ARGV[3] expiresAt ·
 * ARGV[4] createdAt · ARGV[5] '1' with a user · ARGV[6] the grant key prefix · ARGV[7..] field,
 * value… → 1 stored, 0 the id is taken (a grant, live or revoked, that ends after this one's
 * `createdAt`) or the client is absent.
 */
const CREATE_GRANT = `${ADD_TO_INDEX}
local ends = redis.call('HGET', KEYS[1], 'expiresAt')
if ends and tonumber(ends) > tonumber(ARGV[4]) then return 0 end
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 7))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
add_to_index(KEYS[3], ARGV[1], ARGV[3], ARGV[6], ARGV[2])
if ARGV[5] == '1' then add_to_index(KEYS[4], ARGV[1], ARGV[3], ARGV[6], ARGV[2]) end
return 1`;

/**
 * KEYS[1] the grant · ARGV[1] presented hash (JSON) · ARGV[2] next hash (JSON) · ARGV[3] now →
 * {'rotated', fields…} | {'reused'} (revoked now) | {'absent'} (absent, revoked or ended).
 */
const ROTATE_REFRESH = `
local grant = redis.call('HMGET', KEYS[1], 'refreshHash', 'expiresAt', 'revokedAt')
if not grant[2] or grant[3] ~= 'null' or tonumber(grant[2]) <= tonumber(ARGV[3]) then return {'absent'} end
if grant[1] ~= ARGV[1] then
  redis.call('HSET', KEYS[1], 'revokedAt', ARGV[3])
  return {'reused'}
end
redis.call('HSET', KEYS[1], 'refreshHash', ARGV[2])
return {'rotated', redis.call('HGETALL', KEYS[1])}`;

/**
 * KEYS[1] the grant · KEYS[2] the tombstone's client's grants · ARGV[1] grant id · ARGV[2] now ·
 * ARGV[3] the tombstone's expiresAt · ARGV[4] its ttl · ARGV[5] the grant key prefix · ARGV[6..]
 * the tombstone's field, value… → 1 a live grant was revoked, 0 otherwise. A grant that has not
 * ended is kept (revoked, or as it was when it already was); when there is none, the tombstone is
 * stored until its end (nothing when that is past).
 */
const REVOKE_GRANT = `${ADD_TO_INDEX}
local now = tonumber(ARGV[2])
local grant = redis.call('HMGET', KEYS[1], 'expiresAt', 'revokedAt')
if grant[1] and tonumber(grant[1]) > now then
  if grant[2] ~= 'null' then return 0 end
  redis.call('HSET', KEYS[1], 'revokedAt', ARGV[2])
  return 1
end
if tonumber(ARGV[3]) <= now then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 6))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
add_to_index(KEYS[2], ARGV[1], ARGV[3], ARGV[5], ARGV[4])
return 0`;

/**
 * KEYS[1] the user's grants · ARGV[1] now · ARGV[2] the grant key prefix · ARGV[3] a client id
 * (JSON) or '' for all → how many live grants were revoked. Members whose grant is gone (or is
 * no longer this user's) leave the index on the way.
 */
const REVOKE_USER_GRANTS = `
local now = tonumber(ARGV[1])
local revoked = 0
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local key = ARGV[2] .. id
  local grant = redis.call('HMGET', key, '_ui', 'clientId', 'expiresAt', 'revokedAt')
  if grant[1] ~= KEYS[1] then
    redis.call('ZREM', KEYS[1], id)
  elseif grant[4] == 'null' and tonumber(grant[3]) > now and (ARGV[3] == '' or grant[2] == ARGV[3]) then
    redis.call('HSET', key, 'revokedAt', ARGV[1])
    revoked = revoked + 1
  end
end
return revoked`;

const COMMANDS = {
  portcullisCreateOAuthGrant: { numberOfKeys: 4, lua: CREATE_GRANT },
  portcullisRotateOAuthRefresh: { numberOfKeys: 1, lua: ROTATE_REFRESH },
  portcullisRevokeOAuthGrant: { numberOfKeys: 2, lua: REVOKE_GRANT },
  portcullisRevokeUserOAuthGrants: { numberOfKeys: 1, lua: REVOKE_USER_GRANTS },
};

interface GrantCommands {
  portcullisCreateOAuthGrant(...args: string[]): Promise<number>;
  portcullisRotateOAuthRefresh(...args: string[]): Promise<[string, string[]?]>;
  portcullisRevokeOAuthGrant(...args: string[]): Promise<number>;
  portcullisRevokeUserOAuthGrants(...args: string[]): Promise<number>;
}

type GrantMethods = Pick<
  OAuthStore,
  "createOAuthGrant" | "getOAuthGrant" | "rotateOAuthRefresh" | "revokeOAuthGrant" | "revokeUserOAuthGrants"
>;

/** A grant's hash fields: the record's, and the indexes it is listed in (`_ci` its client's, `_ui` its user's or ''). */
const grantFields = (grant: OAuthGrantRecord, keys: OAuthKeys): string[] => [
  ...toFields(grant, GRANT_FIELDS),
  "_ci",
  keys.clientGrants(grant.clientId),
  "_ui",
  grant.userId === null ? "" : keys.userGrants(grant.userId),
];

/**
 * The grants: a hash per grant with a TTL at its `expiresAt` (as a length from the caller's clock:
 * `createdAt` when stored, `now` when a tombstone is), listed by user and by client. A revoked
 * grant keeps its TTL, so it stays until its end. Every write is one Lua script.
 */
export function redisOAuthGrants(client: Redis | Cluster, bounded: Bounded, keys: OAuthKeys): GrantMethods {
  const redis = withCommands<GrantCommands>(client, COMMANDS);
  return {
    async createOAuthGrant(grant) {
      const stored = await bounded(
        redis.portcullisCreateOAuthGrant(
          keys.grant(grant.grantId),
          keys.client(grant.clientId),
          keys.clientGrants(grant.clientId),
          keys.userGrants(grant.userId ?? ""),
          grant.grantId,
          ttlOf(grant.expiresAt - grant.createdAt),
          String(grant.expiresAt),
          String(grant.createdAt),
          grant.userId === null ? "0" : "1",
          keys.grantPrefix,
          ...grantFields(grant, keys),
        ),
      );
      return stored === 1;
    },
    async getOAuthGrant(grantId, now) {
      const grant = fromHash<OAuthGrantRecord>(
        await bounded(client.hgetall(keys.grant(grantId))),
        GRANT_FIELDS,
      );
      return grant !== null && grant.expiresAt > now ? grant : null;
    },
    async rotateOAuthRefresh(grantId, presentedHash, nextHash, now) {
      const [outcome, fields] = await bounded(
        redis.portcullisRotateOAuthRefresh(
          keys.grant(grantId),
          JSON.stringify(presentedHash),
          JSON.stringify(nextHash),
          String(now),
        ),
      );
      const grant = fields ? fromHash<OAuthGrantRecord>(hashOf(fields), GRANT_FIELDS) : null;
      if (outcome === "rotated" && grant) return { outcome, grant };
      return outcome === "reused" ? { outcome } : { outcome: "absent" };
    },
    async revokeOAuthGrant(grantId, tombstone, now) {
      const revoked = oauthTombstone(grantId, tombstone, now);
      const result = await bounded(
        redis.portcullisRevokeOAuthGrant(
          keys.grant(grantId),
          keys.clientGrants(tombstone.clientId),
          grantId,
          String(now),
          String(tombstone.expiresAt),
          ttlOf(tombstone.expiresAt - now),
          keys.grantPrefix,
          ...grantFields(revoked, keys),
        ),
      );
      return result === 1;
    },
    async revokeUserOAuthGrants(userId, now, clientId) {
      return bounded(
        redis.portcullisRevokeUserOAuthGrants(
          keys.userGrants(userId),
          String(now),
          keys.grantPrefix,
          clientId === undefined ? "" : JSON.stringify(clientId),
        ),
      );
    },
  };
}
