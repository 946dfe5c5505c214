import { type SsoConnectionRecord, type SsoDomainRecord, type SsoStore, withTimeout } from "@portcullis/core";
import type { Cluster, Redis } from "ioredis";
import { ADD_TO_INDEX, fromHash, hashOf, toFields, ttlOf } from "./oauth-records.js";
import type { Bounded } from "./redis-stores.js";
import { HASHES_OF, withCommands } from "./scripts.js";

/**
 * `delete_connection(key, id, index, assertions, dc, sc)`: deletes the connection hash `key` (id
 * `id`), its entry in its organization's index, the domain owners `dc .. domain` and the SCIM
 * token entry `sc .. hash` that still name it, and its used assertions (the keys listed in
 * `assertions`, and that index).
 */
const DELETE_CONNECTION = `
local function delete_connection(key, id, index, assertions, dc, sc)
  local fields = redis.call('HMGET', key, 'domains', 'scimTokenHash')
  if fields[1] then
    for _, domain in ipairs(cjson.decode(fields[1])) do
      if redis.call('GET', dc .. domain) == id then redis.call('DEL', dc .. domain) end
    end
  end
  local hash = fields[2] and cjson.decode(fields[2])
  if type(hash) == 'string' and redis.call('GET', sc .. hash) == id then redis.call('DEL', sc .. hash) end
  for _, used in ipairs(redis.call('ZRANGE', assertions, 0, -1)) do redis.call('DEL', used) end
  redis.call('DEL', key, assertions)
  redis.call('ZREM', index, id)
end`;

/**
 * KEYS[1] the connection · KEYS[2] its organization's connections · ARGV[1] id · ARGV[2]
 * createdAt · ARGV[3] the domain owner prefix · ARGV[4] the SCIM entry prefix · ARGV[5] the SCIM
 * token hash (JSON) · ARGV[6] n · ARGV[7..6+n] its domains · ARGV[7+n..] field, value… → 1
 * stored, 0 a domain belongs to another connection (nothing written).
 */
const CREATE_CONNECTION = `
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.error_reply('ERR an SSO connection has this id') end
local id, last = ARGV[1], 6 + tonumber(ARGV[6])
for i = 7, last do
  local owner = redis.call('GET', ARGV[3] .. ARGV[i])
  if owner and owner ~= id then return 0 end
end
for i = 7, last do redis.call('SET', ARGV[3] .. ARGV[i], id) end
local hash = cjson.decode(ARGV[5])
if type(hash) == 'string' then redis.call('SET', ARGV[4] .. hash, id) end
redis.call('HSET', KEYS[1], unpack(ARGV, last + 1))
redis.call('ZADD', KEYS[2], ARGV[2], id)
return 1`;

/**
 * KEYS[1] the connection · ARGV[1] its organization id (JSON) · ARGV[2] id · ARGV[3] the domain
 * owner prefix · ARGV[4] the SCIM entry prefix · ARGV[5] '1' when the domains change · ARGV[6]
 * '1' when the SCIM token changes · ARGV[7] the new SCIM token hash (JSON) · ARGV[8] n ·
 * ARGV[9..8+n] the new domains · ARGV[9+n..] field, value… → {'ok', fields…} | {'none'} (no such
 * connection in this organization) | {'taken'} (a domain belongs to another one; nothing changed).
 */
const UPDATE_CONNECTION = `
if redis.call('HGET', KEYS[1], 'organizationId') ~= ARGV[1] then return {'none'} end
local id, last = ARGV[2], 8 + tonumber(ARGV[8])
for i = 9, last do
  local owner = redis.call('GET', ARGV[3] .. ARGV[i])
  if owner and owner ~= id then return {'taken'} end
end
if ARGV[5] == '1' then
  for _, domain in ipairs(cjson.decode(redis.call('HGET', KEYS[1], 'domains'))) do
    if redis.call('GET', ARGV[3] .. domain) == id then redis.call('DEL', ARGV[3] .. domain) end
  end
  for i = 9, last do redis.call('SET', ARGV[3] .. ARGV[i], id) end
end
if ARGV[6] == '1' then
  local old, new = cjson.decode(redis.call('HGET', KEYS[1], 'scimTokenHash')), cjson.decode(ARGV[7])
  if type(old) == 'string' and redis.call('GET', ARGV[4] .. old) == id then redis.call('DEL', ARGV[4] .. old) end
  if type(new) == 'string' then redis.call('SET', ARGV[4] .. new, id) end
end
redis.call('HSET', KEYS[1], unpack(ARGV, last + 1))
return {'ok', unpack(redis.call('HGETALL', KEYS[1]))}`;

