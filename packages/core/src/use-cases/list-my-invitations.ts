import type { AuthContext } from "../context.js";
import { guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { organizationsOn } from "../organizations/membership.js";
import { type OrganizationView, toOrganizationView } from "../organizations/views.js";
import { currentUser } from "../sessions/current-user.js";
import { signedIn } from "../sessions/signed-in.js";

/** An invitation as its invited person sees it. */
export interface ReceivedInvitation {
  id: string;
  organization: OrganizationView;
  role: string;
  /** ISO 8601. */
  expiresAt: string;
}

/**
 * The signed-in user's pending invitations (to their address, verified or not), newest first.
 * Accepting one still needs its emailed link's token and a verified address.
 */
export async function listMyInvitations(
  ctx: AuthContext,
  call: Call,
): Promise<{ items: ReceivedInvitation[] }> {
  const { store } = organizationsOn(ctx);
  const user = await currentUser(ctx, signedIn(call));
  const invitations = await guardPort("DATABASE_FAILURE", () =>
    store.listInvitationsForEmail(user.email, ctx.clock.now()),
  );
  const organizations = await Promise.all(
    invitations.map((invitation) =>
      guardPort("DATABASE_FAILURE", () => store.findOrganization(invitation.organizationId)),
    ),
  );
  return {
    items: invitations.flatMap((invitation, index) => {
      const organization = organizations[index];
      if (!organization) return [];
      return [
        {
          id: invitation.id,
          organization: toOrganizationView(organization),
          role: invitation.role,
          expiresAt: new Date(invitation.expiresAt).toISOString(),
        },
      ];
    }),
  };
}
