import type { SqlDialect } from "./context.js";
import type { HotCalls, PlannedStores, Series } from "./query-plans-support.js";

/**
 * Test support for query-plans.test.ts (not part of the package's exports): the SSO tables filled
 * and the SSO store's calls, in that file's terms.
 */

/**
 * `rows` connections (`sc<n>` of organization `o<n>`, naming `d<n>.example.com`, SCIM token hash
 * `sh<n>`), their domains' rows, each organization's claim of its domain (verified for even `n`),
 * and `rows` used assertions, live until a day after `now`.
 */
export function ssoFillStatements(series: Series, dialect: SqlDialect, rows: number, now: number): string[] {
  const no = dialect === "postgres" ? "false" : "0";
  const later = now + 86_400_000;
  const domain = `'d' || n || '.example.com'`;
  return [
    series(
      rows,
      `'sc' || n, 'o' || n, 'saml', '{}', 'member', '["d' || n || '.example.com"]', ${no}, ${no}, 'sh' || n, ${now}, ${now}`,
      "portcullis_sso_connections",
      "id, organization_id, type, saml, default_role, domains, sso_required, idp_initiated, scim_token_hash, created_at, updated_at",
    ),
    series(rows, `${domain}, 'sc' || n`, "portcullis_sso_connection_domains", "domain, connection_id"),
    series(
      rows,
      `'o' || n, ${domain}, 'token', case when n % 2 = 0 then ${now} end, case when n % 2 = 0 then ${domain} end, ${now}`,
      "portcullis_sso_domains",
      "organization_id, domain, verification_token, verified_at, verified_domain, created_at",
    ),
    series(
      rows,
      `'sc' || n, 'a' || n, ${later}`,
      "portcullis_sso_assertions",
      "connection_id, assertion_id, expires_at",
    ),
  ];
}

/** The SSO store's calls: the reads of every sign-in and SCIM request, and the changes. */
export function ssoCalls(stores: PlannedStores, now: number): HotCalls {
  const sso = stores.sso;
  const connection = {
    id: "sc-new",
    organizationId: "o3",
    type: "saml" as const,
    saml: { entityId: "https://idp.example.com", ssoUrl: "https://idp.example.com/sso", certificates: [] },
    oidc: null,
    defaultRole: "member",
    domains: ["new.example.com"],
    ssoRequired: false,
    idpInitiated: false,
    scimTokenHash: null,
    createdAt: now,
    updatedAt: now,
  };
  const claim = {
    organizationId: "o3",
    domain: "new.example.com",
    verificationToken: "t",
    verifiedAt: null,
    createdAt: now,
  };
  return [
    ["sso.findSsoRoute (verified)", () => sso.findSsoRoute("d6.example.com")],
    ["sso.findSsoRoute (claimed only)", () => sso.findSsoRoute("d7.example.com")],
    ["sso.findSsoConnectionByScimTokenHash", () => sso.findSsoConnectionByScimTokenHash("sh5")],
    ["sso.findSsoConnection", () => sso.findSsoConnection("sc5")],
    ["sso.listSsoConnections", () => sso.listSsoConnections("o5")],
    ["sso.createSsoConnection", () => sso.createSsoConnection(connection)],
    [
      "sso.updateSsoConnection",
      () =>
        sso.updateSsoConnection("o9", "sc9", {
          domains: ["d9.example.com", "x9.example.com"],
          updatedAt: now,
        }),
    ],
    ["sso.deleteSsoConnection", () => sso.deleteSsoConnection("o10", "sc10")],
    ["sso.claimSsoDomain", () => sso.claimSsoDomain(claim)],
    ["sso.listSsoDomains", () => sso.listSsoDomains("o5")],
    ["sso.findSsoDomain", () => sso.findSsoDomain("o5", "d5.example.com")],
    ["sso.verifySsoDomain", () => sso.verifySsoDomain("o11", "d11.example.com", now)],
    ["sso.releaseSsoDomain", () => sso.releaseSsoDomain("o13", "d13.example.com")],
    ["sso.useSsoAssertion", () => sso.useSsoAssertion("sc5", "a-new", now + 60_000)],
    ["sso.removeOrganizationSso", () => sso.removeOrganizationSso("o12")],
  ];
}