/**
 * KEYS[1] the connection · KEYS[2] its organization's connections · KEYS[3] its used assertions ·
 * ARGV[1] the organization id (JSON) · ARGV[2] id · ARGV[3] the domain owner prefix · ARGV[4]
 * the SCIM entry prefix → 1 deleted, 0 no such connection in this organization.
 */
const DELETE_CONNECTION_OF = `${DELETE_CONNECTION}
if redis.call('HGET', KEYS[1], 'organizationId') ~= ARGV[1] then return 0 end
delete_connection(KEYS[1], ARGV[2], KEYS[2], KEYS[3], ARGV[3], ARGV[4])
return 1`;

/** KEYS[1] the organization's connections · ARGV[1] the connection prefix → each one's fields, oldest first. */
const LIST_CONNECTIONS = `${HASHES_OF}
return hashes_of(ARGV[1], redis.call('ZRANGE', KEYS[1], 0, -1))`;

/**
 * KEYS[1] the SCIM entry · ARGV[1] the connection prefix · ARGV[2] the hash (JSON) → the fields
 * of the connection it names (when that still has this hash), else empty.
 */
const FIND_BY_SCIM = `
local id = redis.call('GET', KEYS[1])
if not id or redis.call('HGET', ARGV[1] .. id, 'scimTokenHash') ~= ARGV[2] then return {} end
return redis.call('HGETALL', ARGV[1] .. id)`;

/**
 * KEYS[1] the domain's verified claim (its key) · KEYS[2] the domain's connection (its id) ·
 * ARGV[1] the connection prefix → {connection fields, claim fields} when that connection's
 * organization has the domain verified, else empty.
 */
const FIND_ROUTE = `
local claim, id = redis.call('GET', KEYS[1]), redis.call('GET', KEYS[2])
if not claim or not id then return {} end
local connection = ARGV[1] .. id
local organization = redis.call('HGET', claim, 'organizationId')
if not organization or redis.call('HGET', connection, 'organizationId') ~= organization then return {} end
if redis.call('HGET', claim, 'verifiedAt') == 'null' then return {} end
return {redis.call('HGETALL', connection), redis.call('HGETALL', claim)}`;

/**
 * KEYS[1] the claim · KEYS[2] the organization's claims · KEYS[3] the domain's verified claim ·
 * ARGV[1] '1' when the claim comes verified · ARGV[2..] field, value… → 1 stored, 0 exists. A
 * claim that comes verified is the domain's verified one unless another organization's is.
 */
const CLAIM_DOMAIN = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('SADD', KEYS[2], KEYS[1])
if ARGV[1] == '1' then redis.call('SET', KEYS[3], KEYS[1], 'NX') end
return 1`;

/** KEYS[1] the organization's claims → each claim's fields; members whose claim is gone leave the set. */
const LIST_DOMAINS = `
local out = {}
for _, key in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local fields = redis.call('HGETALL', key)
  if #fields > 0 then out[#out + 1] = fields else redis.call('SREM', KEYS[1], key) end
end
return out`;

/**
 * KEYS[1] the claim · KEYS[2] the domain's verified claim · ARGV[1] at (JSON) → {'ok', fields…}
 * | {'not-found'} | {'taken'} (another organization's claim is the verified one).
 */
const VERIFY_DOMAIN = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {'not-found'} end
local verified = redis.call('GET', KEYS[2])
if verified and verified ~= KEYS[1] then return {'taken'} end
if redis.call('HGET', KEYS[1], 'verifiedAt') == 'null' then redis.call('HSET', KEYS[1], 'verifiedAt', ARGV[1]) end
redis.call('SET', KEYS[2], KEYS[1])
return {'ok', unpack(redis.call('HGETALL', KEYS[1]))}`;

