import type { AuditFilters } from "../audit/query.js";
import { auditStoreOf, listOrganizationAuditPage, type OrganizationAuditPage } from "../audit/read.js";
import type { AuthContext } from "../context.js";
import type { Call } from "../model.js";
import { actingMember } from "../organizations/acting.js";
import { assertPermission } from "../organizations/membership.js";

/**
 * A page of one organization's audit log, newest first (`audit:read`), filtered by `type`,
 * `actor`, `from` and `to`; a non-member learns nothing (`ORGANIZATION_NOT_FOUND`), a member
 * nothing of the rest of the deployment (no `seq`, no `prevHash`, a sealed cursor).
 */
export async function listOrganizationAuditLog(
  ctx: AuthContext,
  call: Call,
  input: { organizationId: string } & Omit<AuditFilters, "organizationId"> & {
      cursor?: string | undefined;
      limit?: number | string | undefined;
    },
): Promise<OrganizationAuditPage> {
  auditStoreOf(ctx.audit);
  const { organizationId, ...filters } = input;
  const { member } = await actingMember(ctx, call, organizationId);
  assertPermission(member, "audit:read");
  return listOrganizationAuditPage(ctx.audit, filters, organizationId);
}
