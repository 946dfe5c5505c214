import { createHash, randomBytes } from "node:crypto";
import {
  type AccessTokenAllowlist,
  type ActivityStore,
  type AllowlistEntry,
  type ApiKeyStore,
  type AuditLogStore,
  type CooldownStore,
  createReadBatch,
  type JointStores,
  type OAuthStore,
  type PasskeyStore,
  type SessionRecord,
  type SessionStore,
  type SigningKeyStore,
  type SingleUseTokenStore,
  type SsoStore,
  type WebhookStore,
  withTimeout,
} from "@portcullis/core";
import type { Cluster, Redis } from "ioredis";
import { globEscape, redisActivityStore } from "./activity-store.js";
import { redisApiKeyStore } from "./api-key-store.js";
import { redisAuditLogStore } from "./audit-log-store.js";
import {
  entryJson,
  redisJointStores,
  rotationArgs,
  rotationResult,
  storedSessionJson,
} from "./joint-stores.js";
import { redisOAuthStore } from "./oauth-store.js";
import { redisPasskeyStore } from "./passkey-store.js";
import {
  ACQUIRE_COOLDOWN,
  CLAIM_TOKEN,
  CREATE_SESSION,
  CREATE_SESSION_WITH_ACCESS_TOKEN,
  DELETE_SESSION,
  DELETE_USER_SESSIONS,
  HIT_COUNTER,
  INDEX_TOKEN,
  LIST_SESSIONS,
  REFUND_HIT,
  REMAINING_COOLDOWN,
  ROTATE_REFRESH_TOKEN,
  ROTATE_WITH_ACCESS_TOKEN,
  SET_ACTIVE_ORGANIZATION,
  withCommands,
} from "./scripts.js";
import { redisSigningKeyStore } from "./signing-key-store.js";
import { redisSingleUseTokenStore } from "./single-use-token-store.js";
import { createRedisSsoStore } from "./sso-store.js";
import { redisWebhookStore } from "./webhook-store.js";

export interface RedisStoresOptions {
  /** An ioredis client or cluster client, created and owned by the host (see `createRedisClient`). */
  client: Redis | Cluster;
  /** Prepended to every key; give each app (and each test) its own. Default `portcullis:`. */
  keyPrefix?: string;
  /**
   * Upper bound for one store operation, in milliseconds, on top of the client's own command
   * timeout: a slow or unreachable Redis fails the request instead of hanging it. Default 1000.
   * Creating a session, rotating a refresh token, counting a throttle hit and taking a cooldown
   * carry a deadline (the shorter of this and the client's `commandTimeout`, less a margin): if
   * Redis only runs them after it (a hang), they write nothing, so a request that answered 500
   * leaves no session, rotation, counted attempt or lock behind.
   */
  operationTimeoutMs?: number;
  /** The most activity entries kept per user (the newest); older ones are dropped on write. Default 1000. */
  activityCapPerUser?: number;
}

export interface RedisStores {
  cooldowns: CooldownStore;
  sessions: SessionStore;
  allowlist: AccessTokenAllowlist;
  singleUseTokens: SingleUseTokenStore;
  /** Each user's activity: a sorted set per user, capped and expiring a retention after its latest write. */
  activity: ActivityStore;
  /** Passkeys (for `webauthn`): a hash per passkey and a set per user, under one hash tag; they never expire. */
  passkeys: PasskeyStore;
  /** API keys (for `apiKeys`): a hash per key by its lookup id (one HGETALL a request), under one hash tag. */
  apiKeys: ApiKeyStore;
  /** The audit log (for `auditLog`): a JSON string per entry and sorted sets by seq, under one hash tag. */
  auditLog: AuditLogStore;
  webhooks: WebhookStore;
  /** The OAuth / OpenID provider's signing keys: one hash of records and a sorted set by creation, under one hash tag. */
  signingKeys: SigningKeyStore;
  /**
   * The OAuth / OpenID provider's clients, grants, consents and device authorizations: a hash per
   * record and the indexes that list them, under one hash tag; grants and device authorizations
   * expire at their end.
   */
  oauth: OAuthStore;
  /**
   * Enterprise sign-in's connections, claimed and verified domains, and used assertions (for
   * `createSso` of `@portcullis/sso`): under one hash tag, `{sso}`, so that a domain's checks and
   * writes are one script; a used assertion expires with its key.
   */
  sso: SsoStore;
  /**
   * `sessions` and `allowlist` written together (`JointStores`): a sign-in stores its session and
   * access token's entry, and a refresh rotates the session and its entries, each in one script.
   * It names those two stores: a host that wraps or replaces either may keep it (the core then
   * makes the separate calls).
   */
  joint: JointStores;
}

