import type { AuditExport, AuditExportFormat } from "../audit/export.js";
import type { AuditFilters } from "../audit/query.js";
import { auditStoreOf, openAuditExport } from "../audit/read.js";
import type { AuthContext } from "../context.js";
import type { Call } from "../model.js";
import { actingMember } from "../organizations/acting.js";
import { assertPermission } from "../organizations/membership.js";

/**
 * One organization's audit log as NDJSON or CSV, oldest first (`audit:read`), with the filters
 * of `listAuditLog`; its text streams a page at a time, each entry as the organization's members
 * see it (no `seq`, no `prevHash`).
 */
export async function exportOrganizationAuditLog(
  ctx: AuthContext,
  call: Call,
  input: { organizationId: string; format: AuditExportFormat } & Omit<AuditFilters, "organizationId">,
): Promise<AuditExport> {
  auditStoreOf(ctx.audit);
  const { organizationId, ...filters } = input;
  const { member } = await actingMember(ctx, call, organizationId);
  assertPermission(member, "audit:read");
  return openAuditExport(ctx.audit, filters, { now: ctx.clock.now(), logger: ctx.logger, organizationId });
}
