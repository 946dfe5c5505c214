import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { actingMember } from "../organizations/acting.js";
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
  const { organizations, principal, member, request } = await actingMember(ctx, call, input.organizationId);
  assertPermission(member, "organization:update");
  const patch = parseInput(updateOrganizationInput, input.body);
  const updated = await guardPort("DATABASE_FAILURE", () =>
    organizations.store.updateOrganization(input.organizationId, patch),
  );
  if (updated === "slug-taken") throw new AuthError("ORGANIZATION_SLUG_TAKEN");
  if (updated === null) throw new AuthError("ORGANIZATION_NOT_FOUND");
  ctx.events.emit("organization.updated", {
    ...request,
    userId: principal.userId,
    sessionId: principal.sessionId,
    actor: principal.userId,
    organizationId: input.organizationId,
  });
  return {
    organization: toOrganizationView(updated),
    role: member.role,
    permissions: [...member.permissions],
  };
}
