import {
  applyRotation,
  type Clock,
  isPastLimits,
  REMEMBERED_REFRESH_TOKEN_HASHES,
  type RotationResult,
  type SessionLimits,
  type SessionRecord,
  type SessionRotation,
  type SessionStore,
  systemClock,
} from "@portcullis/core";
import { clonePlain } from "./clone.js";
import { ExpiringMap, type Sweepable } from "./expiring-map.js";
import { OwnerIndex } from "./owner-index.js";

interface StoredSession {
  record: SessionRecord;
  /** Earlier refresh-token hashes, newest (the parent) first. */
  previousHashes: string[];
  /** When the latest rotation happened (the store's clock, ms); absent before the first. */
  rotatedAt?: number;
}

/** Sets the stored session's active organization in place, so its expiry stays as it was. */
function setActiveOrganization(
  sessions: ExpiringMap<StoredSession>,
  id: string,
  organizationId: string | null,
) {
  const stored = sessions.get(id);
  if (!stored) return null;
  stored.record = { ...stored.record, activeOrganizationId: organizationId };
  return clonePlain(stored.record);
}

export type MemorySessionStore = SessionStore & Sweepable;

/**
 * A memory session store's writes as plain functions, for the joint writes of the memory stores
 * (joint-stores.ts), which run them beside the allowlist's with no await between.
 */
export interface MemorySessionSteps {
  create(session: SessionRecord, ttlMs: number): void;
  /** `rotateRefreshToken`'s answer, and the `accessTokenJti` of the record as it was read. */
  rotate(
    sessionId: string,
    presentedHash: string,
    next: SessionRotation,
    ttlMs: number,
    reuseIntervalMs: number,
    limits: SessionLimits | undefined,
  ): { result: RotationResult; readJti?: string };
}

const STEPS = new WeakMap<SessionStore, MemorySessionSteps>();

/** The steps of a store made by `createMemorySessionStore`; undefined for any other store. */
export const memorySessionSteps = (store: SessionStore): MemorySessionSteps | undefined => STEPS.get(store);

/** The store's writes (`MemorySessionSteps`) on its map and index. */
function sessionSteps(
  clock: Clock,
  sessions: ExpiringMap<StoredSession>,
  sessionsByUser: OwnerIndex,
  removeSession: (id: string) => SessionRecord | null,
): MemorySessionSteps {
  return {
    create(session, ttlMs) {
      removeSession(session.id);
      sessions.set(session.id, { record: clonePlain(session), previousHashes: [] }, ttlMs);
      sessionsByUser.add(session.userId, session.id);
    },
    rotate(sessionId, presentedHash, next, ttlMs, reuseIntervalMs, limits) {
      const stored = sessions.get(sessionId);
      if (!stored) return { result: { status: "invalid" } };
      const { record, rotatedAt } = stored;
      const readJti = record.accessTokenJti;
      const now = clock.now();
      const isCurrent = record.refreshTokenHash === presentedHash;
      if (!isCurrent && !stored.previousHashes.includes(presentedHash))
        return { result: { status: "invalid" } };
      if (limits && isPastLimits(record.createdAt, rotatedAt ?? record.createdAt, now, limits)) {
        removeSession(sessionId);
        return { result: { status: "expired", session: clonePlain(record) }, readJti };
      }
      if (!isCurrent) {
        const isParent = stored.previousHashes[0] === presentedHash;
        if (isParent && reuseIntervalMs > 0 && rotatedAt !== undefined && now - rotatedAt <= reuseIntervalMs)
          return { result: { status: "current", session: clonePlain(record) }, readJti };
        removeSession(sessionId);
        return { result: { status: "reused", session: clonePlain(record) }, readJti };
      }
      const updated = applyRotation(record, next);
      const previousHashes = [presentedHash, ...stored.previousHashes].slice(
        0,
        REMEMBERED_REFRESH_TOKEN_HASHES,
      );
      sessions.set(sessionId, { record: updated, previousHashes, rotatedAt: now }, ttlMs);
      return { result: { status: "rotated", session: clonePlain(updated) }, readJti };
    },
  };
}

/**
 * Sessions in memory, with a per-user index so ending a user's sessions never scans everything.
 * Rotation checks the presented hash and stores the new one with no await between, which makes
 * it atomic within the process; the reuse interval and the lifetimes are timed on `clock` (idle
 * since the latest rotation, or the record's `createdAt` when never rotated).
 */
export function createMemorySessionStore(options: { clock?: Clock } = {}): MemorySessionStore {
  const clock = options.clock ?? systemClock;
  const sessions = new ExpiringMap<StoredSession>(clock);
  const sessionsByUser = new OwnerIndex();
  const removeSession = (id: string): SessionRecord | null => {
    const stored = sessions.get(id);
    if (!stored) return null;
    sessions.delete(id);
    sessionsByUser.remove(stored.record.userId, id);
    return stored.record;
  };

  const steps = sessionSteps(clock, sessions, sessionsByUser, removeSession);
  const store: MemorySessionStore = {
    async createSession(session, ttlMs) {
      steps.create(session, ttlMs);
    },
    async getSession(id) {
      const stored = sessions.get(id);
      return stored ? clonePlain(stored.record) : null;
    },
    async listSessions(userId) {
      const result: SessionRecord[] = [];
      for (const id of sessionsByUser.keys(userId)) {
        const stored = sessions.get(id);
        if (stored) result.push(clonePlain(stored.record));
        else sessionsByUser.remove(userId, id);
      }
      return result;
    },
    async rotateRefreshToken(sessionId, presentedHash, next, ttlMs, reuseIntervalMs = 0, limits) {
      return steps.rotate(sessionId, presentedHash, next, ttlMs, reuseIntervalMs, limits).result;
    },
    setActiveOrganization: async (id, organizationId) => setActiveOrganization(sessions, id, organizationId),
    async deleteSession(id) {
      return removeSession(id);
    },
    async deleteUserSessions(userId, exceptSessionId) {
      const deleted: SessionRecord[] = [];
      for (const id of sessionsByUser.keys(userId)) {
        if (id === exceptSessionId) continue;
        const record = removeSession(id);
        if (record) deleted.push(record);
        else sessionsByUser.remove(userId, id);
      }
      return deleted;
    },
    sweep() {
      const removed = sessions.sweep();
      sessionsByUser.prune((id) => sessions.get(id) !== undefined);
      return removed;
    },
    size: () => sessions.size + sessionsByUser.size,
  };
  STEPS.set(store, steps);
  return store;
}
