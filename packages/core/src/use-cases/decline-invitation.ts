import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { invitationTokenInput } from "../organizations/inputs.js";
import { pendingInvitation } from "../organizations/invitations.js";
import { organizationsOn } from "../organizations/membership.js";
import { currentUser } from "../sessions/current-user.js";
import { signedIn } from "../sessions/signed-in.js";
import { parseInput } from "../validation.js";

/**
 * The signed-in user declines an invitation to their address (`{ token }`): its link stops
 * working. Another account's `INVITATION_EMAIL_MISMATCH`; one no longer pending
 * `INVITATION_INVALID`. Emits `invitation.declined`.
 */
export async function declineInvitation(
  ctx: AuthContext,
  call: Call,
  input: unknown,
): Promise<{ success: true }> {
  const { store } = organizationsOn(ctx);
  const principal = signedIn(call);
  const { token } = parseInput(invitationTokenInput, input);
  const { invitation, tokenHash } = await pendingInvitation(store, token, ctx.clock.now());
  const user = await currentUser(ctx, principal);
  if (user.email !== invitation.email) throw new AuthError("INVITATION_EMAIL_MISMATCH");
  if (!(await guardPort("DATABASE_FAILURE", () => store.declineInvitation(tokenHash))))
    throw new AuthError("INVITATION_INVALID");
  ctx.events.emit("invitation.declined", {
    ...call.request,
    userId: user.id,
    sessionId: principal.sessionId,
    actor: user.id,
    organizationId: invitation.organizationId,
  });
  return { success: true };
}
