import { AuthError, guardPort } from "../errors.js";
import type { SsoStore } from "../ports/sso-store.js";
import { isValidEmail, normalizeEmail } from "../support/email-address.js";

/** The provider name of a connection's links and events: `sso:<connectionId>`. */
export const ssoProvider = (connectionId: string) => `sso:${connectionId}`;

/**
 * The issuer a connection's identities are linked under: the connection's own, never the identity
 * provider's entity id or issuer, so that two organizations' connections to one provider (one Okta
 * tenant, say) never share a subject.
 */
export const ssoIssuer = (connectionId: string) => `urn:portcullis:sso:${connectionId}`;

/**
 * `asserted` normalized, when it is an address of a domain `organizationId` has verified (a
 * connection's sign-in or its directory vouches only for those); `SSO_DOMAIN_NOT_VERIFIED`
 * otherwise, for no address or an invalid one too.
 */
export async function addressOfVerifiedDomain(
  store: SsoStore,
  organizationId: string,
  asserted: string | null,
): Promise<string> {
  const email = asserted === null ? "" : normalizeEmail(asserted);
  if (!isValidEmail(email)) throw new AuthError("SSO_DOMAIN_NOT_VERIFIED");
  const domain = email.slice(email.lastIndexOf("@") + 1);
  const claim = await guardPort("DATABASE_FAILURE", () => store.findSsoDomain(organizationId, domain));
  if (claim?.verifiedAt == null) throw new AuthError("SSO_DOMAIN_NOT_VERIFIED");
  return email;
}

/** The `SsoStore`, or `NOT_FOUND` when the `sso` option is not set. */
export function ssoStoreOf(deps: { sso: SsoStore | undefined }): SsoStore {
  if (deps.sso === undefined) throw new AuthError("NOT_FOUND");
  return deps.sso;
}
