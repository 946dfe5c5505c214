import type { IdentityRecord, IdentityStore } from "@portcullis/core";

/** Identity-provider links in memory, unique by (issuer, subject) and by (user, provider). Returned records are copies. */
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
    async unlink(userId, provider) {
      const found = ofUser(userId).find((identity) => identity.provider === provider);
      if (!found) return false;
      return bySubject.delete(subjectKey(found.issuer, found.subject));
    },
  };
}
