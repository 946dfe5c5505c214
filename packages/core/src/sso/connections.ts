import { AuthError } from "../errors.js";
import type { SsoStore } from "../ports/sso-store.js";

/** The provider name of a connection's links and events: `sso:<connectionId>`. */
export const ssoProvider = (connectionId: string) => `sso:${connectionId}`;

/**
 * The issuer a connection's identities are linked under: the connection's own, never the identity
 * provider's entity id or issuer, so that two organizations' connections to one provider (one Okta
 * tenant, say) never share a subject.
 */
export const ssoIssuer = (connectionId: string) => `urn:portcullis:sso:${connectionId}`;

/** The `SsoStore`, or `NOT_FOUND` when the `sso` option is not set. */
export function ssoStoreOf(deps: { sso: SsoStore | undefined }): SsoStore {
  if (deps.sso === undefined) throw new AuthError("NOT_FOUND");
  return deps.sso;
}
