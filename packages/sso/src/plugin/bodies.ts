import { z } from "zod";

// The JSON bodies of the plugin's routes as the OpenAPI document shows them. The routes check
// their bodies themselves (input.ts, oidc.ts, with messages of their own); bodies.test.ts holds
// these schemas to what the routes accept.

/** What every connection may add to its identity provider's settings. */
const connectionCommon = {
  defaultRole: z
    .string()
    .max(64)
    .optional()
    .describe("The role of a user's first sign-in; default member, never owner"),
  domains: z
    .array(z.string().max(253))
    .max(20)
    .optional()
    .describe("Domains whose addresses it signs in (each verified first)"),
  ssoRequired: z
    .boolean()
    .optional()
    .describe("Other sign-in methods refused for its domains (403 SSO_REQUIRED)"),
};

/** `POST /organizations/:id/sso/connections`: SAML (its metadata, or typed in) or OpenID Connect. */
export const connectionBody = z.union([
  z.object({
    type: z.literal("saml"),
    metadataXml: z.string().describe("The identity provider's metadata document (XML)"),
    idpInitiated: z.boolean().optional(),
    ...connectionCommon,
  }),
  z.object({
    type: z.literal("saml"),
    entityId: z.string().max(1024),
    ssoUrl: z.string().max(2048).describe("https (http only on a loopback host)"),
    certificate: z.string().max(16_384).optional().describe("PEM; or certificates"),
    certificates: z.array(z.string().max(16_384)).min(1).max(3).optional(),
    idpInitiated: z.boolean().optional(),
    ...connectionCommon,
  }),
  z.object({
    type: z.literal("oidc"),
    issuer: z.string().max(2048).describe("The issuer URL, https, without /.well-known/openid-configuration"),
    clientId: z.string().max(512),
    clientSecret: z.string().max(4096).describe("Stored sealed; never answered"),
    ...connectionCommon,
  }),
]);

/** `POST /organizations/:id/domains`. */
export const domainBody = z.object({ domain: z.string().max(253).describe("e.g. example.com") });

/** `POST /sso/start`: an address, or an organization's slug. */
export const startBody = z.union([
  z.object({ email: z.string().max(254), returnTo: z.string().max(2048).optional() }),
  z.object({ organization: z.string().max(48), returnTo: z.string().max(2048).optional() }),
]);

/** `POST /sso/step-up`: where to land afterwards (a path on the app); the body may be left out. */
export const stepUpBody = z.object({ returnTo: z.string().max(2048).optional() }).optional();