/** KEYS[1] the claim · KEYS[2] the domain's verified claim · KEYS[3] the organization's claims → 1 dropped, 0 none. */
const RELEASE_DOMAIN = `
if redis.call('GET', KEYS[2]) == KEYS[1] then redis.call('DEL', KEYS[2]) end
redis.call('SREM', KEYS[3], KEYS[1])
return redis.call('DEL', KEYS[1])`;

/**
 * KEYS[1] the used assertion · KEYS[2] its connection's used assertions · ARGV[1] ttl ms ·
 * ARGV[2] expiresAt → 1 the first time (SET NX PX), 0 after.
 */
const USE_ASSERTION = `${ADD_TO_INDEX}
if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then return 0 end
add_to_index(KEYS[2], KEYS[1], ARGV[2], '', ARGV[1])
return 1`;

/**
 * KEYS[1] the organization's connections · KEYS[2] its claims · ARGV[1] the connection prefix ·
 * ARGV[2] the used-assertions prefix · ARGV[3] the domain owner prefix · ARGV[4] the SCIM entry
 * prefix → 1: every connection (as deleteSsoConnection) and claim (as releaseSsoDomain) gone.
 */
const REMOVE_ORGANIZATION = `${DELETE_CONNECTION}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  delete_connection(ARGV[1] .. id, id, KEYS[1], ARGV[2] .. id, ARGV[3], ARGV[4])
end
for _, claim in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  local verified = redis.call('HGET', claim, '_v')
  if verified and redis.call('GET', verified) == claim then redis.call('DEL', verified) end
  redis.call('DEL', claim)
end
redis.call('DEL', KEYS[1], KEYS[2])
return 1`;

const COMMANDS = {
  portcullisSsoCreateConnection: { numberOfKeys: 2, lua: CREATE_CONNECTION },
  portcullisSsoUpdateConnection: { numberOfKeys: 1, lua: UPDATE_CONNECTION },
  portcullisSsoDeleteConnection: { numberOfKeys: 3, lua: DELETE_CONNECTION_OF },
  portcullisSsoListConnections: { numberOfKeys: 1, lua: LIST_CONNECTIONS },
  portcullisSsoFindByScim: { numberOfKeys: 1, lua: FIND_BY_SCIM },
  portcullisSsoFindRoute: { numberOfKeys: 2, lua: FIND_ROUTE },
  portcullisSsoClaimDomain: { numberOfKeys: 3, lua: CLAIM_DOMAIN },
  portcullisSsoListDomains: { numberOfKeys: 1, lua: LIST_DOMAINS },
  portcullisSsoVerifyDomain: { numberOfKeys: 2, lua: VERIFY_DOMAIN },
  portcullisSsoReleaseDomain: { numberOfKeys: 3, lua: RELEASE_DOMAIN },
  portcullisSsoUseAssertion: { numberOfKeys: 2, lua: USE_ASSERTION },
  portcullisSsoRemoveOrganization: { numberOfKeys: 2, lua: REMOVE_ORGANIZATION },
};

interface SsoCommands {
  portcullisSsoCreateConnection(...args: string[]): Promise<number>;
  portcullisSsoUpdateConnection(...args: string[]): Promise<string[]>;
  portcullisSsoDeleteConnection(...args: string[]): Promise<number>;
  portcullisSsoListConnections(...args: string[]): Promise<string[][]>;
  portcullisSsoFindByScim(...args: string[]): Promise<string[]>;
  portcullisSsoFindRoute(...args: string[]): Promise<[string[], string[]] | []>;
  portcullisSsoClaimDomain(...args: string[]): Promise<number>;
  portcullisSsoListDomains(...args: string[]): Promise<string[][]>;
  portcullisSsoVerifyDomain(...args: string[]): Promise<string[]>;
  portcullisSsoReleaseDomain(...args: string[]): Promise<number>;
  portcullisSsoUseAssertion(...args: string[]): Promise<number>;
  portcullisSsoRemoveOrganization(...args: string[]): Promise<number>;
}

