import type { AuthContext } from "../context.js";
import { requireEmailEnabled } from "../emails/send-with-cooldown.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { actingMember, emitMemberAction, grantsOfRole, organizationRecord } from "../organizations/acting.js";
import { invitationInput } from "../organizations/inputs.js";
import { sendInvitation } from "../organizations/invitations.js";
import { assertPermission, findMember } from "../organizations/membership.js";
import { assertMayGrant } from "../organizations/roles.js";
import { type InvitationView, toInvitationView } from "../organizations/views.js";
import { parseInput } from "../validation.js";

/**
 * Invites `{ email, role }` into the organization (`member:invite`): an email with a link that
 * works once for 7 days (a newer invitation to the address replaces the older). Nobody invites
 * with a role holding a permission they lack, and only owners invite owners (`PERMISSION_DENIED`);
 * an unknown role is `VALIDATION_FAILED`; an address that is a member already `ALREADY_MEMBER`;
 * the email cooldown runs per address and organization (`EMAIL_COOLDOWN_ACTIVE`); without email
 * `EMAIL_DISABLED`. Emits `member.invited`.
 */
export async function inviteMember(
  ctx: AuthContext,
  call: Call,
  input: { organizationId: string; body: unknown },
): Promise<{ invitation: InvitationView }> {
  const acting = await actingMember(ctx, call, input.organizationId);
  const { organizations, principal, member, request } = acting;
  assertPermission(member, "member:invite");
  const { email, role } = parseInput(invitationInput, input.body);
  assertMayGrant(member, role, await grantsOfRole(organizations, input.organizationId, role));
  requireEmailEnabled(ctx);
  const existing = await guardPort("DATABASE_FAILURE", () => ctx.users.findByEmail(email));
  if (existing && (await findMember(organizations, input.organizationId, existing.id)))
    throw new AuthError("ALREADY_MEMBER");
  const organization = await organizationRecord(organizations, input.organizationId);
  const invitation = await sendInvitation(ctx, organizations.store, {
    organization,
    email,
    role,
    invitedBy: principal.userId,
    locale: request.locale ?? ctx.translator.defaultLocale,
  });
  emitMemberAction(ctx.events, acting, "member.invited", {
    organizationId: input.organizationId,
    reason: role,
  });
  return { invitation: toInvitationView(invitation) };
}
