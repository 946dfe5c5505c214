import type { AuditDraft, AuditEntry, AuditLinks } from "../ports/audit-log-store.js";
import { createKeyedHash, type KeyMaterial } from "../tokens/keys.js";

/** The keyed hash of the audit chains (docs/audit-log.md, "The chain"). */
export interface AuditSeal {
  /** The hash of a draft at its place in the chains, under the current `secret`: the store's `seal`. */
  seal(draft: AuditDraft, links: AuditLinks): string;
  /** Whether `entry.hash` is the seal of its fields and links under any `secret` (rotated ones too). */
  holds(entry: AuditEntry): boolean;
}

/**
 * Every field of an entry and its links, in a fixed order, as one JSON array: unambiguous (no
 * separator a value could contain), and versioned so another encoding can come later.
 */
export function canonicalAuditEntry(draft: AuditDraft, links: AuditLinks): string {
  return JSON.stringify([
    "audit v1",
    draft.id,
    draft.at,
    draft.type,
    draft.actorType,
    draft.actorId,
    draft.userId,
    draft.organizationId,
    draft.sessionId,
    draft.ip,
    draft.userAgent,
    draft.reason,
    links.seq,
    links.prevHash,
    links.orgPrevHash,
  ]);
}

/**
 * HMAC-SHA-256 under a key derived with HKDF from each `secret` (purpose `audit log v1`, as API
 * keys' `api key v1`): the first secret seals, every one verifies, so a rotated secret still
 * verifies the entries it sealed. Without the secret nobody can re-seal an entry they changed.
 */
export function createAuditSeal(secrets: readonly KeyMaterial[]): AuditSeal {
  const keyed = createKeyedHash(secrets, "audit log v1");
  return {
    seal: (draft, links) => keyed.hash(canonicalAuditEntry(draft, links)),
    holds: (entry) => keyed.candidates(canonicalAuditEntry(entry, entry)).includes(entry.hash),
  };
}
