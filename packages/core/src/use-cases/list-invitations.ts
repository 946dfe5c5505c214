import type { AuthContext } from "../context.js";
import { guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { actingMember } from "../organizations/acting.js";
import { assertPermission } from "../organizations/membership.js";
import { type InvitationView, toInvitationView } from "../organizations/views.js";

/** The organization's pending invitations, newest first (`member:invite`). */
export async function listInvitations(
  ctx: AuthContext,
  call: Call,
  organizationId: string,
): Promise<{ items: InvitationView[] }> {
  const { organizations, member } = await actingMember(ctx, call, organizationId);
  assertPermission(member, "member:invite");
  const found = await guardPort("DATABASE_FAILURE", () =>
    organizations.store.listInvitations(organizationId, ctx.clock.now()),
  );
  return { items: found.map(toInvitationView) };
}
