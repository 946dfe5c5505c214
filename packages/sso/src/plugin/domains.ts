import type { RouteInput, SsoDomainRecord } from "@portcullis/core";
import { AuthError } from "@portcullis/core";
import { domainBody } from "./bodies.js";
import { managerCall } from "./connections.js";
import { jsonAnswer, randomToken, type SsoContext, stored } from "./context.js";
import { domainName, objectBody } from "./input.js";
import { param, ssoRoute } from "./route.js";

/** The TXT record that proves control of a domain: its name and the value it must hold. */
export const verificationRecord = (domain: SsoDomainRecord) => ({
  type: "TXT" as const,
  name: `_portcullis.${domain.domain}`,
  value: `portcullis-domain-verification=${domain.verificationToken}`,
});

/** A claimed domain as the routes answer it. */
const domainView = (domain: SsoDomainRecord) => ({
  domain: domain.domain,
  verified: domain.verifiedAt !== null,
  verifiedAt: domain.verifiedAt === null ? null : new Date(domain.verifiedAt).toISOString(),
  record: verificationRecord(domain),
});

const MANAGE = [
  "AUTHENTICATION_REQUIRED",
  "ORGANIZATION_NOT_FOUND",
  "PERMISSION_DENIED",
  "DATABASE_FAILURE",
] as const;

/** The path's domain, checked (`VALIDATION_FAILED`). */
const domainParam = (input: RouteInput) => domainName(decodeURIComponent(param(input, "domain")), "domain");

/**
 * Whether the domain's TXT records hold the value: a lookup that fails (no such name, no answer,
 * a resolver error) is "not there yet", never a pass.
 */
async function recordPublished(ctx: SsoContext, domain: SsoDomainRecord): Promise<boolean> {
  const { name, value } = verificationRecord(domain);
  const records = await ctx.resolveTxt(name).catch(() => []);
  return records.some((strings) => strings.join("") === value);
}

/** Marks the claim verified; `SSO_DOMAIN_TAKEN` when another organization has it verified. */
async function markVerified(ctx: SsoContext, organizationId: string, domain: string) {
  const outcome = await stored(() => ctx.store.verifySsoDomain(organizationId, domain, ctx.now()));
  if (outcome === "taken") throw new AuthError("SSO_DOMAIN_TAKEN");
  if (outcome === "not-found") throw new AuthError("NOT_FOUND");
  return jsonAnswer(200, { domain: domainView(outcome) });
}

const AT = "/organizations/:id/domains";

/** `POST …/domains { domain }`: claims it (201), or answers the claim made before (200, the same token). */
const claimRoute = (ctx: SsoContext) =>
  ssoRoute(
    ctx,
    {
      method: "POST",
      path: AT,
      summary: "Claim a domain for the organization (sso:manage): the TXT record that verifies it",
      auth: "access",
      errors: [...MANAGE, "VALIDATION_FAILED"],
      body: domainBody,
    },
    async ({ auth, store, now }, input) => {
      const organizationId = param(input, "id");
      const domain = domainName(objectBody(await input.body<unknown>()).domain, "domain");
      await auth.sso.authorize(managerCall(input), { organizationId });
      const claim = {
        organizationId,
        domain,
        verificationToken: randomToken(),
        verifiedAt: null,
        createdAt: now(),
      };
      const created = (await stored(() => store.claimSsoDomain(claim))) === "created";
      const current = created ? claim : await stored(() => store.findSsoDomain(organizationId, domain));
      if (current === null) throw new AuthError("NOT_FOUND");
      return jsonAnswer(created ? 201 : 200, { domain: domainView(current) });
    },
  );

/** `POST …/domains/:domain/verify`: verified once its TXT record is published (a step-up). */
const verifyRoute = (ctx: SsoContext) =>
  ssoRoute(
    ctx,
    {
      method: "POST",
      path: `${AT}/:domain/verify`,
      summary: "Verify a claimed domain by its DNS TXT record (sso:manage, step-up)",
      auth: "step-up",
      errors: [
        ...MANAGE,
        "STEP_UP_REQUIRED",
        "VALIDATION_FAILED",
        "NOT_FOUND",
        "SSO_DOMAIN_CHECK_FAILED",
        "SSO_DOMAIN_TAKEN",
      ],
    },
    async (ctx, input) => {
      const organizationId = param(input, "id");
      const domain = domainParam(input);
      await ctx.auth.sso.authorize(managerCall(input), { organizationId, stepUp: true });
      const claim = await stored(() => ctx.store.findSsoDomain(organizationId, domain));
      if (claim === null) throw new AuthError("NOT_FOUND");
      if (claim.verifiedAt === null && !(await recordPublished(ctx, claim)))
        throw new AuthError("SSO_DOMAIN_CHECK_FAILED");
      return markVerified(ctx, organizationId, domain);
    },
  );

/** `POST /admin/organizations/:id/domains/:domain/verify`: the back office vouches for the domain. */
const adminVerifyRoute = (ctx: SsoContext) =>
  ssoRoute(
    ctx,
    {
      method: "POST",
      path: `/admin${AT}/:domain/verify`,
      summary:
        "Verify an organization's domain without a DNS record (back office): claimed first when it is not",
      auth: "admin",
      errors: [
        "AUTHENTICATION_REQUIRED",
        "ADMIN_REQUIRED",
        "STEP_UP_REQUIRED",
        "ORGANIZATION_NOT_FOUND",
        "VALIDATION_FAILED",
        "SSO_DOMAIN_TAKEN",
        "DATABASE_FAILURE",
      ],
    },
    async (ctx, input) => {
      const organizationId = param(input, "id");
      const domain = domainParam(input);
      await ctx.auth.sso.authorize(managerCall(input), { organizationId, asAdmin: true });
      const claim = {
        organizationId,
        domain,
        verificationToken: randomToken(),
        verifiedAt: null,
        createdAt: ctx.now(),
      };
      await stored(() => ctx.store.claimSsoDomain(claim));
      return markVerified(ctx, organizationId, domain);
    },
  );

/**
 * An organization's domains (`sso:manage`): claim one (its TXT record to publish), list them,
 * verify one by its record (with a step-up), release one (with a step-up); and the back office's
 * verification without a record.
 */
export function domainRoutes(ctx: SsoContext) {
  return [
    claimRoute(ctx),
    ssoRoute(
      ctx,
      {
        method: "GET",
        path: AT,
        summary: "The organization's claimed domains (sso:manage)",
        auth: "access",
        errors: MANAGE,
      },
      async ({ auth, store }, input) => {
        const organizationId = param(input, "id");
        await auth.sso.authorize(managerCall(input), { organizationId });
        const items = await stored(() => store.listSsoDomains(organizationId));
        return jsonAnswer(200, { items: items.map(domainView) });
      },
    ),
    verifyRoute(ctx),
    ssoRoute(
      ctx,
      {
        method: "DELETE",
        path: `${AT}/:domain`,
        summary: "Release a claimed domain (sso:manage, step-up): it routes no sign-in any more",
        auth: "step-up",
        errors: [...MANAGE, "STEP_UP_REQUIRED", "VALIDATION_FAILED", "NOT_FOUND"],
      },
      async ({ auth, store }, input) => {
        const organizationId = param(input, "id");
        const domain = domainParam(input);
        await auth.sso.authorize(managerCall(input), { organizationId, stepUp: true });
        if (!(await stored(() => store.releaseSsoDomain(organizationId, domain))))
          throw new AuthError("NOT_FOUND");
        return jsonAnswer(200, { success: true });
      },
    ),
    adminVerifyRoute(ctx),
  ];
}