/** Length of the user tag that session ids and access-token ids start with. */
const TAG_LENGTH = 11;
/** How often the offset between this process's clock and Redis's is measured again. */
const CLOCK_REFRESH_MS = 60_000;
/** Longest margin between a guarded write's deadline and the moment the caller gives up (the reply's way back). */
const DEADLINE_MARGIN_MS = 100;

interface ScriptedClient {
  portcullisAcquire(key: string, ttlMs: number, deadline: number): Promise<[number, number]>;
  portcullisHit(key: string, windowMs: number, deadline: number): Promise<[number, number]>;
  portcullisRefundHit(key: string): Promise<number>;
  portcullisRemaining(key: string): Promise<number>;
  portcullisCreateSession(...args: (string | number)[]): Promise<number>;
  portcullisCreateSessionWithAccessToken(...args: (string | number)[]): Promise<number>;
  portcullisRotate(...args: (string | number)[]): Promise<[string, string?]>;
  portcullisRotateWithAccessToken(...args: (string | number)[]): Promise<[string, string?, string?]>;
  portcullisDeleteSession(...args: string[]): Promise<string | null>;
  portcullisSetActiveOrganization(session: string, organization: string): Promise<string | null>;
  portcullisDeleteUserSessions(...args: string[]): Promise<string[]>;
  portcullisListSessions(...args: string[]): Promise<string[]>;
  portcullisIndexToken(index: string, key: string, ttlMs: number): Promise<number>;
  portcullisClaimToken(key: string, claim: string, leaseMs: number): Promise<string | null>;
}

const SCRIPTS: Record<keyof ScriptedClient, { numberOfKeys: number; lua: string }> = {
  portcullisAcquire: { numberOfKeys: 1, lua: ACQUIRE_COOLDOWN },
  portcullisHit: { numberOfKeys: 1, lua: HIT_COUNTER },
  portcullisRefundHit: { numberOfKeys: 1, lua: REFUND_HIT },
  portcullisRemaining: { numberOfKeys: 1, lua: REMAINING_COOLDOWN },
  portcullisCreateSession: { numberOfKeys: 2, lua: CREATE_SESSION },
  portcullisCreateSessionWithAccessToken: { numberOfKeys: 3, lua: CREATE_SESSION_WITH_ACCESS_TOKEN },
  portcullisRotate: { numberOfKeys: 2, lua: ROTATE_REFRESH_TOKEN },
  portcullisRotateWithAccessToken: { numberOfKeys: 3, lua: ROTATE_WITH_ACCESS_TOKEN },
  portcullisDeleteSession: { numberOfKeys: 2, lua: DELETE_SESSION },
  portcullisSetActiveOrganization: { numberOfKeys: 1, lua: SET_ACTIVE_ORGANIZATION },
  portcullisDeleteUserSessions: { numberOfKeys: 1, lua: DELETE_USER_SESSIONS },
  portcullisListSessions: { numberOfKeys: 1, lua: LIST_SESSIONS },
  portcullisIndexToken: { numberOfKeys: 1, lua: INDEX_TOKEN },
  portcullisClaimToken: { numberOfKeys: 2, lua: CLAIM_TOKEN },
};

/** A user's hash tag: the same for every key of that user, so their keys share one cluster slot. */
const userTag = (userId: string) =>
  createHash("sha256").update(userId).digest("base64url").slice(0, TAG_LENGTH);

/**
 * CooldownStore, SessionStore, AccessTokenAllowlist, SingleUseTokenStore and ActivityStore on Redis, for apps
 * that run several instances. Atomic operations are single commands (SET NX PX, GETDEL) or Lua
 * scripts loaded once; every key has a TTL; ending a user's sessions reads a per-user index set
 * (never KEYS). Session ids start with the user's tag, so one user's session keys share a cluster
 * slot; access-token ids start with their session's tag.
 * @example
 * ```ts
 * import { once } from "node:events";
 * import { createAuth, type UserStore } from "@portcullis/core";
 * import { createRedisClient, createRedisStores } from "@portcullis/store-redis";
 *
 * declare const users: UserStore; // your users, e.g. createSqlStores({ db }).users
 *
 * const client = createRedisClient(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
 * await once(client, "ready");
 * const auth = createAuth({
 *   secret: process.env.AUTH_SECRET ?? "",
 *   stores: { ...createRedisStores({ client, keyPrefix: "acme:auth:" }), users },
 *   appOrigin: "https://acme.test",
 *   email: { enabled: false },
 * });
 * ```
 */
