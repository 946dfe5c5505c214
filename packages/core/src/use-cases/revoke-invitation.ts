import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { actingMember, emitMemberAction } from "../organizations/acting.js";
import { assertPermission, isPlausibleId } from "../organizations/membership.js";

/**
 * Revokes one of the organization's invitations (`member:invite`): its link stops working.
 * `NOT_FOUND` when the organization has no such invitation. Emits `invitation.revoked`.
 */
export async function revokeInvitation(
  ctx: AuthContext,
  call: Call,
  input: { organizationId: string; invitationId: string },
): Promise<{ success: true }> {
  const acting = await actingMember(ctx, call, input.organizationId);
  const { organizations, member } = acting;
  assertPermission(member, "member:invite");
  const revoked =
    isPlausibleId(input.invitationId) &&
    (await guardPort("DATABASE_FAILURE", () =>
      organizations.store.revokeInvitation(input.organizationId, input.invitationId),
    ));
  if (!revoked) throw new AuthError("NOT_FOUND");
  emitMemberAction(ctx.events, acting, "invitation.revoked", { organizationId: input.organizationId });
  return { success: true };
}