type SsoRedis = SsoCommands & (Redis | Cluster);

/** The port's fields of a connection, in the order they are written. */
const CONNECTION_FIELDS = [
  "id",
  "organizationId",
  "type",
  "saml",
  "oidc",
  "defaultRole",
  "domains",
  "ssoRequired",
  "idpInitiated",
  "scimTokenHash",
  "createdAt",
  "updatedAt",
] as const satisfies readonly (keyof SsoConnectionRecord)[];

/** What `updateSsoConnection` may write: every field but the connection's identity and creation. */
const FIXED_FIELDS = ["id", "organizationId", "type", "createdAt"] as const;
type PatchField = Exclude<(typeof CONNECTION_FIELDS)[number], (typeof FIXED_FIELDS)[number]>;
const PATCH_FIELDS = CONNECTION_FIELDS.filter(
  (field): field is PatchField => !(FIXED_FIELDS as readonly string[]).includes(field),
);

/** The port's fields of a domain claim. */
const DOMAIN_FIELDS = [
  "organizationId",
  "domain",
  "verificationToken",
  "verifiedAt",
  "createdAt",
] as const satisfies readonly (keyof SsoDomainRecord)[];

/**
 * How long a used assertion is kept after its `expiresAt` on this process's clock: instances
 * whose clocks lag (or a caller's fake clock) still find it while they would accept it.
 */
const ASSERTION_GRACE_MS = 10 * 60_000;

const connectionFrom = (hash: Record<string, string>) =>
  fromHash<SsoConnectionRecord>(hash, CONNECTION_FIELDS);
const domainFrom = (hash: Record<string, string>) => fromHash<SsoDomainRecord>(hash, DOMAIN_FIELDS);
const connectionOf = (flat: string[]) => connectionFrom(hashOf(flat));
const domainOf = (flat: string[]) => domainFrom(hashOf(flat));
const present = <T>(value: T | null): value is T => value !== null;
const byName = (a: SsoDomainRecord, b: SsoDomainRecord) =>
  a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0;

/**
 * Every key of the SSO store, under one hash tag (`{sso}`): a domain belongs to one connection
 * and is verified for one organization across all of them, so the checks and writes of one
 * create, update or verification, and a route's reads, must reach every organization's keys in
 * one script (one slot).
 */
function ssoKeys(prefix: string) {
  const space = `${prefix}{sso}:`;
  return {
    /** A connection (hash of JSON fields), and its organization's connections (sorted set of ids by createdAt). */
    connection: (id: string) => `${space}c:${id}`,
    connectionPrefix: `${space}c:`,
    organizationConnections: (organizationId: string) => `${space}oc:${organizationId}`,
    /** The id of the connection naming a domain (string), and of the one with a SCIM token hash. */
    domainOwnerPrefix: `${space}dc:`,
    scimPrefix: `${space}sc:`,
    scim: (hash: string) => `${space}sc:${hash}`,
    domainOwner: (domain: string) => `${space}dc:${domain}`,
    /** A claim (hash of JSON fields, and `_v`: the key below), its organization's claims (set of keys). */
    claim: (organizationId: string, domain: string) =>
      `${space}k:${JSON.stringify([domain, organizationId])}`,
    organizationClaims: (organizationId: string) => `${space}ok:${organizationId}`,
    /** The key of the claim a domain is verified by (string). */
    verifiedClaim: (domain: string) => `${space}v:${domain}`,
    /** A used assertion (string, with a TTL), and its connection's (sorted set of those keys by expiresAt). */
    assertion: (connectionId: string, assertionId: string) =>
      `${space}a:${JSON.stringify([connectionId, assertionId])}`,
    connectionAssertions: (connectionId: string) => `${space}ca:${connectionId}`,
    connectionAssertionsPrefix: `${space}ca:`,
  };
}

