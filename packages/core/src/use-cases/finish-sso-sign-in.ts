import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import { accountForAddress, linkedAccount } from "../identity/accounts.js";
import type { ProviderIdentity } from "../identity/relying-party.js";
import type { Call, RequestContext } from "../model.js";
import { addMembership, findMember, organizationsOn } from "../organizations/membership.js";
import type { SsoConnectionRecord, SsoStore } from "../ports/sso-store.js";
import type { UserRecord } from "../ports/user-store.js";
import { assertNotLocked } from "../sessions/account-lock.js";
import { finishLogin, type SignedIn } from "../sessions/finish-login.js";
import { addressOfVerifiedDomain, ssoIssuer, ssoProvider, ssoStoreOf } from "../sso/connections.js";
import { describeDevice } from "../support/user-agent.js";
import { startChallenge, type TwoFactorChallenge } from "../two-factor/challenge.js";

/** Who a connection's identity provider says signed in (a SAML assertion, an ID token). */
export interface SsoIdentity {
  /** The provider's stable id of the user (SAML's NameID, OpenID Connect's `sub`). */
  subject: string;
  /** The address it asserts, as given; null when none. */
  email: string | null;
  name: string | null;
}

/** What a connection's sign-in came to, with the organization it signed in to. */
export type SsoSignInResult =
  | { outcome: "signed-in"; organizationId: string; signedIn: SignedIn }
  | { outcome: "two-factor"; organizationId: string; challenge: TwoFactorChallenge };

/**
 * Signs in the user a connection's identity provider vouched for (the plugin has checked the
 * assertion completely and used it once). The account is the one linked to the connection's
 * subject; else, for an address whose domain the connection's organization has verified, the
 * account of that address (linked now; refused while that account's address is unverified, so
 * whoever registered it unverified gains nothing) or a new password-less one with the address
 * verified. An address of another domain never signs in: `SSO_DOMAIN_NOT_VERIFIED`. The user
 * then becomes a member with the connection's default role unless a member already, and the
 * account's own 2FA still applies (the identity provider's MFA is not ours to see).
 */
export async function finishSsoSignIn(
  ctx: AuthContext,
  { request = {} }: Call,
  input: { connectionId: string; identity: SsoIdentity },
): Promise<SsoSignInResult> {
  const store = ssoStoreOf(ctx);
  const organizations = organizationsOn(ctx);
  const connection = await guardPort("DATABASE_FAILURE", () => store.findSsoConnection(input.connectionId));
  if (connection === null) throw new AuthError("NOT_FOUND");
  const { user, registered } = await accountFor(ctx, store, connection, input.identity, request);
  assertNotLocked(user);
  await joinOrganization(ctx, organizations, connection, user, request);
  const { organizationId } = connection;
  if (user.twoFactor.methods.length > 0) {
    const device = describeDevice(undefined, request.userAgent);
    const locale = request.locale ?? ctx.translator.defaultLocale;
    const challenge = await startChallenge(ctx, user, { kind: "login", ...device }, locale);
    return { outcome: "two-factor", organizationId, challenge };
  }
  const signedIn = await finishLogin(ctx, user, undefined, request, {
    reason: ssoProvider(connection.id),
    registered,
  });
  return { outcome: "signed-in", organizationId, signedIn };
}

/** The account the identity signs in to (see `finishSsoSignIn`). */
async function accountFor(
  ctx: AuthContext,
  store: SsoStore,
  connection: SsoConnectionRecord,
  { subject, email: asserted, name }: SsoIdentity,
  request: RequestContext,
): Promise<{ user: UserRecord; registered: boolean }> {
  const provider = ssoProvider(connection.id);
  const identity: ProviderIdentity = {
    issuer: ssoIssuer(connection.id),
    subject,
    email: asserted,
    emailVerified: true,
    name,
  };
  const linked = await linkedAccount(ctx, identity);
  if (linked) return { user: linked, registered: false };
  const email = await addressOfVerifiedDomain(store, connection.organizationId, asserted);
  return accountForAddress(ctx, { email, provider, identity, reason: provider }, request);
}

/**
 * Makes the user a member with the connection's default role, unless a member already (the role
 * stays). A custom default role deleted since the connection was made is still given: the core
 * reads a role without stored permissions as none, so nothing is granted until an admin fixes it.
 */
async function joinOrganization(
  ctx: AuthContext,
  organizations: ReturnType<typeof organizationsOn>,
  connection: SsoConnectionRecord,
  user: UserRecord,
  request: RequestContext,
): Promise<void> {
  const { organizationId } = connection;
  if ((await findMember(organizations, organizationId, user.id)) !== null) return;
  const membership = {
    organizationId,
    userId: user.id,
    role: connection.defaultRole,
    joinedAt: ctx.clock.now(),
  };
  if ((await addMembership(organizations, membership)) === "added")
    ctx.events.emit("member.joined", {
      ...request,
      userId: user.id,
      actor: user.id,
      organizationId,
      reason: membership.role,
    });
}
