import { randomUUID } from "node:crypto";
import { once } from "node:events";
import type {
  AccessTokenAllowlist,
  CooldownStore,
  JointStores,
  SessionRecord,
  SessionStore,
} from "@portcullis/core";
import { freePort } from "@portcullis/testing";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisClient } from "./client.js";
import { createRedisStores } from "./redis-stores.js";
import { canStartRedis, startRedisServer, stopRedisServer } from "./test-redis.js";

// A Redis of the test's own, busy for 1.5 s (a long script from another client) while a store
// write is queued behind it: the caller gives up at 500 ms, Redis runs the write at ~1.5 s. A
// session creation, a refresh-token rotation, a throttle hit or a cooldown that runs past its
// deadline must change nothing.
const BUSY_MS = 1_500;
const TTL_MS = 60_000;

describe.skipIf(!canStartRedis)("store-redis: writes that Redis runs after the caller gave up", () => {
  let server: Awaited<ReturnType<typeof startRedisServer>>;
  let client: Redis;
  let blocker: Redis;
  let sessions: SessionStore;
  let cooldowns: CooldownStore;
  let allowlist: AccessTokenAllowlist;
  let joint: JointStores;

  beforeAll(async () => {
    const port = await freePort();
    server = await startRedisServer(port);
    const url = `redis://127.0.0.1:${port}`;
    client = createRedisClient(url, { commandTimeout: 500 });
    blocker = createRedisClient(url, { commandTimeout: 10_000 });
    await Promise.all([once(client, "ready"), once(blocker, "ready")]);
    ({ sessions, cooldowns, allowlist, joint } = createRedisStores({
      client,
      keyPrefix: "late:",
      operationTimeoutMs: 500,
    }));
  });
  afterAll(async () => {
    client?.disconnect();
    blocker?.disconnect();
    if (server) await stopRedisServer(server);
  });

  /** Keeps Redis busy for BUSY_MS (a script loops on TIME), resolving once it is done. */
  const keepRedisBusy = () =>
    blocker.eval(
      `local start = redis.call('TIME')
       local from = start[1] * 1000000 + start[2]
       repeat local now = redis.call('TIME') until now[1] * 1000000 + now[2] - from > tonumber(ARGV[1])`,
      0,
      BUSY_MS * 1000,
    );

  /** Lets the blocking script start before the write under test is sent (on a busy machine too). */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

  const newSession = (userId: string, hash: string): SessionRecord => {
    const id = sessions.createSessionId?.(userId) ?? "";
    return {
      id,
      userId,
      browser: null,
      os: null,
      ip: null,
      createdAt: Date.now(),
      lastActiveAt: Date.now(),
      refreshTokenHash: hash,
      accessTokenJti: randomUUID(),
    };
  };

  it("rotateRefreshToken - run past its deadline, it rotates nothing: the presented token still rotates afterwards", async () => {
    const session = newSession("user-rotate", "hash-0");
    await sessions.createSession(session, TTL_MS);
    const busy = keepRedisBusy();
    await settle();
    const started = Date.now();
    await expect(
      sessions.rotateRefreshToken(
        session.id,
        "hash-0",
        {
          refreshTokenHash: "hash-1",
          accessTokenJti: randomUUID(),
          lastActiveAt: Date.now(),
        },
        TTL_MS,
      ),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(1_000);
    await busy;
    // Had the late rotation landed, "hash-0" would now read as a reused token and revoke the session.
    expect((await sessions.getSession(session.id))?.refreshTokenHash).toBe("hash-0");
    const retried = await sessions.rotateRefreshToken(
      session.id,
      "hash-0",
      {
        refreshTokenHash: "hash-2",
        accessTokenJti: randomUUID(),
        lastActiveAt: Date.now(),
      },
      TTL_MS,
    );
    expect(retried.status).toBe("rotated");
  });

  it("joint.rotateRefreshTokenWithAccessToken - run past its deadline, it changes nothing: no entry, no revocation, no rotation", async () => {
    const session = newSession("user-joint-rotate", "hash-0");
    session.accessTokenJti = allowlist.createAccessTokenId?.(session.id) ?? "";
    const entry = { userId: session.userId, sessionId: session.id };
    await allowlist.allowAccessToken(session.accessTokenJti, entry, TTL_MS);
    await sessions.createSession(session, TTL_MS);
    const rotate = (hash: string) => {
      const next = {
        refreshTokenHash: hash,
        accessTokenJti: allowlist.createAccessTokenId?.(session.id) ?? "",
        lastActiveAt: Date.now(),
      };
      const access = { entry, ttlMs: TTL_MS };
      const done = joint.rotateRefreshTokenWithAccessToken?.(
        session.id,
        "hash-0",
        next,
        TTL_MS,
        undefined,
        undefined,
        access,
      );
      return { next, done };
    };
    const busy = keepRedisBusy();
    await settle();
    const late = rotate("hash-1");
    await expect(late.done).rejects.toThrow();
    await busy;
    expect((await sessions.getSession(session.id))?.refreshTokenHash).toBe("hash-0");
    expect(await allowlist.findAllowedAccessToken(late.next.accessTokenJti)).toBeNull();
    expect(await allowlist.findAllowedAccessToken(session.accessTokenJti)).toEqual(entry);
    const retried = rotate("hash-2");
    expect((await retried.done)?.status).toBe("rotated");
    expect(await allowlist.findAllowedAccessToken(retried.next.accessTokenJti)).toEqual(entry);
    expect(await allowlist.findAllowedAccessToken(session.accessTokenJti)).toBeNull();
  });

  it("joint.rotateRefreshTokenWithAccessToken - a replaced jti on another slot (not minted by the allowlist) is revoked too", async () => {
    const session = newSession("user-joint-foreign", "hash-0");
    const entry = { userId: session.userId, sessionId: session.id };
    await allowlist.allowAccessToken(session.accessTokenJti, entry, TTL_MS);
    await sessions.createSession(session, TTL_MS);
    const next = {
      refreshTokenHash: "hash-1",
      accessTokenJti: allowlist.createAccessTokenId?.(session.id) ?? "",
      lastActiveAt: Date.now(),
    };
    const result = await joint.rotateRefreshTokenWithAccessToken?.(
      session.id,
      "hash-0",
      next,
      TTL_MS,
      undefined,
      undefined,
      { entry, ttlMs: TTL_MS },
    );
    expect(result?.status).toBe("rotated");
    expect(await allowlist.findAllowedAccessToken(session.accessTokenJti)).toBeNull();
    expect(await allowlist.findAllowedAccessToken(next.accessTokenJti)).toEqual(entry);
    // A new jti must carry the session's tag: one from elsewhere is refused before anything is sent.
    const foreign = { ...next, refreshTokenHash: "hash-2", accessTokenJti: randomUUID() };
    await expect(
      joint.rotateRefreshTokenWithAccessToken?.(session.id, "hash-1", foreign, TTL_MS, undefined, undefined, {
        entry,
        ttlMs: TTL_MS,
      }),
    ).rejects.toThrow(/createAccessTokenId/);
    expect((await sessions.getSession(session.id))?.refreshTokenHash).toBe("hash-1");
  });

  it("createSession - run past its deadline, it writes nothing: no session the client never received", async () => {
    await sessions.createSession(newSession("user-create", "hash-a"), TTL_MS);
    const late = newSession("user-create", "hash-b");
    const busy = keepRedisBusy();
    // Sent before the busy script started, the write could run at once and be written, with its
    // answer read after the client's 500 ms had passed (once in CI, the event loop held up).
    await settle();
    await expect(sessions.createSession(late, TTL_MS)).rejects.toThrow();
    await busy;
    expect(await sessions.getSession(late.id)).toBeNull();
    expect((await sessions.listSessions("user-create")).map((s) => s.refreshTokenHash)).toEqual(["hash-a"]);
  });

  it("joint.allowAccessTokenWithSession - run past its deadline, it writes neither the session nor its entry", async () => {
    const late = newSession("user-joint-create", "hash-j");
    late.accessTokenJti = allowlist.createAccessTokenId?.(late.id) ?? "";
    const entry = { userId: late.userId, sessionId: late.id };
    const write = () => joint.allowAccessTokenWithSession?.(late.accessTokenJti, entry, TTL_MS, late, TTL_MS);
    const busy = keepRedisBusy();
    await settle();
    await expect(write()).rejects.toThrow();
    await busy;
    expect(await sessions.getSession(late.id)).toBeNull();
    expect(await allowlist.findAllowedAccessToken(late.accessTokenJti)).toBeNull();
    await write();
    expect(await sessions.getSession(late.id)).toEqual(late);
    expect(await allowlist.findAllowedAccessToken(late.accessTokenJti)).toEqual(entry);
  });

  it("createSession - one that runs in time is written as before", async () => {
    const session = newSession("user-in-time", "hash-x");
    await sessions.createSession(session, TTL_MS);
    expect((await sessions.getSession(session.id))?.refreshTokenHash).toBe("hash-x");
  });

  it("hit - run past its deadline, it counts nothing: the next hit counts as if the late one never came", async () => {
    const key = `hit-${randomUUID()}`;
    expect((await cooldowns.hit(key, TTL_MS)).count).toBe(1);
    const busy = keepRedisBusy();
    await settle();
    const started = Date.now();
    await expect(cooldowns.hit(key, TTL_MS)).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(1_000);
    await busy;
    expect((await cooldowns.hit(key, TTL_MS)).count).toBe(2);
  });

  it("acquire - run past its deadline, it takes nothing: the cooldown is still free afterwards", async () => {
    const key = `lock-${randomUUID()}`;
    const busy = keepRedisBusy();
    await settle();
    await expect(cooldowns.acquire(key, TTL_MS)).rejects.toThrow();
    await busy;
    expect(await cooldowns.remainingMs(key)).toBe(0);
    expect((await cooldowns.acquire(key, TTL_MS)).acquired).toBe(true);
  });
});
