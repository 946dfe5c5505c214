import { AuthError, guardPort } from "../errors.js";
import type { SecurityEvents } from "../events.js";
import type { RequestContext } from "../model.js";
import type { OrganizationStore } from "../ports/organization-store.js";
import type { SsoStore } from "../ports/sso-store.js";
import type { UserRecord } from "../ports/user-store.js";

/**
 * `SSO_REQUIRED` (docs/sso.md, "Requiring SSO"): a sign-in other than through a connection (a
 * password, an email link or code, a passkey, a social identity provider), by an account whose
 * address's domain a connection with `ssoRequired` signs in, is refused once the credential has
 * been checked (only the right credential learns it, so it says nothing about who has an
 * account). The owners of the connection's organization keep this way in, as their recovery path
 * while the identity provider is down or misconfigured. Without the `sso` option: one comparison.
 * A store failure refuses (`DATABASE_FAILURE`), never lets in.
 */
export async function assertSsoNotRequired(
  ctx: { sso: SsoStore | undefined; organizations: OrganizationStore | undefined; events: SecurityEvents },
  user: UserRecord,
  request: RequestContext,
): Promise<void> {
  const { sso, organizations } = ctx;
  if (sso === undefined) return;
  const domain = user.email.slice(user.email.lastIndexOf("@") + 1);
  const route = await guardPort("DATABASE_FAILURE", () => sso.findSsoRoute(domain));
  if (!route?.connection.ssoRequired) return;
  const { organizationId } = route.connection;
  const read = organizations
    ? await guardPort("DATABASE_FAILURE", () => organizations.findMembership(organizationId, user.id))
    : null;
  if (read?.membership.role === "owner") return;
  ctx.events.emit("login.failed", { ...request, userId: user.id, reason: "sso_required" });
  throw new AuthError("SSO_REQUIRED");
}
