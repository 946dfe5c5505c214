import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { actingMember, emitMemberAction } from "../organizations/acting.js";
import { assertPermission } from "../organizations/membership.js";
import { isBuiltInRole } from "../organizations/roles.js";

/**
 * Removes a custom role (`role:manage`). `ROLE_IN_USE` while a member holds it or a pending
 * invitation grants it (decided atomically by the store); a built-in or unknown role `NOT_FOUND`.
 * Emits `role.deleted`.
 */
export async function deleteRole(
  ctx: AuthContext,
  call: Call,
  input: { organizationId: string; role: string },
): Promise<{ success: true }> {
  const acting = await actingMember(ctx, call, input.organizationId);
  const { organizations, member } = acting;
  assertPermission(member, "role:manage");
  if (isBuiltInRole(input.role) || !/^[a-z0-9-]{2,32}$/.test(input.role)) throw new AuthError("NOT_FOUND");
  const result = await guardPort("DATABASE_FAILURE", () =>
    organizations.store.deleteRole(input.organizationId, input.role),
  );
  if (result === "not-found") throw new AuthError("NOT_FOUND");
  if (result === "in-use") throw new AuthError("ROLE_IN_USE");
  emitMemberAction(ctx.events, acting, "role.deleted", {
    organizationId: input.organizationId,
    reason: input.role,
  });
  return { success: true };
}
