import type { AuditDraft, AuditEntry, AuditLinks } from "../ports/audit-log-store.js";

/** The draft's own fields only, as a fresh object (an entry's links and hash, or anything else, left out). */
export const auditDraftOf = (draft: AuditDraft): AuditDraft => ({
  id: draft.id,
  at: draft.at,
  type: draft.type,
  actorType: draft.actorType,
  actorId: draft.actorId,
  userId: draft.userId,
  organizationId: draft.organizationId,
  sessionId: draft.sessionId,
  ip: draft.ip,
  userAgent: draft.userAgent,
  reason: draft.reason,
});

/** The entry a store keeps of `draft` placed at `links` and sealed as `hash`: their own fields only. */
export const auditEntryOf = (draft: AuditDraft, links: AuditLinks, hash: string): AuditEntry => ({
  ...auditDraftOf(draft),
  seq: links.seq,
  prevHash: links.prevHash,
  orgPrevHash: links.orgPrevHash,
  hash,
});
