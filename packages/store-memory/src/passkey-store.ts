import type { PasskeyRecord, PasskeyStore } from "@portcullis/core";

const copy = (passkey: PasskeyRecord): PasskeyRecord => ({ ...passkey, transports: [...passkey.transports] });

/**
 * Passkeys in memory, unique by credential id. Every check and write runs without an await
 * between them, so `create`, `recordUse` and a conditional `delete` are atomic for concurrent
 * calls. Returned records are copies.
 */
export function createMemoryPasskeyStore(): PasskeyStore {
  const byId = new Map<string, PasskeyRecord>();
  const ofUser = (userId: string) =>
    [...byId.values()]
      .filter((passkey) => passkey.userId === userId)
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  const owned = (userId: string, id: string) => {
    const found = byId.get(id);
    return found?.userId === userId ? found : undefined;
  };
  return {
    async create(passkey) {
      if (byId.has(passkey.id)) return null;
      byId.set(passkey.id, copy(passkey));
      return copy(passkey);
    },
    async findById(id) {
      const found = byId.get(id);
      return found ? copy(found) : null;
    },
    async listByUser(userId) {
      return ofUser(userId).map(copy);
    },
    async recordUse(id, use) {
      const found = byId.get(id);
      if (!found || found.counter !== use.expectedCounter) return false;
      byId.set(id, { ...found, counter: use.counter, backedUp: use.backedUp, lastUsedAt: use.usedAt });
      return true;
    },
    async rename(userId, id, name) {
      const found = owned(userId, id);
      if (!found) return null;
      const renamed = { ...found, name };
      byId.set(id, renamed);
      return copy(renamed);
    },
    async delete(userId, id, options) {
      if (!owned(userId, id)) return false;
      if (ofUser(userId).length - 1 < (options?.keepAtLeast ?? 0)) return false;
      return byId.delete(id);
    },
    async deleteAllForUser(userId) {
      const mine = ofUser(userId);
      for (const passkey of mine) byId.delete(passkey.id);
      return mine.length;
    },
  };
}
