/**
 * The identity provider side of a SAML 2.0 connection: who signs, where the browser is sent, and
 * the certificates its signatures are checked with (PEM; more than one while the provider rotates).
 */
export interface SamlConnectionSettings {
  /** The identity provider's entity id (the `Issuer` of its responses). */
  entityId: string;
  /** Its single sign-on URL (HTTP-Redirect binding), where the AuthnRequest is sent. */
  ssoUrl: string;
  /** PEM certificates (at least one); a response signed by any of them is accepted. */
  certificates: string[];
}

/** An OpenID Connect identity provider of one organization (discovery at `<issuer>/.well-known/openid-configuration`). */
export interface OidcConnectionSettings {
  issuer: string;
  clientId: string;
  /**
   * The client secret, sealed by the plugin with a key derived from the host's `secret` (so a read
   * of the store alone does not give it away); never answered by any route.
   */
  sealedClientSecret: string;
}

/**
 * An organization's enterprise sign-in connection (docs/sso.md): a SAML or an OpenID Connect
 * identity provider, the addresses it signs in (its domains, once verified for the organization),
 * and the SCIM token that provisions its users. The store keeps it as given.
 */
export interface SsoConnectionRecord {
  /** Random and unique. */
  id: string;
  organizationId: string;
  type: "saml" | "oidc";
  /** Set when `type` is "saml", else null. */
  saml: SamlConnectionSettings | null;
  /** Set when `type` is "oidc", else null. */
  oidc: OidcConnectionSettings | null;
  /** The role a user it signs in for the first time gets in the organization. */
  defaultRole: string;
  /**
   * The domains (lowercase, no trailing dot) whose addresses it signs in: each must be verified
   * for the organization (`SsoDomainRecord`) before it routes anything. A domain belongs to at
   * most one connection (`createSsoConnection` and `updateSsoConnection` answer "domain-taken").
   */
  domains: string[];
  /** Password, email-link, code and passkey sign-in of its domains' addresses answer 403 SSO_REQUIRED. */
  ssoRequired: boolean;
  /** Whether an identity provider may start a sign-in unasked (SAML's IdP-initiated flow); off by default. */
  idpInitiated: boolean;
  /** SHA-256 (base64url) of the SCIM bearer token (shown once); null when it has none. */
  scimTokenHash: string | null;
  /** ms since the epoch. */
  createdAt: number;
  /** ms since the epoch. */
  updatedAt: number;
}

/** What `updateSsoConnection` may change; absent fields stay. */
export type SsoConnectionPatch = Partial<
  Pick<
    SsoConnectionRecord,
    "saml" | "oidc" | "defaultRole" | "domains" | "ssoRequired" | "idpInitiated" | "scimTokenHash"
  >
>;

/**
 * A domain an organization claims (docs/sso.md, "Verified domains"): verified by a DNS TXT record
 * `_portcullis.<domain>` holding `verificationToken`, or by an admin. A domain may be claimed by
 * several organizations, but verified for one at most.
 */
export interface SsoDomainRecord {
  organizationId: string;
  /** Lowercase, no trailing dot, e.g. `example.com`. */
  domain: string;
  /** The random value the TXT record must hold (not secret: anyone may read DNS). */
  verificationToken: string;
  /** ms since the epoch; null until verified. */
  verifiedAt: number | null;
  /** ms since the epoch. */
  createdAt: number;
}

/** A connection with the verified domain that routes an address to it (`findSsoRoute`). */
export interface SsoRoute {
  connection: SsoConnectionRecord;
  domain: SsoDomainRecord;
}

/**
 * Enterprise sign-in's state (docs/sso.md): connections, claimed and verified domains, and the
 * assertions already used. Given to `createSso({ stores: { sso } })` of `@portcullis/sso`; the
 * SAML request a browser started lives in the `SingleUseTokenStore` (purpose `sso-request`). Every
 * method rejects only when the store itself fails.
 */
export interface SsoStore {
  /**
   * Stores a new connection (its id is new: random; a store may reject a duplicate id as a
   * failure). "domain-taken" (nothing stored) when one of its domains already
   * belongs to another connection, of any organization; atomic against a concurrent create or
   * update naming the same domain: of such calls, at most one succeeds.
   */
  createSsoConnection(connection: SsoConnectionRecord): Promise<"created" | "domain-taken">;
  /** The connection with this id, or null. */
  findSsoConnection(id: string): Promise<SsoConnectionRecord | null>;
  /** The organization's connections, oldest first. */
  listSsoConnections(organizationId: string): Promise<SsoConnectionRecord[]>;
  /**
   * Changes the connection of this organization: the connection as it is now; null when there is
   * none with this id in this organization; "domain-taken" (nothing changed) as for create.
   */
  updateSsoConnection(
    organizationId: string,
    id: string,
    patch: SsoConnectionPatch & { updatedAt: number },
  ): Promise<SsoConnectionRecord | null | "domain-taken">;
  /** Deletes the connection of this organization; false when there is none. Its domains stay claimed. */
  deleteSsoConnection(organizationId: string, id: string): Promise<boolean>;
  /** The connection whose SCIM token has this hash, or null (one indexed read: every SCIM request makes it). */
  findSsoConnectionByScimTokenHash(tokenHash: string): Promise<SsoConnectionRecord | null>;
  /**
   * The connection that signs in addresses of `domain` (lowercase): one naming it in `domains`
   * whose organization has it verified; null otherwise (unclaimed, unverified, or verified by an
   * organization none of whose connections names it). One round trip: every password sign-in of
   * a host with connections asks it (`ssoRequired`).
   */
  findSsoRoute(domain: string): Promise<SsoRoute | null>;

  /**
   * Claims a domain for an organization (given with `verifiedAt` null: a claim starts
   * unverified): "created", or "exists" (nothing changed, so the verification token first shown
   * stays) when this organization has claimed it already. Atomic: of concurrent claims of one
   * domain by one organization, exactly one is "created".
   */
  claimSsoDomain(domain: SsoDomainRecord): Promise<"created" | "exists">;
  /** The organization's claimed domains, verified or not, in order of name. */
  listSsoDomains(organizationId: string): Promise<SsoDomainRecord[]>;
  /** This organization's claim of the domain, or null. */
  findSsoDomain(organizationId: string, domain: string): Promise<SsoDomainRecord | null>;
  /**
   * Marks the organization's claim verified at `at` (kept when already verified): the record as
   * it is now; "not-found" when this organization has not claimed it (whoever else has); "taken"
   * (nothing changed) when another organization has it verified. Atomic: of concurrent verifications of one domain
   * by several organizations, at most one succeeds.
   */
  verifySsoDomain(
    organizationId: string,
    domain: string,
    at: number,
  ): Promise<SsoDomainRecord | "not-found" | "taken">;
  /**
   * Drops the organization's claim; false when there was none. Connections naming it keep the
   * name, but route nothing for it until it is verified again.
   */
  releaseSsoDomain(organizationId: string, domain: string): Promise<boolean>;

  /**
   * Records that a connection's assertion (its ID) was used, until `expiresAt` (ms; the assertion's
   * own end, after which it is refused anyway): true the first time, false for every later call
   * with the same connection and id while the record lasts. Atomic: of concurrent calls, exactly
   * one gets true, across every instance sharing the store. The store may forget it after
   * `expiresAt`.
   */
  useSsoAssertion(connectionId: string, assertionId: string, expiresAt: number): Promise<boolean>;
  /**
   * Removes every connection and claim of the organization (it was deleted). Its used assertions
   * may stay until they expire: connection ids are never reused.
   */
  removeOrganizationSso(organizationId: string): Promise<void>;
}
