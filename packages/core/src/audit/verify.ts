import type { AuditEntry, AuditLogStore } from "../ports/audit-log-store.js";
import type { AuditSeal } from "./seal.js";

/** Entries read per page while walking a chain. */
export const AUDIT_VERIFY_PAGE = 500;

/** Why a chain is broken at an entry: its hash is not its seal, or it does not link to the entry before it. */
export type AuditBreak = { id: string; seq: number; reason: "hash" | "link" };

/** What `verifyAuditChain` found: every entry checked held, or the first broken one. */
export type AuditVerification =
  | { ok: true; checked: number }
  | { ok: false; checked: number; broken: AuditBreak };

/** Whether `entry` follows `previous` in the chain walked (`organizationId` undefined: the deployment's). */
function linked(previous: AuditEntry | undefined, entry: AuditEntry, organizationId: string | undefined) {
  if (organizationId !== undefined) return previous === undefined || entry.orgPrevHash === previous.hash;
  // The deployment's first entry ever links to nothing; the oldest kept one after a sweep is the anchor.
  if (previous === undefined) return entry.seq !== 1 || entry.prevHash === "";
  return entry.seq === previous.seq + 1 && entry.prevHash === previous.hash;
}

/**
 * Walks a chain oldest to newest, a page at a time (never the whole log in memory): the
 * deployment's (every entry, each linking by `prevHash` to the one of `seq` − 1) or, with
 * `organizationId`, that organization's (its entries, linking by `orgPrevHash`). Each entry's hash
 * is computed again (`seal.holds`, any of the secrets) and its link checked; the answer names
 * the first entry that fails, `hash` first (a changed field, or a changed hash) then `link` (an
 * entry missing before it, or one put in). `checked` counts the entries read, the broken one
 * included. The oldest entry kept is the anchor: after a retention sweep its predecessor is gone
 * and its link cannot be checked (the first entry ever must link to "").
 */
export async function verifyAuditChain(
  store: AuditLogStore,
  seal: AuditSeal,
  organizationId?: string,
  pageSize = AUDIT_VERIFY_PAGE,
): Promise<AuditVerification> {
  let checked = 0;
  let previous: AuditEntry | undefined;
  for (;;) {
    const page = await store.list({ organizationId, order: "asc", afterSeq: previous?.seq, limit: pageSize });
    for (const entry of page) {
      checked += 1;
      const reason = !seal.holds(entry) ? "hash" : !linked(previous, entry, organizationId) ? "link" : null;
      if (reason !== null) return { ok: false, checked, broken: { id: entry.id, seq: entry.seq, reason } };
      previous = entry;
    }
    if (page.length < pageSize) return { ok: true, checked };
  }
}
