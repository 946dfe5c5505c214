import {
  type AllowlistEntry,
  applyRotation,
  type Clock,
  type SessionRecord,
  type SessionStore,
  systemClock,
  type TokenRecord,
} from "@portcullis/core";
import { clonePlain } from "./clone.js";
import { ExpiringMap, type Sweepable } from "./expiring-map.js";
import { OwnerIndex } from "./owner-index.js";

/** How many earlier refresh-token hashes a session remembers for reuse detection. */
const REMEMBERED_HASHES = 32;

interface StoredSession {
  record: SessionRecord;
  previousHashes: string[];
}

export type MemorySessionStore = SessionStore & Sweepable;

const tokenKey = (purpose: string, hash: string) => `${purpose}\u0000${hash}`;
const tokenOwner = (purpose: string, userId: string) => `${purpose}\u0000${userId}`;

/**
 * Sessions, the access-token allowlist and single-use tokens in memory, with per-user indexes
 * so revoking a user's sessions never scans everything. Every check-and-set completes before any
 * await, which makes rotation and consumption atomic within the process.
 */
export function createMemorySessionStore(options: { clock?: Clock } = {}): MemorySessionStore {
  const clock = options.clock ?? systemClock;
  const sessions = new ExpiringMap<StoredSession>(clock);
  const allowlist = new ExpiringMap<AllowlistEntry>(clock);
  const tokens = new ExpiringMap<TokenRecord>(clock);
  const claims = new ExpiringMap<true>(clock);
  const sessionsByUser = new OwnerIndex();
  const tokensByUser = new OwnerIndex();

  return {
    ...sessionMethods(sessions, allowlist, sessionsByUser),
    async findAllowedAccessToken(jti) {
      const entry = allowlist.get(jti);
      return entry ? { ...entry } : null;
    },
    ...tokenMethods(tokens, claims, tokensByUser),
    sweep() {
      const removed = sessions.sweep() + allowlist.sweep() + tokens.sweep() + claims.sweep();
      sessionsByUser.prune((id) => sessions.get(id) !== undefined);
      tokensByUser.prune((key) => tokens.get(key) !== undefined);
      return removed;
    },
    size: () =>
      sessions.size + allowlist.size + tokens.size + claims.size + sessionsByUser.size + tokensByUser.size,
  };
}

/**
 * Sessions, indexed by user; writing or deleting one also puts its access token on or takes it off
 * the allowlist. Rotation checks the presented hash and stores the new one with no await between.
 */
function sessionMethods(
  sessions: ExpiringMap<StoredSession>,
  allowlist: ExpiringMap<AllowlistEntry>,
  sessionsByUser: OwnerIndex,
): Omit<SessionStore, "findAllowedAccessToken" | "saveToken" | "consumeToken" | "deleteUserTokens"> {
  const removeSession = (id: string): SessionRecord | null => {
    const stored = sessions.get(id);
    if (!stored) return null;
    sessions.delete(id);
    allowlist.delete(stored.record.accessTokenJti);
    sessionsByUser.remove(stored.record.userId, id);
    return stored.record;
  };

  return {
    async createSession(session, ttls) {
      removeSession(session.id);
      sessions.set(session.id, { record: clonePlain(session), previousHashes: [] }, ttls.sessionTtlMs);
      sessionsByUser.add(session.userId, session.id);
      allowlist.set(
        session.accessTokenJti,
        { userId: session.userId, sessionId: session.id },
        ttls.accessTokenTtlMs,
      );
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
    async rotateRefreshToken(sessionId, presentedHash, next, ttls) {
      const stored = sessions.get(sessionId);
      if (!stored) return { status: "invalid" };
      const { record } = stored;
      if (record.refreshTokenHash !== presentedHash) {
        if (!stored.previousHashes.includes(presentedHash)) return { status: "invalid" };
        removeSession(sessionId);
        return { status: "reused", session: clonePlain(record) };
      }
      allowlist.delete(record.accessTokenJti);
      const updated = applyRotation(record, next);
      const previousHashes = [presentedHash, ...stored.previousHashes].slice(0, REMEMBERED_HASHES);
      sessions.set(sessionId, { record: updated, previousHashes }, ttls.sessionTtlMs);
      allowlist.set(next.accessTokenJti, { userId: record.userId, sessionId }, ttls.accessTokenTtlMs);
      return { status: "rotated", session: clonePlain(updated) };
    },
    async deleteSession(id) {
      return removeSession(id);
    },
    async deleteUserSessions(userId, exceptSessionId) {
      let deleted = 0;
      for (const id of sessionsByUser.keys(userId)) {
        if (id === exceptSessionId) continue;
        if (removeSession(id)) deleted += 1;
        else sessionsByUser.remove(userId, id);
      }
      return deleted;
    },
  };
}

/** Single-use tokens, keyed by purpose and hash and indexed by purpose and user; claims beside them. */
function tokenMethods(
  tokens: ExpiringMap<TokenRecord>,
  claims: ExpiringMap<true>,
  tokensByUser: OwnerIndex,
): Pick<SessionStore, "saveToken" | "consumeToken" | "claimToken" | "releaseToken" | "deleteUserTokens"> {
  const removeToken = (key: string): TokenRecord | null => {
    const token = tokens.get(key);
    tokens.delete(key);
    claims.delete(key);
    if (!token) return null;
    tokensByUser.remove(tokenOwner(token.purpose, token.userId), key);
    return token;
  };

  return {
    async saveToken(token, ttlMs, saveOptions) {
      const owner = tokenOwner(token.purpose, token.userId);
      if (saveOptions?.replaceOthers) {
        for (const key of tokensByUser.keys(owner)) removeToken(key);
      }
      const key = tokenKey(token.purpose, token.tokenHash);
      removeToken(key);
      tokens.set(key, clonePlain(token), ttlMs);
      tokensByUser.add(owner, key);
    },
    async consumeToken(purpose, tokenHash) {
      const token = removeToken(tokenKey(purpose, tokenHash));
      return token ? clonePlain(token) : null;
    },
    async claimToken(purpose, tokenHash, leaseMs) {
      const key = tokenKey(purpose, tokenHash);
      const token = tokens.get(key);
      if (!token || claims.get(key)) return null;
      claims.set(key, true, leaseMs);
      return clonePlain(token);
    },
    async releaseToken(purpose, tokenHash) {
      claims.delete(tokenKey(purpose, tokenHash));
    },
    async deleteUserTokens(userId, purpose) {
      let deleted = 0;
      for (const key of tokensByUser.keys(tokenOwner(purpose, userId))) {
        if (removeToken(key)) deleted += 1;
      }
      tokensByUser.deleteOwner(tokenOwner(purpose, userId));
      return deleted;
    },
  };
}
