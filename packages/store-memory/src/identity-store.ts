import type { IdentityRecord, IdentityStore } from "@portcullis/core";

/**
 * Identity-provider links in memory, unique by (issuer, subject) and by (user, provider); a
 * conditional `unlink` counts and deletes synchronously. Returned records are copies.
 */
export function createMemoryIdentityStore(): IdentityStore {
  const bySubject = new Map<string, IdentityRecord>();
  const subjectKey = (issuer: string, subject: string) => JSON.stringify([issuer, subject]);
  const ofUser = (userId: string) => [...bySubject.values()].filter((identity) => identity.userId === userId);
  return {
    async link(identity) {
      const key = subjectKey(identity.issuer, identity.subject);
      if (bySubject.has(key)) return null;
      if (ofUser(identity.userId).some((linked) => linked.provider === identity.provider)) return null;
      bySubject.set(key, { ...identity });
      return { ...identity };
    },
    async findBySubject(issuer, subject) {
      const found = bySubject.get(subjectKey(issuer, subject));
      return found ? { ...found } : null;
    },
    async listByUser(userId) {
      return ofUser(userId)
        .sort((a, b) => a.createdAt - b.createdAt)
        .map((identity) => ({ ...identity }));
    },
    async unlink(userId, provider, options) {
      // Count and delete without an await between them: atomic for concurrent calls.
      const links = ofUser(userId);
      const found = links.find((identity) => identity.provider === provider);
      if (!found || links.length - 1 < (options?.keepAtLeast ?? 0)) return false;
      return bySubject.delete(subjectKey(found.issuer, found.subject));
    },
  };
}