type SsoKeys = ReturnType<typeof ssoKeys>;

/** The connections: a hash each, an index per organization, an owner entry per domain and per SCIM token. */
function redisSsoConnections(redis: SsoRedis, bounded: Bounded, keys: SsoKeys) {
  const owners = [keys.domainOwnerPrefix, keys.scimPrefix] as const;
  return {
    async createSsoConnection(connection) {
      const stored = await bounded(
        redis.portcullisSsoCreateConnection(
          keys.connection(connection.id),
          keys.organizationConnections(connection.organizationId),
          connection.id,
          String(connection.createdAt),
          ...owners,
          JSON.stringify(connection.scimTokenHash),
          String(connection.domains.length),
          ...connection.domains,
          ...toFields(connection, CONNECTION_FIELDS),
        ),
      );
      return stored === 1 ? "created" : "domain-taken";
    },
    async findSsoConnection(id) {
      return connectionFrom(await bounded(redis.hgetall(keys.connection(id))));
    },
    async listSsoConnections(organizationId) {
      const lists = await bounded(
        redis.portcullisSsoListConnections(
          keys.organizationConnections(organizationId),
          keys.connectionPrefix,
        ),
      );
      return lists.map(connectionOf).filter(present);
    },
    async updateSsoConnection(organizationId, id, patch) {
      const domains = patch.domains ?? [];
      const [status, ...fields] = await bounded(
        redis.portcullisSsoUpdateConnection(
          keys.connection(id),
          JSON.stringify(organizationId),
          id,
          ...owners,
          patch.domains === undefined ? "0" : "1",
          patch.scimTokenHash === undefined ? "0" : "1",
          JSON.stringify(patch.scimTokenHash ?? null),
          String(domains.length),
          ...domains,
          ...toFields(patch, PATCH_FIELDS),
        ),
      );
      if (status === "taken") return "domain-taken";
      return status === "ok" ? connectionOf(fields) : null;
    },
    async deleteSsoConnection(organizationId, id) {
      const deleted = await bounded(
        redis.portcullisSsoDeleteConnection(
          keys.connection(id),
          keys.organizationConnections(organizationId),
          keys.connectionAssertions(id),
          JSON.stringify(organizationId),
          id,
          ...owners,
        ),
      );
      return deleted === 1;
    },
  } satisfies Partial<SsoStore>;
}

/** The reads every SCIM request and every password sign-in make: one script each (one round trip). */
function redisSsoLookups(redis: SsoRedis, bounded: Bounded, keys: SsoKeys) {
  return {
    async findSsoConnectionByScimTokenHash(tokenHash) {
      const fields = await bounded(
        redis.portcullisSsoFindByScim(keys.scim(tokenHash), keys.connectionPrefix, JSON.stringify(tokenHash)),
      );
      return connectionOf(fields);
    },
    async findSsoRoute(domain) {
      const found = await bounded(
        redis.portcullisSsoFindRoute(
          keys.verifiedClaim(domain),
          keys.domainOwner(domain),
          keys.connectionPrefix,
        ),
      );
      const [connection, claim] = found.length === 2 ? [connectionOf(found[0]), domainOf(found[1])] : [];
      // Whole records naming the domain (they always are, unless written by something else).
      if (!connection?.domains.includes(domain) || claim?.domain !== domain) return null;
      return { connection, domain: claim };
    },
  } satisfies Partial<SsoStore>;
}

