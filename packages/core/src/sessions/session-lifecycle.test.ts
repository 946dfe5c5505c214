import { createMemoryStores } from "@portcullis/store-memory";
import { createFakeClock } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import type { JointStores } from "../ports/joint-stores.js";
import type { SessionRecord, SessionStore } from "../ports/session-store.js";
import { randomId } from "../tokens/random.js";
import { endSession, endUserSessions, rotateSession, storeNewSession } from "./session-lifecycle.js";

const LIFETIMES = { sessionTtlMs: 3_600_000, accessTokenTtlMs: 900_000 };

/** Memory stores whose session store runs `hooks[method]` once, just before its next call of `method`. */
function setup() {
  const memory = createMemoryStores({ clock: createFakeClock(), sweepIntervalMs: 0 });
  const hooks: Partial<Record<keyof SessionStore, () => Promise<void>>> = {};
  const sessions = new Proxy(memory.sessions, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        const hook = hooks[property as keyof SessionStore];
        delete hooks[property as keyof SessionStore];
        await hook?.();
        return value.apply(object, args);
      };
    },
  });
  const deps = { sessions, allowlist: memory.allowlist };
  const newSession = (userId = "user-1"): SessionRecord => ({
    id: randomId(),
    userId,
    browser: null,
    os: null,
    ip: null,
    createdAt: 0,
    lastActiveAt: 0,
    refreshTokenHash: randomId(),
    accessTokenJti: randomId(),
  });
  const started = async (userId?: string) => {
    const record = newSession(userId);
    await storeNewSession(deps, record, LIFETIMES);
    return record;
  };
  const rotate = (record: SessionRecord, presentedHash = record.refreshTokenHash) => {
    const next = { refreshTokenHash: randomId(), accessTokenJti: randomId(), lastActiveAt: 1 };
    return { next, result: rotateSession(deps, record.id, presentedHash, next, LIFETIMES) };
  };
  const allowed = (jti: string) => memory.allowlist.findAllowedAccessToken(jti);
  return { memory, deps, hooks, newSession, started, rotate, allowed };
}

