import type { AuthContext } from "../context.js";
import type { Call, User } from "../model.js";
import { toUser } from "../model.js";
import { actingMember, organizationRecord } from "../organizations/acting.js";
import { setActiveOrganization, signSessionAccessToken } from "../organizations/active.js";
import { currentUser } from "../sessions/current-user.js";

/** What activating an organization answers: a fresh access token of the caller's session naming it. */
export interface Activation {
  user: User;
  accessToken: string;
  /** False when the session's cookies are browser-session cookies (`rememberMe: false`). */
  rememberMe: boolean;
  activeOrganization: { id: string; slug: string; role: string; permissions: string[] };
}

/**
 * Makes the organization the caller's session works in: the session keeps it (refreshes too,
 * while the membership lasts) and the answer carries a new access token of the session whose
 * claims name it (the session's refresh token does not change). `ORGANIZATION_NOT_FOUND` for a
 * non-member.
 */
export async function activateOrganization(
  ctx: AuthContext,
  call: Call,
  organizationId: string,
): Promise<Activation> {
  const { organizations, principal, member } = await actingMember(ctx, call, organizationId);
  const record = await organizationRecord(organizations, organizationId);
  const user = await currentUser(ctx, principal);
  const session = await setActiveOrganization(ctx.sessions, principal.sessionId, organizationId);
  const accessToken = await signSessionAccessToken(ctx, session, organizationId);
  return {
    user: toUser(user),
    accessToken,
    rememberMe: session.rememberMe !== false,
    activeOrganization: {
      id: record.id,
      slug: record.slug,
      role: member.role,
      permissions: [...member.permissions],
    },
  };
}
