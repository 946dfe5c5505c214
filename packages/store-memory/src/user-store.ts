import type { UserRecord, UserStore } from "@portcullis/core";
import { clonePlain } from "./clone.js";

/** Users in memory, unique by normalized email. Returned records are copies. */
export function createMemoryUserStore(): UserStore & { size(): number } {
  const byId = new Map<string, UserRecord>();
  const idByEmail = new Map<string, string>();
  const copy = (user: UserRecord | undefined) => (user ? clonePlain(user) : null);
  return {
    async findById(id) {
      return copy(byId.get(id));
    },
    async findByEmail(email) {
      const id = idByEmail.get(email);
      return copy(id === undefined ? undefined : byId.get(id));
    },
    async create(user) {
      if (idByEmail.has(user.email) || byId.has(user.id)) return null;
      const stored = clonePlain(user);
      byId.set(stored.id, stored);
      idByEmail.set(stored.email, stored.id);
      return clonePlain(stored);
    },
    async update(id, patch) {
      const current = byId.get(id);
      if (!current) return null;
      const { id: _id, email: _email, createdAt: _createdAt, ...allowed } = patch as Partial<UserRecord>;
      const next = { ...current, ...clonePlain(allowed) };
      byId.set(id, next);
      return clonePlain(next);
    },
    async recordSignIn(id, at) {
      const current = byId.get(id);
      if (!current) return false;
      byId.set(id, { ...current, lastSignInAt: at });
      return current.lastSignInAt == null;
    },
    async recordSignInIfUnchanged(id, at, passwordHash) {
      // Synchronous from the read to the write: no other call runs in between.
      const current = byId.get(id);
      if (!current) return null;
      const unchanged =
        current.lockedAt == null && (passwordHash === undefined || current.passwordHash === passwordHash);
      if (unchanged) byId.set(id, { ...current, lastSignInAt: at });
      return clonePlain(current);
    },
    async replacePasswordHash(id, expected, next) {
      const current = byId.get(id);
      if (!current || current.passwordHash !== expected) return false;
      byId.set(id, { ...current, passwordHash: next });
      return true;
    },
    async changeEmail(id, from, to) {
      // Synchronous from the check to the write: no other call runs in between.
      const current = byId.get(id);
      if (!current || current.email !== from) return { status: "stale" };
      const owner = idByEmail.get(to);
      if (owner !== undefined && owner !== id) return { status: "taken" };
      const next = { ...current, email: to, emailVerified: true };
      byId.set(id, next);
      idByEmail.delete(from);
      idByEmail.set(to, id);
      return { status: "changed", user: clonePlain(next) };
    },
    async delete(id) {
      const current = byId.get(id);
      if (!current) return false;
      byId.delete(id);
      idByEmail.delete(current.email);
      return true;
    },
    async listUsers({ prefix, after, limit }) {
      // Sorted on each call: a memory store is for development and tests, not a million users.
      const emails = [...idByEmail.keys()]
        .filter((email) => email.startsWith(prefix) && (after === undefined || email > after))
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
        .slice(0, limit);
      return emails.map((email) => copy(byId.get(idByEmail.get(email) ?? "")) as UserRecord);
    },
    size: () => byId.size,
  };
}
