import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { actingMember, emitMemberAction, grantsOfRole } from "../organizations/acting.js";
import { memberRoleInput } from "../organizations/inputs.js";
import { assertPermission, findMember } from "../organizations/membership.js";
import { assertMayChange, assertMayGrant } from "../organizations/roles.js";
import { parseInput } from "../validation.js";

/**
 * Gives a member another role (`{ role }`; `member:update-role`). Nobody grants a role with a
 * permission they lack, nor changes a member whose role holds one they lack; only owners make or
 * demote owners; the last owner cannot be demoted (`LAST_OWNER`, decided atomically by the store).
 * An unknown role is `VALIDATION_FAILED`; a user who is no member `ORGANIZATION_NOT_FOUND`. Emits
 * `member.role_changed` (the member as `userId`, the caller as `actor`).
 */
export async function changeMemberRole(
  ctx: AuthContext,
  call: Call,
  input: { organizationId: string; userId: string; body: unknown },
): Promise<{ userId: string; role: string }> {
  const acting = await actingMember(ctx, call, input.organizationId);
  const { organizations, member } = acting;
  assertPermission(member, "member:update-role");
  const { role } = parseInput(memberRoleInput, input.body);
  const target = await findMember(organizations, input.organizationId, input.userId);
  if (target === null) throw new AuthError("ORGANIZATION_NOT_FOUND");
  assertMayChange(member, target.role, target.permissions);
  assertMayGrant(member, role, await grantsOfRole(organizations, input.organizationId, role));
  const result = await guardPort("DATABASE_FAILURE", () =>
    organizations.store.changeMemberRole(input.organizationId, input.userId, role),
  );
  if (result === "not-found") throw new AuthError("ORGANIZATION_NOT_FOUND");
  if (result === "last-owner") throw new AuthError("LAST_OWNER");
  emitMemberAction(ctx.events, acting, "member.role_changed", {
    organizationId: input.organizationId,
    userId: input.userId,
    reason: role,
  });
  return { userId: input.userId, role };
}
