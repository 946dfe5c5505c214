import type { AuthContext } from "../context.js";
import { guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { actingMember } from "../organizations/acting.js";
import { assertPermission } from "../organizations/membership.js";
import { type RoleView, roleViews } from "../organizations/views.js";

/** The organization's roles (`role:manage`): the built-in ones with what they grant, then its custom ones, oldest first. */
export async function listRoles(
  ctx: AuthContext,
  call: Call,
  organizationId: string,
): Promise<{ items: RoleView[] }> {
  const { organizations, member } = await actingMember(ctx, call, organizationId);
  assertPermission(member, "role:manage");
  const custom = await guardPort("DATABASE_FAILURE", () => organizations.store.listRoles(organizationId));
  return { items: roleViews(organizations.options, custom) };
}
