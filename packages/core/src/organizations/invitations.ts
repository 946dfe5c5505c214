import { type CooldownSendDeps, sendWithCooldown } from "../emails/send-with-cooldown.js";
import { AuthError, guardPort } from "../errors.js";
import type { Clock } from "../ports/clock.js";
import type { InvitationRecord, OrganizationRecord, OrganizationStore } from "../ports/organization-store.js";
import { hashToken, randomId, randomToken } from "../tokens/random.js";

/** How long an invitation's link works: 7 days, in milliseconds. */
export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

/** What sending an invitation needs. */
export interface InvitationDeps extends Omit<CooldownSendDeps, "background"> {
  clock: Clock;
}

/**
 * Stores an invitation to `email` (replacing the pending ones of the same address and
 * organization) and mails its link, under the email cooldown of that address and organization
 * (`EMAIL_COOLDOWN_ACTIVE`; acquired first, released, with the invitation removed, when the send
 * fails). The token is 256 random bits; only its SHA-256 is stored.
 */
export async function sendInvitation(
  deps: InvitationDeps,
  store: OrganizationStore,
  invitation: {
    organization: OrganizationRecord;
    email: string;
    role: string;
    invitedBy: string;
    locale: string;
  },
): Promise<InvitationRecord> {
  const { organization, email, role } = invitation;
  const now = deps.clock.now();
  let stored: InvitationRecord | undefined;
  // The cooldown is per address and organization: its key names both.
  await sendWithCooldown(deps, "organization-invitation", `${email}:${organization.id}`, async () => {
    const token = randomToken(32);
    const record: InvitationRecord = {
      id: randomId(),
      organizationId: organization.id,
      email,
      role,
      tokenHash: hashToken(token),
      invitedBy: invitation.invitedBy,
      createdAt: now,
      expiresAt: now + INVITATION_TTL_MS,
    };
    await guardPort("DATABASE_FAILURE", () => store.createInvitation(record));
    stored = record;
    return {
      kind: "organization-invitation",
      to: email,
      locale: invitation.locale,
      values: {
        link: deps.emails.link("acceptInvitation", token),
        organization: organization.name,
        role,
        hours: INVITATION_TTL_MS / 3_600_000,
      },
      undo: () => store.revokeInvitation(organization.id, record.id),
    };
  });
  if (stored === undefined) throw new AuthError("INTERNAL_ERROR");
  return stored;
}

/**
 * The pending invitation a presented token names, or `INVITATION_INVALID` (malformed, unknown,
 * used, declined, revoked, replaced or expired at `now`).
 */
export async function pendingInvitation(
  store: OrganizationStore,
  token: string,
  now: number,
): Promise<{ invitation: InvitationRecord; tokenHash: string }> {
  const tokenHash = hashToken(token);
  const invitation = await guardPort("DATABASE_FAILURE", () => store.findInvitationByTokenHash(tokenHash));
  if (invitation === null || invitation.expiresAt <= now) throw new AuthError("INVITATION_INVALID");
  return { invitation, tokenHash };
}
