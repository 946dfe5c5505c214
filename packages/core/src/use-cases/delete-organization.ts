import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { actingMember, emitMemberAction } from "../organizations/acting.js";
import { assertOwner } from "../organizations/membership.js";
import { requireStepUp } from "../two-factor/settings.js";
import { deleteOrganizationEndpoints } from "../webhooks/manage.js";

/**
 * An owner deletes the organization with its memberships, roles, invitations, API keys and, when
 * a webhook store is configured, webhook endpoints with their deliveries (needs
 * `call.stepUpToken`). `ORGANIZATION_NOT_FOUND` for a non-member, `PERMISSION_DENIED` for a member
 * who is no owner (admins too), then `STEP_UP_REQUIRED`. Emits `organization.deleted`.
 */
export async function deleteOrganization(
  ctx: AuthContext,
  call: Call,
  organizationId: string,
): Promise<{ success: true }> {
  const acting = await actingMember(ctx, call, organizationId);
  const { organizations, member } = acting;
  assertOwner(member);
  await requireStepUp(ctx, call);
  // Its webhook endpoints and API keys first: a failure after this leaves an organization without
  // endpoints or keys, never endpoints or keys of an organization that is gone.
  await deleteOrganizationEndpoints(ctx.options.stores.webhooks, organizationId);
  const apiKeys = ctx.apiKeys;
  if (apiKeys) await guardPort("DATABASE_FAILURE", () => apiKeys.deleteOrganizationApiKeys(organizationId));
  const deleted = await guardPort("DATABASE_FAILURE", () =>
    organizations.store.deleteOrganization(organizationId),
  );
  if (!deleted) throw new AuthError("ORGANIZATION_NOT_FOUND");
  emitMemberAction(ctx.events, acting, "organization.deleted", { organizationId });
  return { success: true };
}