export function createRedisStores(options: RedisStoresOptions): RedisStores {
  const timeoutMs = options.operationTimeoutMs ?? 1_000;
  const client = options.client;
  const redis: ScriptedRedis = withCommands<ScriptedClient>(client, SCRIPTS);

  /** Rejects when Redis does not answer in time, whatever the client's settings are. */
  const bounded = <T>(operation: Promise<T>): Promise<T> =>
    withTimeout(operation, timeoutMs, `Redis did not answer within ${timeoutMs} ms`);
  const prefix = options.keyPrefix ?? "portcullis:";
  const keys = redisKeys(prefix);
  const activityCap = Math.max(1, Math.floor(options.activityCapPerUser ?? 1000));
  const deadline = redisDeadline(redis, bounded, Math.min(timeoutMs, commandTimeoutOf(client) ?? timeoutMs));
  const sessions = redisSessionStore(redis, bounded, keys, deadline);
  const allowlist = redisAccessTokenAllowlist(redis, bounded, keys);
  return {
    cooldowns: redisCooldownStore(redis, bounded, keys, deadline),
    sessions,
    allowlist,
    joint: redisJointStores(redis, bounded, keys, deadline, { sessions, allowlist }),
    singleUseTokens: redisSingleUseTokenStore(redis, bounded, keys),
    activity: redisActivityStore(client, bounded, keys, activityCap),
    passkeys: redisPasskeyStore(client, bounded, prefix),
    apiKeys: redisApiKeyStore(client, bounded, prefix),
    auditLog: redisAuditLogStore(client, bounded, prefix, deadline),
    webhooks: redisWebhookStore(client, bounded, prefix, deadline),
    signingKeys: redisSigningKeyStore(client, bounded, prefix),
    oauth: redisOAuthStore(client, bounded, prefix),
    sso: createRedisSsoStore({ client, keyPrefix: prefix, operationTimeoutMs: timeoutMs }),
  };
}

/** The client's own `commandTimeout` (ioredis rejects a command after it), if it has one. */
function commandTimeoutOf(client: Redis | Cluster): number | undefined {
  const options = client.options as { commandTimeout?: number; redisOptions?: { commandTimeout?: number } };
  return options.commandTimeout ?? options.redisOptions?.commandTimeout;
}

/** Resolves to the deadline, on Redis's clock (ms), for a write starting now. */
export type Deadline = () => Promise<number>;

/**
 * Deadlines on Redis's clock, so a clock difference between hosts does not move them: the offset
 * is measured with TIME (to within half a round trip) on first use and again every minute.
 */
function redisDeadline(redis: ScriptedRedis, bounded: Bounded, budgetMs: number): Deadline {
  const guardedMs = budgetMs - Math.min(DEADLINE_MARGIN_MS, budgetMs / 4);
  let offsetMs: number | undefined;
  let measuredAt = 0;
  let measuring: Promise<void> | undefined;
  const measure = () => {
    measuring ??= (async () => {
      const sent = Date.now();
      const [seconds, micros] = await bounded(redis.time());
      const received = Date.now();
      offsetMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - (sent + received) / 2;
      measuredAt = received;
    })().finally(() => {
      measuring = undefined;
    });
    return measuring;
  };
  return async () => {
    const started = Date.now();
    if (offsetMs === undefined) await measure();
    else if (started - measuredAt > CLOCK_REFRESH_MS) measure().catch(() => {});
    return Math.floor(started + (offsetMs ?? 0) + guardedMs);
  };
}

export type ScriptedRedis = ScriptedClient & (Redis | Cluster);
/** Rejects when Redis does not answer in time. */
export type Bounded = <T>(operation: Promise<T>) => Promise<T>;
export type RedisKeys = ReturnType<typeof redisKeys>;

const tagOf = (id: string) => id.slice(0, TAG_LENGTH);
const mintId = (tag: string) => `${tag}${randomBytes(16).toString("base64url")}`;

