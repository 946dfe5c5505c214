import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import {
  actingMember,
  assertKnownPermissions,
  emitMemberAction,
  grantsOfRole,
} from "../organizations/acting.js";
import { updateRoleInput } from "../organizations/inputs.js";
import { assertPermission } from "../organizations/membership.js";
import { assertHoldsAll, isBuiltInRole } from "../organizations/roles.js";
import { type RoleView, toRoleView } from "../organizations/views.js";
import { parseInput } from "../validation.js";

/**
 * Replaces a custom role's permissions (`{ permissions }`; `role:manage`): nobody gives or takes
 * a permission they lack (`PERMISSION_DENIED`). A built-in or unknown role is `NOT_FOUND`. Its
 * members hold the new permissions from their next request. Emits `role.updated`.
 */
export async function updateRole(
  ctx: AuthContext,
  call: Call,
  input: { organizationId: string; role: string; body: unknown },
): Promise<RoleView> {
  const acting = await actingMember(ctx, call, input.organizationId);
  const { organizations, member } = acting;
  assertPermission(member, "role:manage");
  const { permissions } = parseInput(updateRoleInput, input.body);
  if (isBuiltInRole(input.role)) throw new AuthError("NOT_FOUND");
  const before = await grantsOfRole(organizations, input.organizationId, input.role).catch(() => {
    throw new AuthError("NOT_FOUND");
  });
  assertKnownPermissions(organizations.options, permissions);
  assertHoldsAll(member, [...before, ...permissions]);
  const updated = await guardPort("DATABASE_FAILURE", () =>
    organizations.store.updateRole(input.organizationId, input.role, permissions),
  );
  if (updated === null) throw new AuthError("NOT_FOUND");
  emitMemberAction(ctx.events, acting, "role.updated", {
    organizationId: input.organizationId,
    reason: input.role,
  });
  return toRoleView(updated);
}