/** The claims (a hash each, a set per organization, the verified one per domain), used assertions, removal. */
function redisSsoDomains(redis: SsoRedis, bounded: Bounded, keys: SsoKeys) {
  return {
    async claimSsoDomain(record) {
      const created = await bounded(
        redis.portcullisSsoClaimDomain(
          keys.claim(record.organizationId, record.domain),
          keys.organizationClaims(record.organizationId),
          keys.verifiedClaim(record.domain),
          record.verifiedAt === null ? "0" : "1",
          ...toFields(record, DOMAIN_FIELDS),
          "_v",
          keys.verifiedClaim(record.domain),
        ),
      );
      return created === 1 ? "created" : "exists";
    },
    async listSsoDomains(organizationId) {
      const lists = await bounded(redis.portcullisSsoListDomains(keys.organizationClaims(organizationId)));
      return lists.map(domainOf).filter(present).sort(byName);
    },
    async findSsoDomain(organizationId, domain) {
      return domainFrom(await bounded(redis.hgetall(keys.claim(organizationId, domain))));
    },
    async verifySsoDomain(organizationId, domain, at) {
      const [status, ...fields] = await bounded(
        redis.portcullisSsoVerifyDomain(
          keys.claim(organizationId, domain),
          keys.verifiedClaim(domain),
          JSON.stringify(at),
        ),
      );
      if (status === "taken") return "taken";
      return (status === "ok" && domainOf(fields)) || "not-found";
    },
    async releaseSsoDomain(organizationId, domain) {
      const released = await bounded(
        redis.portcullisSsoReleaseDomain(
          keys.claim(organizationId, domain),
          keys.verifiedClaim(domain),
          keys.organizationClaims(organizationId),
        ),
      );
      return released === 1;
    },
    async useSsoAssertion(connectionId, assertionId, expiresAt) {
      const used = await bounded(
        redis.portcullisSsoUseAssertion(
          keys.assertion(connectionId, assertionId),
          keys.connectionAssertions(connectionId),
          ttlOf(Math.max(expiresAt - Date.now(), 0) + ASSERTION_GRACE_MS),
          String(expiresAt),
        ),
      );
      return used === 1;
    },
    async removeOrganizationSso(organizationId) {
      await bounded(
        redis.portcullisSsoRemoveOrganization(
          keys.organizationConnections(organizationId),
          keys.organizationClaims(organizationId),
          keys.connectionPrefix,
          keys.connectionAssertionsPrefix,
          keys.domainOwnerPrefix,
          keys.scimPrefix,
        ),
      );
    },
  } satisfies Partial<SsoStore>;
}

export interface RedisSsoStoreOptions {
  /** An ioredis client or cluster client, created and owned by the host (see `createRedisClient`). */
  client: Redis | Cluster;
  /** Prepended to every key; the same as the host's other Redis stores is fine. Default `portcullis:`. */
  keyPrefix?: string;
  /** Upper bound for one store operation, in milliseconds, on top of the client's own command timeout. Default 1000. */
  operationTimeoutMs?: number;
}

/**
 * Enterprise sign-in's state (`SsoStore`, for `createSso` of `@portcullis/sso`) on Redis. Every key
 * is under one hash tag (`{sso}`, one cluster slot): a domain belongs to at most one connection
 * and is verified for at most one organization, across all of them, so each step that checks
 * and writes is one Lua script (creating or updating a connection, verifying a domain), and so
 * is each read that joins records (a route, a SCIM token's connection: one round trip each).
 * Connections and claims never expire; a used assertion is a key set with SET NX PX, kept until
 * its `expiresAt` on this process's clock and 10 minutes more (instances whose clocks lag still
 * refuse a replay), and listed under its connection so that deleting the connection, or its
 * organization's SSO, drops it.
 * @example
 * ```ts
 * import { createRedisClient, createRedisSsoStore } from "@portcullis/store-redis";
 *
 * const client = createRedisClient(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
 * const sso = createRedisSsoStore({ client, keyPrefix: "acme:auth:" });
 * ```
 */
export function createRedisSsoStore(options: RedisSsoStoreOptions): SsoStore {
  const timeoutMs = options.operationTimeoutMs ?? 1_000;
  const bounded: Bounded = (operation) =>
    withTimeout(operation, timeoutMs, `Redis did not answer within ${timeoutMs} ms`);
  const redis = withCommands<SsoCommands>(options.client, COMMANDS);
  const keys = ssoKeys(options.keyPrefix ?? "portcullis:");
  return {
    ...redisSsoConnections(redis, bounded, keys),
    ...redisSsoLookups(redis, bounded, keys),
    ...redisSsoDomains(redis, bounded, keys),
  };
}