/** Every key the stores use, under `prefix`. */
function redisKeys(prefix: string) {
  const cooldownKey = (key: string) => `${prefix}cd:{${key}}`;
  const counterKey = (key: string) => `${prefix}ct:{${key}}`;
  const userSpace = (tag: string) => `${prefix}{${tag}}:`;
  const sessionKey = (id: string) => `${userSpace(tagOf(id))}s:${id}`;
  /** Where the allowlist entries of a tag's `jti`s are (the scripts add the `jti`). */
  const allowlistSpace = (tag: string) => `${userSpace(tag)}at:`;
  const allowlistKey = (jti: string) => `${allowlistSpace(tagOf(jti))}${jti}`;
  const sessionIndex = (userId: string) => `${userSpace(userTag(userId))}sessions`;
  /** The index of the session's user, found from the id alone (ids start with the user's tag). */
  const indexOfSession = (sessionId: string) => `${userSpace(tagOf(sessionId))}sessions`;
  const tokenKey = (purpose: string, hash: string) => `${prefix}tok:{${purpose}:${hash}}`;
  const tokenIndex = (userId: string, purpose: string) => `${userSpace(userTag(userId))}tokens:${purpose}`;
  /** A token's claim (`claimToken`), in the token's slot. */
  const tokenClaim = (purpose: string, hash: string) => `${tokenKey(purpose, hash)}:claim`;
  /** A user's activity (a sorted set), and the SCAN pattern that finds every user's. */
  const activityKey = (userId: string) => `${userSpace(userTag(userId))}activity`;
  const activityPattern = `${globEscape(prefix)}{*}:activity`;
  return {
    tagOf,
    userTag,
    activityKey,
    activityPattern,
    cooldownKey,
    counterKey,
    userSpace,
    sessionKey,
    allowlistSpace,
    allowlistKey,
    sessionIndex,
    indexOfSession,
    tokenKey,
    tokenIndex,
    tokenClaim,
  };
}

/**
 * Cooldowns as keys with a TTL (SET NX PX), counters as Lua-scripted INCR with an expiry. Taking a
 * cooldown and counting a hit carry a deadline: run later (Redis hung, then resumed after the
 * request answered 500), they change nothing, so a hang never counts against anyone.
 */
function redisCooldownStore(
  redis: ScriptedRedis,
  bounded: Bounded,
  { cooldownKey, counterKey }: RedisKeys,
  deadline: Deadline,
): CooldownStore {
  return {
    async acquire(key, ttlMs) {
      const by = await deadline();
      const [acquired, remainingMs] = await bounded(
        redis.portcullisAcquire(cooldownKey(key), Math.max(1, Math.ceil(ttlMs)), by),
      );
      if (acquired === -1) throw new Error("Redis ran the cooldown past its deadline: nothing was written");
      return { acquired: acquired === 1, remainingMs };
    },
    async remainingMs(key) {
      return Math.max(0, await bounded(redis.portcullisRemaining(cooldownKey(key))));
    },
    async release(key) {
      await bounded(redis.del(cooldownKey(key)));
    },
    async hit(key, windowMs) {
      const by = await deadline();
      const [count, remainingMs] = await bounded(
        redis.portcullisHit(counterKey(key), Math.max(1, Math.ceil(windowMs)), by),
      );
      if (count === -1) throw new Error("Redis ran the hit past its deadline: nothing was counted");
      return { count, remainingMs };
    },
    async refundHit(key) {
      await bounded(redis.portcullisRefundHit(counterKey(key)));
    },
    async clearHits(key) {
      await bounded(redis.del(counterKey(key)));
    },
    async clearKeys(counterKeys, cooldownKeys) {
      // One DEL of every key; on a Cluster each key has a slot of its own, so one DEL each, sent together.
      const keys = [...counterKeys.map(counterKey), ...cooldownKeys.map(cooldownKey)];
      if (keys.length === 0) return;
      if ("isCluster" in redis && redis.isCluster)
        await bounded(Promise.all(keys.map((key) => redis.del(key))));
      else await bounded(redis.del(...keys));
    },
  };
}

const parseSession = (raw: string): SessionRecord => (JSON.parse(raw) as { record: SessionRecord }).record;

/** Sets the session's active organization in one script that keeps its TTL; null when it is gone. */
async function setActiveOrganization(
  redis: ScriptedRedis,
  bounded: Bounded,
  sessionKey: string,
  organizationId: string | null,
): Promise<SessionRecord | null> {
  const json = await bounded(
    redis.portcullisSetActiveOrganization(sessionKey, JSON.stringify({ id: organizationId })),
  );
  return json ? (JSON.parse(json) as SessionRecord) : null;
}