describe("session lifecycle", () => {
  it("storeNewSession - the session is stored and its jti allowed for its user and session", async () => {
    const { memory, started, allowed } = setup();
    const record = await started();
    expect(await memory.sessions.getSession(record.id)).toEqual(record);
    expect(await allowed(record.accessTokenJti)).toEqual({ userId: record.userId, sessionId: record.id });
  });

  it("storeNewSession - with a joint write in deps.joint, one call writes both; without it, the two calls", async () => {
    const { memory, deps, newSession } = setup();
    const calls: string[] = [];
    const allowlist = {
      ...memory.allowlist,
      allowAccessToken: async (...args: Parameters<typeof memory.allowlist.allowAccessToken>) => {
        calls.push("allow");
        return memory.allowlist.allowAccessToken(...args);
      },
    };
    const sessions = {
      ...deps.sessions,
      createSession: async (...args: Parameters<SessionStore["createSession"]>) => {
        calls.push("create");
        return deps.sessions.createSession(...args);
      },
    };
    const joint: JointStores = {
      async allowAccessTokenWithSession(jti, entry, ttlMs, session, sessionTtlMs) {
        calls.push(`joint ${ttlMs} ${sessionTtlMs}`);
        await memory.allowlist.allowAccessToken(jti, entry, ttlMs);
        await memory.sessions.createSession(session, sessionTtlMs);
      },
    };
    // The core hands the joint write each part's lifetime, and makes no other write.
    const first = newSession("u");
    await storeNewSession({ sessions, allowlist, joint }, first, LIFETIMES);
    expect(calls).toEqual([`joint ${LIFETIMES.accessTokenTtlMs} ${LIFETIMES.sessionTtlMs}`]);
    expect(await memory.sessions.getSession(first.id)).toEqual(first);
    expect(await memory.allowlist.findAllowedAccessToken(first.accessTokenJti)).toEqual({
      userId: "u",
      sessionId: first.id,
    });
    calls.length = 0;
    const second = newSession("u");
    await storeNewSession({ sessions, allowlist, joint: {} }, second, LIFETIMES);
    await storeNewSession({ sessions, allowlist }, { ...second, id: randomId() }, LIFETIMES);
    expect(calls).toEqual(["allow", "create", "allow", "create"]);
    expect(await memory.sessions.getSession(second.id)).toEqual(second);
  });

  it("storeNewSession - a joint write that rejects is DATABASE_FAILURE, and the two calls are not made", async () => {
    const { memory, newSession } = setup();
    const joint: JointStores = {
      allowAccessTokenWithSession: () => Promise.reject(new Error("connection reset")),
    };
    const record = newSession();
    await expect(
      storeNewSession({ sessions: memory.sessions, allowlist: memory.allowlist, joint }, record, LIFETIMES),
    ).rejects.toMatchObject({ code: "DATABASE_FAILURE" });
    expect(await memory.sessions.getSession(record.id)).toBeNull();
    expect(await memory.allowlist.findAllowedAccessToken(record.accessTokenJti)).toBeNull();
  });

  it("rotateSession - rotated: the new jti is allowed and the old one revoked", async () => {
    const { started, rotate, allowed } = setup();
    const record = await started();
    const { next, result } = rotate(record);
    expect((await result).status).toBe("rotated");
    expect(await allowed(next.accessTokenJti)).toEqual({ userId: record.userId, sessionId: record.id });
    expect(await allowed(record.accessTokenJti)).toBeNull();
  });

  it("rotateSession - reused: the session's current jti and the new one are revoked", async () => {
    const { started, rotate, allowed } = setup();
    const record = await started();
    const first = rotate(record);
    await first.result;
    const reuse = rotate(record);
    expect((await reuse.result).status).toBe("reused");
    expect(await allowed(first.next.accessTokenJti)).toBeNull();
    expect(await allowed(reuse.next.accessTokenJti)).toBeNull();
  });

  it("rotateSession - invalid: the new jti is revoked and the session's stays", async () => {
    const { started, rotate, allowed } = setup();
    const record = await started();
    const { next, result } = rotate(record, randomId());
    expect(await result).toEqual({ status: "invalid" });
    expect(await allowed(next.accessTokenJti)).toBeNull();
    expect(await allowed(record.accessTokenJti)).not.toBeNull();
  });

  it("endSession - a rotation between the read and the delete: both jtis end up revoked", async () => {
    const { deps, hooks, started, rotate, allowed } = setup();
    const record = await started();
    let rotatedJti = "";
    hooks.deleteSession = async () => {
      const { next, result } = rotate(record);
      await result;
      rotatedJti = next.accessTokenJti;
    };
    expect((await endSession(deps, record.id))?.accessTokenJti).toBe(rotatedJti);
    expect(await allowed(record.accessTokenJti)).toBeNull();
    expect(await allowed(rotatedJti)).toBeNull();
  });

  it("endUserSessions - a session started between the list and the delete: deleted, its jti revoked too", async () => {
    const { deps, hooks, started, allowed, memory } = setup();
    const kept = await started("user-1");
    const first = await started("user-1");
    let late: SessionRecord | undefined;
    hooks.deleteUserSessions = async () => {
      late = await started("user-1");
    };
    const deleted = await endUserSessions(deps, "user-1", kept.id);
    expect(deleted.map((s) => s.id).sort()).toEqual([first.id, late?.id].sort());
    expect(await allowed(first.accessTokenJti)).toBeNull();
    expect(await allowed(late?.accessTokenJti ?? "")).toBeNull();
    expect(await allowed(kept.accessTokenJti)).not.toBeNull();
    expect(await memory.sessions.listSessions("user-1")).toEqual([kept]);
  });
});
