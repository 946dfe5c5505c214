// The store of one SsoStore conformance test, and the connections and domain claims its tests
// share (sso-store-suite.ts, sso-store-domains.ts, sso-store-assertions.ts).
import { randomBytes } from "node:crypto";
import type { SsoConnectionRecord, SsoDomainRecord, SsoStore } from "@portcullis/core";
import { expect } from "vitest";
import { type StoreFixture, storeContext } from "./store-fixture.js";

/** The time the records of a test are made from, in milliseconds since the Unix epoch. */
export const T0 = 1_700_000_000_000;

/** One hour, in milliseconds. */
export const HOUR = 3_600_000;

/** The time domains are verified and connections updated at (the store compares none of them). */
export const NOW = T0 + HOUR;

/** A random SHA-256 (base64url), as the plugin stores SCIM tokens. */
export const newHash = () => randomBytes(32).toString("base64url");

/** A random organization id. */
export const newOrganizationId = () => `org-${randomBytes(12).toString("hex")}`;

/** A random connection id, of mixed case (ids are compared byte for byte). */
export const newConnectionId = () => `Conn-${randomBytes(16).toString("base64url")}`;

/** A random SAML assertion ID (an xs:ID: a letter or `_` first), of mixed case. */
export const newAssertionId = () => `_Id${randomBytes(20).toString("hex")}A`;

/** A random lowercase domain, no trailing dot; `first` (a lowercase letter) fixes its first character. */
export const newDomain = (first = "d") => `${first}${randomBytes(8).toString("hex")}.example.com`;

/** `text` with the case of each letter swapped: ids, domains and hashes are compared byte for byte. */
export const swapCase = (text: string) =>
  text.replace(/[a-z]/gi, (letter) =>
    letter === letter.toUpperCase() ? letter.toLowerCase() : letter.toUpperCase(),
  );

/** `claims` in code unit order of their domains (`listSsoDomains`'s order), a new array. */
export const byDomain = (claims: SsoDomainRecord[]) =>
  [...claims].sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));

/** A made-up PEM certificate (the store keeps it as text), line breaks included. */
const pem = (label: string) =>
  `-----BEGIN CERTIFICATE-----\nMIIC${label}${randomBytes(24).toString("base64")}\n${randomBytes(24).toString("base64")}==\n-----END CERTIFICATE-----\n`;

/** SAML settings of a made-up identity provider: two certificates (it is rotating), in that order. */
export const samlSettings = () => ({
  entityId: `https://idp.example.com/${randomBytes(6).toString("hex")}/metadata`,
  ssoUrl: "https://idp.example.com/saml/sso?tenant=Zoë&x=1",
  certificates: [pem("Zz"), pem("Aa")],
});

/** OpenID Connect settings of a made-up identity provider. */
export const oidcSettings = () => ({
  issuer: `https://login.example.com/${randomBytes(6).toString("hex")}/v2.0`,
  clientId: randomBytes(16).toString("hex"),
  sealedClientSecret: `v1.${randomBytes(48).toString("base64url")}`,
});

/** Makers of one test: each connection is made 1 s after the one before. */
function makers() {
  let ticks = 0;
  /** A SAML connection of a new organization, naming two new domains (unless overridden). */
  const connection = (overrides: Partial<SsoConnectionRecord> = {}): SsoConnectionRecord => {
    const at = T0 + ++ticks * 1_000;
    return {
      id: newConnectionId(),
      organizationId: newOrganizationId(),
      type: "saml",
      saml: samlSettings(),
      oidc: null,
      defaultRole: "member",
      domains: [newDomain("m"), newDomain("b")],
      ssoRequired: false,
      idpInitiated: false,
      scimTokenHash: newHash(),
      createdAt: at,
      updatedAt: at,
      ...overrides,
    };
  };
  /** An OpenID Connect connection, likewise. */
  const oidcConnection = (overrides: Partial<SsoConnectionRecord> = {}) =>
    connection({ type: "oidc", saml: null, oidc: oidcSettings(), ...overrides });
  /** An unverified claim of `domain` by `organizationId`. */
  const claim = (
    organizationId: string,
    domain: string,
    overrides: Partial<SsoDomainRecord> = {},
  ): SsoDomainRecord => ({
    organizationId,
    domain,
    verificationToken: randomBytes(16).toString("base64url"),
    verifiedAt: null,
    createdAt: T0,
    ...overrides,
  });
  return { connection, oidcConnection, claim };
}

/**
 * The store of one test (in which other tests' records may be), makers of its records, and
 * shortcuts that store what they make (a copy, so the test's record cannot be changed by the
 * store) and check that it was stored: `storedConnection`, `claimedDomain`, `verifiedDomain`
 * (claimed, then verified at `NOW`: the record as verified), and `routedConnection` (a stored
 * connection whose domains its organization has all verified: it and its claims).
 */
export function ssoContext(fixture: StoreFixture<SsoStore>) {
  const made = makers();
  const store = fixture.store;
  const storedConnection = async (overrides: Partial<SsoConnectionRecord> = {}) => {
    const connection = made.connection(overrides);
    expect(await store.createSsoConnection(structuredClone(connection))).toBe("created");
    return connection;
  };
  const claimedDomain = async (organizationId: string, domain = newDomain()) => {
    const claim = made.claim(organizationId, domain);
    expect(await store.claimSsoDomain(structuredClone(claim))).toBe("created");
    return claim;
  };
  const verifiedDomain = async (organizationId: string, domain = newDomain()) => {
    const claim = { ...(await claimedDomain(organizationId, domain)), verifiedAt: NOW };
    expect(await store.verifySsoDomain(organizationId, domain, NOW)).toEqual(claim);
    return claim;
  };
  const routedConnection = async (overrides: Partial<SsoConnectionRecord> = {}) => {
    const connection = await storedConnection(overrides);
    const claims: SsoDomainRecord[] = [];
    for (const domain of connection.domains)
      claims.push(await verifiedDomain(connection.organizationId, domain));
    return { connection, claims };
  };
  /** The store's clock now (the fixture's `now`, else `Date.now`), for `useSsoAssertion`'s `expiresAt`. */
  const storeNow = async () => (fixture.now ? await fixture.now() : Date.now());
  return {
    ...storeContext(fixture),
    ...made,
    storedConnection,
    claimedDomain,
    verifiedDomain,
    routedConnection,
    storeNow,
  };
}

export type SsoContext = ReturnType<typeof ssoContext>;

/** The tests of one describe block of the suite. */
export type SsoTests = Record<string, (context: SsoContext) => unknown>;
