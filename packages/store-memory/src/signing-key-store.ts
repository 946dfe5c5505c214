import type { SigningKeyRecord, SigningKeyStore } from "@portcullis/core";

/** Newest first: the latest `createdAt`, ties by `kid` descending (the port's order). */
const newestFirst = (a: SigningKeyRecord, b: SigningKeyRecord) =>
  b.createdAt - a.createdAt || (a.kid < b.kid ? 1 : a.kid > b.kid ? -1 : 0);

/**
 * The OAuth provider's signing keys in memory (one process: every instance of a deployment must
 * share a store, so this one is for development and tests). The check and the write of
 * `addSigningKey` run without an await between them, so concurrent rotations add one key.
 * Returned records are copies.
 */
export function createMemorySigningKeyStore(): SigningKeyStore {
  const byKid = new Map<string, SigningKeyRecord>();
  return {
    async listSigningKeys() {
      return [...byKid.values()].sort(newestFirst).map((key) => ({ ...key }));
    },
    async addSigningKey(key, unlessCreatedSince) {
      if (byKid.has(key.kid)) throw new Error(`a signing key with kid ${key.kid} exists`);
      for (const stored of byKid.values()) if (stored.createdAt >= unlessCreatedSince) return false;
      byKid.set(key.kid, { ...key });
      return true;
    },
    async deleteSigningKeys(kids) {
      let deleted = 0;
      for (const kid of new Set(kids)) if (byKid.delete(kid)) deleted++;
      return deleted;
    },
  };
}
