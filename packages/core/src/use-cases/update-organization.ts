import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { actingMember, emitMemberAction } from "../organizations/acting.js";
import { updateOrganizationInput } from "../organizations/inputs.js";
import { assertPermission } from "../organizations/membership.js";
import { type OrganizationMembershipView, toOrganizationView } from "../organizations/views.js";
import { parseInput } from "../validation.js";

/**
 * Renames the organization or changes its slug (`{ name?, slug? }`; `organization:update`).
 * `ORGANIZATION_SLUG_TAKEN` when another organization has the slug. Emits `organization.updated`.
 */
export async function updateOrganization(
  ctx: AuthContext,
  call: Call,
  input: { organizationId: string; body: unknown },
): Promise<OrganizationMembershipView> {
  const acting = await actingMember(ctx, call, input.organizationId);
  const { organizations, member } = acting;
  assertPermission(member, "organization:update");
  const patch = parseInput(updateOrganizationInput, input.body);
  const updated = await guardPort("DATABASE_FAILURE", () =>
    organizations.store.updateOrganization(input.organizationId, patch),
  );
  if (updated === "slug-taken") throw new AuthError("ORGANIZATION_SLUG_TAKEN");
  if (updated === null) throw new AuthError("ORGANIZATION_NOT_FOUND");
  emitMemberAction(ctx.events, acting, "organization.updated", { organizationId: input.organizationId });
  return {
    organization: toOrganizationView(updated),
    role: member.role,
    permissions: [...member.permissions],
  };
}
