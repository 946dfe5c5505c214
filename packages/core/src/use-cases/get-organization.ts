import type { AuthContext } from "../context.js";
import type { Call } from "../model.js";
import { actingMember, organizationRecord } from "../organizations/acting.js";
import { type OrganizationMembershipView, toOrganizationView } from "../organizations/views.js";

/**
 * An organization the signed-in user belongs to, their role and permissions in it.
 * `ORGANIZATION_NOT_FOUND` for a non-member (the same as for an organization that does not exist).
 */
export async function getOrganization(
  ctx: AuthContext,
  call: Call,
  organizationId: string,
): Promise<OrganizationMembershipView> {
  const { organizations, member } = await actingMember(ctx, call, organizationId);
  const record = await organizationRecord(organizations, organizationId);
  return {
    organization: toOrganizationView(record),
    role: member.role,
    permissions: [...member.permissions],
  };
}
