import type { AuthContext } from "../context.js";
import { guardPort, ValidationError } from "../errors.js";
import type { Call } from "../model.js";
import { actingMember, assertKnownPermissions, emitMemberAction } from "../organizations/acting.js";
import { createRoleInput } from "../organizations/inputs.js";
import { assertPermission } from "../organizations/membership.js";
import { assertHoldsAll } from "../organizations/roles.js";
import { type RoleView, toRoleView } from "../organizations/views.js";
import { fieldIssue, parseInput } from "../validation.js";

/**
 * Defines a custom role `{ name, permissions }` (`role:manage`) from the declared and built-in
 * permissions (`VALIDATION_FAILED` for another, or a name the organization has); nobody defines
 * one with a permission they lack (`PERMISSION_DENIED`). Emits `role.created`.
 */
export async function createRole(
  ctx: AuthContext,
  call: Call,
  input: { organizationId: string; body: unknown },
): Promise<RoleView> {
  const acting = await actingMember(ctx, call, input.organizationId);
  const { organizations, member } = acting;
  assertPermission(member, "role:manage");
  const { name, permissions } = parseInput(createRoleInput, input.body);
  assertKnownPermissions(organizations.options, permissions);
  assertHoldsAll(member, permissions);
  const role = { organizationId: input.organizationId, name, permissions, createdAt: ctx.clock.now() };
  const result = await guardPort("DATABASE_FAILURE", () => organizations.store.createRole(role));
  if (result === "exists") throw new ValidationError([fieldIssue("name", "invalid")]);
  emitMemberAction(ctx.events, acting, "role.created", {
    organizationId: input.organizationId,
    reason: name,
  });
  return toRoleView(role);
}
