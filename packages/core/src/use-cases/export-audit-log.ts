import type { AuditExport, AuditExportFormat } from "../audit/export.js";
import type { AuditFilters } from "../audit/query.js";
import { openAuditExport } from "../audit/read.js";
import type { AuthContext } from "../context.js";
import type { Acting } from "../sessions/admin-actor.js";

/**
 * The deployment's audit log as NDJSON or CSV, oldest first, with the filters of `listAuditLog`:
 * its text streams a page at a time (docs/audit-log.md); for the back office and the host.
 */
export async function exportAuditLog(
  ctx: AuthContext,
  _acting: Acting,
  input: AuditFilters & { format: AuditExportFormat },
): Promise<AuditExport> {
  return openAuditExport(ctx.audit, input, { now: ctx.clock.now(), logger: ctx.logger });
}
