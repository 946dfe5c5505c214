import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { actingMember, emitMemberAction } from "../organizations/acting.js";
import { assertPermission, findMember } from "../organizations/membership.js";
import { assertMayChange } from "../organizations/roles.js";

/**
 * Removes a member (`member:remove`), or the caller leaves (their own user id: no permission
 * needed). Only owners remove owners, and nobody removes a member whose role holds a permission
 * they lack. The last owner cannot leave or be removed (`LAST_OWNER`, decided atomically by the
 * store). The removed member is refused by the organization's checks on their very next request.
 * Emits `member.removed` (reason `left` when the caller left).
 */
export async function removeMember(
  ctx: AuthContext,
  call: Call,
  input: { organizationId: string; userId: string },
): Promise<{ success: true }> {
  const acting = await actingMember(ctx, call, input.organizationId);
  const { organizations, principal, member } = acting;
  const leaving = input.userId === principal.userId;
  if (!leaving) {
    assertPermission(member, "member:remove");
    const target = await findMember(organizations, input.organizationId, input.userId);
    if (target === null) throw new AuthError("ORGANIZATION_NOT_FOUND");
    assertMayChange(member, target.role, target.permissions);
  }
  const result = await guardPort("DATABASE_FAILURE", () =>
    organizations.store.removeMember(input.organizationId, input.userId),
  );
  if (result === "not-found") throw new AuthError("ORGANIZATION_NOT_FOUND");
  if (result === "last-owner") throw new AuthError("LAST_OWNER");
  emitMemberAction(ctx.events, acting, "member.removed", {
    organizationId: input.organizationId,
    userId: input.userId,
    reason: leaving ? "left" : undefined,
  });
  return { success: true };
}
