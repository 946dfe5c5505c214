import type {
  OAuthClientRecord,
  OAuthConsentRecord,
  OAuthDeviceRecord,
  OAuthGrantRecord,
} from "@portcullis/core";

/**
 * How the OAuth store keeps its records (oauth-store.ts, oauth-grants.ts, oauth-devices.ts): a
 * hash per record whose fields are the port's, each value JSON (so strings, numbers, null and
 * arrays come back as they went, and a script compares a field with a JSON value as a string),
 * plus internal fields, starting with `_`, that name the index keys the record is listed in, so
 * a script finds them without decoding anything.
 */

/** The port's fields of a client, in the order they are written. */
export const CLIENT_FIELDS = [
  "clientId",
  "name",
  "secretHash",
  "redirectUris",
  "grantTypes",
  "scopes",
  "dynamic",
  "createdAt",
] as const satisfies readonly (keyof OAuthClientRecord)[];

/** The port's fields of a grant. */
export const GRANT_FIELDS = [
  "grantId",
  "clientId",
  "userId",
  "scopes",
  "resources",
  "authTime",
  "refreshHash",
  "createdAt",
  "expiresAt",
  "revokedAt",
] as const satisfies readonly (keyof OAuthGrantRecord)[];

/** The port's fields of a consent. */
export const CONSENT_FIELDS = [
  "userId",
  "clientId",
  "scopes",
  "createdAt",
  "updatedAt",
] as const satisfies readonly (keyof OAuthConsentRecord)[];

/** The port's fields of a device authorization. */
export const DEVICE_FIELDS = [
  "deviceCodeHash",
  "userCodeHash",
  "clientId",
  "scopes",
  "resources",
  "status",
  "userId",
  "authTime",
  "intervalSeconds",
  "lastPolledAt",
  "expiresAt",
] as const satisfies readonly (keyof OAuthDeviceRecord)[];

/** `record`'s fields named in `names` as HSET arguments (field, JSON value, …); an absent one is left out. */
export function toFields<T extends object>(record: T, names: readonly (keyof T & string)[]): string[] {
  return names.flatMap((name) => (record[name] === undefined ? [] : [name, JSON.stringify(record[name])]));
}

/** An HGETALL reply as a record of the fields in `names` (fresh values), or null when one is missing (no such record). */
export function fromHash<T>(hash: Record<string, string>, names: readonly (keyof T & string)[]): T | null {
  const record: Record<string, unknown> = {};
  for (const name of names) {
    const value = hash[name];
    if (value === undefined) return null;
    record[name] = JSON.parse(value);
  }
  return record as T;
}

/** An HGETALL reply as a flat list (from a script) as a hash. */
export function hashOf(flat: string[]): Record<string, string> {
  const hash: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) hash[flat[i] as string] = flat[i + 1] as string;
  return hash;
}

/** A lifetime in whole milliseconds, at least 1 (PX and PEXPIRE take a positive integer). */
export const ttlOf = (ms: number) => String(Math.max(1, Math.ceil(ms)));

/**
 * Every key of the OAuth store, under one hash tag (`{oauth}`): one cluster slot holds the whole
 * provider state, since a client's deletion reaches its users' indexes and a user's revocation
 * reaches every client's grants; per-client or per-user tags would split what one script must
 * change at once.
 */
export function oauthKeys(prefix: string) {
  const space = `${prefix}{oauth}:`;
  return {
    /** A client (hash), and the set of every client id (a sorted set, all scores 0: ordered by id). */
    client: (clientId: string) => `${space}c:${clientId}`,
    clientPrefix: `${space}c:`,
    clients: `${space}clients`,
    /** A grant (hash), with a TTL at its end. */
    grant: (grantId: string) => `${space}g:${grantId}`,
    grantPrefix: `${space}g:`,
    /** The grants of a user and of a client (sorted sets of grant ids by `expiresAt`). */
    userGrants: (userId: string) => `${space}ug:${userId}`,
    clientGrants: (clientId: string) => `${space}cg:${clientId}`,
    /** A consent (hash), and the sets of consent keys of a user and of a client. */
    consent: (userId: string, clientId: string) => `${space}k:${JSON.stringify([userId, clientId])}`,
    userConsents: (userId: string) => `${space}uk:${userId}`,
    clientConsents: (clientId: string) => `${space}ck:${clientId}`,
    /** A device authorization (hash) by device code hash; its user code (string: the device code hash). */
    device: (deviceCodeHash: string) => `${space}d:${deviceCodeHash}`,
    devicePrefix: `${space}d:`,
    userCode: (userCodeHash: string) => `${space}uc:${userCodeHash}`,
    /** The device authorizations of a client (a sorted set of device code hashes by `expiresAt`). */
    clientDevices: (clientId: string) => `${space}cd:${clientId}`,
  };
}

/** The OAuth store's keys under one prefix (`oauthKeys`). */
export type OAuthKeys = ReturnType<typeof oauthKeys>;

/**
 * `add_to_index(index, member, score, prefix, ttl)`: lists `member` in the sorted set `index` by
 * `score` (its record's `expiresAt`), drops those of its 10 first members (the earliest to end,
 * the likeliest to be gone) whose record `prefix .. member` is gone, and keeps the index at least
 * as long as `ttl` ms: an index never outgrows its live members by much, and goes with the last
 * of them.
 */
export const ADD_TO_INDEX = `
local function add_to_index(index, member, score, prefix, ttl)
  redis.call('ZADD', index, score, member)
  for _, first in ipairs(redis.call('ZRANGE', index, 0, 9)) do
    if redis.call('EXISTS', prefix .. first) == 0 then redis.call('ZREM', index, first) end
  end
  if redis.call('PTTL', index) < tonumber(ttl) then redis.call('PEXPIRE', index, ttl) end
end`;