/**
 * Sessions under the user's slot tag: every write is one Lua script. Creating and rotating carry
 * a deadline: run later, they change nothing (a session the client never received, or a rotation
 * whose new token it never received, would outlive the 500).
 */
function redisSessionStore(
  redis: ScriptedRedis,
  bounded: Bounded,
  { userSpace, sessionKey, sessionIndex, indexOfSession }: RedisKeys,
  deadline: Deadline,
): SessionStore {
  return {
    createSessionId: (userId) => mintId(userTag(userId)),
    async createSession(session, ttlMs) {
      if (tagOf(session.id) !== userTag(session.userId))
        throw new Error("Redis sessions need ids from createSessionId (they carry the user's slot tag)");
      const by = await deadline();
      const created = await bounded(
        redis.portcullisCreateSession(
          sessionKey(session.id),
          sessionIndex(session.userId),
          storedSessionJson(session),
          session.id,
          Math.ceil(ttlMs),
          by,
        ),
      );
      if (created !== 1) throw new Error("Redis ran createSession past its deadline: nothing was written");
    },
    async getSession(id) {
      const raw = await bounded(redis.get(sessionKey(id)));
      return raw ? parseSession(raw) : null;
    },
    async listSessions(userId) {
      const raws = await bounded(
        redis.portcullisListSessions(sessionIndex(userId), `${userSpace(userTag(userId))}s:`),
      );
      return raws.map(parseSession);
    },
    async rotateRefreshToken(sessionId, presentedHash, next, ttlMs, intervalMs, limits) {
      const by = await deadline();
      const [status, json] = await bounded(
        redis.portcullisRotate(
          sessionKey(sessionId),
          indexOfSession(sessionId),
          ...rotationArgs(presentedHash, next, ttlMs, by, intervalMs, limits),
        ),
      );
      return rotationResult(status, json);
    },
    setActiveOrganization: (id, organizationId) =>
      setActiveOrganization(redis, bounded, sessionKey(id), organizationId),
    async deleteSession(id) {
      const json = await bounded(redis.portcullisDeleteSession(sessionKey(id), indexOfSession(id)));
      return json ? (JSON.parse(json) as SessionRecord) : null;
    },
    async deleteUserSessions(userId, exceptSessionId) {
      const deleted = await bounded(
        redis.portcullisDeleteUserSessions(
          sessionIndex(userId),
          `${userSpace(userTag(userId))}s:`,
          exceptSessionId ?? "",
        ),
      );
      return deleted.map((json) => JSON.parse(json) as SessionRecord);
    },
  };
}

/**
 * The allowlist: one key per `jti` (a single GET per authenticated request), in the slot of the
 * tag the `jti` starts with (its session's, when minted by `createAccessTokenId`). On a single
 * Redis (not a Cluster, where the keys are in different slots) the reads of requests that
 * arrive in one turn of the event loop go as one MGET; each still starts after its request
 * arrived, so a token revoked before it is refused.
 */
function redisAccessTokenAllowlist(
  redis: ScriptedRedis,
  bounded: Bounded,
  { allowlistKey }: RedisKeys,
): AccessTokenAllowlist {
  const cluster = "isCluster" in redis && redis.isCluster;
  const read: (key: string) => Promise<string | null | undefined> = cluster
    ? (key) => redis.get(key)
    : createReadBatch<string, string | null>(async (keys) => {
        const values = keys.length === 1 ? [await redis.get(keys[0] as string)] : await redis.mget(...keys);
        return new Map(keys.map((key, i) => [key, values[i] ?? null]));
      });
  return {
    createAccessTokenId: (sessionId) => mintId(tagOf(sessionId)),
    async allowAccessToken(jti, entry, ttlMs) {
      await bounded(redis.set(allowlistKey(jti), entryJson(entry), "PX", Math.max(1, Math.ceil(ttlMs))));
    },
    async findAllowedAccessToken(jti) {
      const raw = await bounded(read(allowlistKey(jti)));
      return raw ? (JSON.parse(raw) as AllowlistEntry) : null;
    },
    async revokeAccessTokens(jtis) {
      // One DEL per slot tag: a multi-key command must stay on one cluster slot.
      const bySlot = new Map<string, string[]>();
      for (const jti of jtis) {
        const slotKeys = bySlot.get(tagOf(jti)) ?? [];
        slotKeys.push(allowlistKey(jti));
        bySlot.set(tagOf(jti), slotKeys);
      }
      await Promise.all([...bySlot.values()].map((slotKeys) => bounded(redis.del(...slotKeys))));
    },
  };
}
