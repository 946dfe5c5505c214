import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { organizationRecord } from "../organizations/acting.js";
import { invitationTokenInput } from "../organizations/inputs.js";
import { pendingInvitation } from "../organizations/invitations.js";
import { organizationsOn } from "../organizations/membership.js";
import { type OrganizationView, toOrganizationView } from "../organizations/views.js";
import { currentUser } from "../sessions/current-user.js";
import { signedIn } from "../sessions/signed-in.js";
import { parseInput } from "../validation.js";

/**
 * The signed-in user accepts an invitation (`{ token }` of the emailed link) and becomes a member
 * with its role. Only the invited address may: another account's `INVITATION_EMAIL_MISMATCH`,
 * the invited one unverified `EMAIL_NOT_VERIFIED`; used, expired, revoked, replaced or declined
 * `INVITATION_INVALID`; already a member `ALREADY_MEMBER`. Of concurrent acceptances one wins (the
 * store decides). Emits `member.joined`.
 */
export async function acceptInvitation(
  ctx: AuthContext,
  call: Call,
  input: unknown,
): Promise<{ organization: OrganizationView; role: string }> {
  const organizations = organizationsOn(ctx);
  const principal = signedIn(call);
  const { token } = parseInput(invitationTokenInput, input);
  const now = ctx.clock.now();
  const { invitation, tokenHash } = await pendingInvitation(organizations.store, token, now);
  const user = await currentUser(ctx, principal);
  if (user.email !== invitation.email) throw new AuthError("INVITATION_EMAIL_MISMATCH");
  if (!user.emailVerified) throw new AuthError("EMAIL_NOT_VERIFIED");
  const result = await guardPort("DATABASE_FAILURE", () =>
    organizations.store.acceptInvitation(tokenHash, user.id, now),
  );
  if (result.status === "invalid") throw new AuthError("INVITATION_INVALID");
  if (result.status === "already-member") throw new AuthError("ALREADY_MEMBER");
  const organization = await organizationRecord(organizations, result.membership.organizationId);
  ctx.events.emit("member.joined", {
    ...call.request,
    userId: user.id,
    sessionId: principal.sessionId,
    actor: user.id,
    organizationId: organization.id,
    reason: result.membership.role,
  });
  return { organization: toOrganizationView(organization), role: result.membership.role };
}
