import type { AuditDraft, AuditLinks } from "@portcullis/core";
import { expect } from "vitest";
import type { AnyKysely } from "./context.js";
import { migrationsAfter } from "./migration-names.js";
import { storesAtMigration } from "./test-upgrade.js";

/** A seal for the tests: the draft's id and the links, joined (a store never reads it). */
export const joinedSeal = (draft: AuditDraft, links: AuditLinks): string =>
  `${draft.id}|${links.seq}|${links.prevHash.length}|${links.orgPrevHash?.length ?? "-"}`;

/** A draft of the tests: `id`, at `at`, of `organizationId`. */
export const auditDraft = (id: string, at: number, organizationId: string | null = null): AuditDraft => ({
  id,
  at,
  type: "login.succeeded",
  actorType: "user",
  actorId: "u1",
  userId: "u1",
  organizationId,
  sessionId: null,
  ip: "203.0.113.7",
  userAgent: null,
  reason: null,
});

/**
 * Test support (not part of the package's exports), run on every dialect: a database at 0014 with
 * an API key is migrated to 0015; the key reads as before, and the audit log starts at seq 1 with
 * both chains; migrated back down to 0014, the key stays and the audit log's tables are gone.
 */
export async function checkAuditLogUpgrade(db: AnyKysely): Promise<void> {
  const at = await storesAtMigration(db, "a", "0014_api_keys");
  const { apiKeys, auditLog } = at.stores;
  const key = {
    id: "k1",
    lookupId: "lookup-k1",
    keyHash: "hash-k1",
    name: "Key",
    start: "pc_abcdefgh",
    userId: "u1",
    organizationId: null,
    permissions: null,
    createdAt: 1,
    expiresAt: null,
    lastUsedAt: null,
  };
  await apiKeys.createApiKey(key, { maxPerOwner: 10 });
  expect(await at.upgrade()).toEqual(migrationsAfter("0014_api_keys"));
  expect(await apiKeys.findApiKey("k1")).toEqual(key);
  const entries = await auditLog.append([auditDraft("e1", 1, "o1"), auditDraft("e2", 2)], joinedSeal);
  expect(entries.map(({ seq, prevHash, orgPrevHash }) => ({ seq, prevHash, orgPrevHash }))).toEqual([
    { seq: 1, prevHash: "", orgPrevHash: "" },
    { seq: 2, prevHash: entries[0]?.hash, orgPrevHash: null },
  ]);
  expect(await auditLog.list({ order: "asc", limit: 10 })).toEqual(entries);
  // And back down: the audit log's tables go, the keys' stay.
  await at.downgrade();
  expect(await apiKeys.findApiKey("k1")).toEqual(key);
  await expect(auditLog.list({ order: "asc", limit: 10 })).rejects.toThrow();
}
