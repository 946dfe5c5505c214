import type { Call, RouteInput, SsoConnectionRecord } from "@portcullis/core";
import { AuthError } from "@portcullis/core";
import { connectionBody } from "./bodies.js";
import { hashOf, jsonAnswer, randomToken, type SsoContext, serviceProvider, stored } from "./context.js";
import { domainList, flag, invalid, objectBody, samlSettings, text } from "./input.js";
import { checkIssuer, oidcCallbackUrl, oidcSettings } from "./oidc.js";
import { param, ssoRoute } from "./route.js";

/** A connection as the routes answer it: never the SCIM token's hash. */
export function connectionView(ctx: Pick<SsoContext, "base">, connection: SsoConnectionRecord) {
  const { id, organizationId, type, saml, oidc, defaultRole, domains, ssoRequired, idpInitiated } =
    connection;
  return {
    id,
    organizationId,
    type,
    saml: saml && { entityId: saml.entityId, ssoUrl: saml.ssoUrl, certificates: saml.certificates.length },
    oidc: oidc && { issuer: oidc.issuer, clientId: oidc.clientId },
    defaultRole,
    domains,
    ssoRequired,
    idpInitiated,
    scim: connection.scimTokenHash !== null,
    // What the identity provider's administrator registers: SAML's entity id, ACS and metadata
    // URLs, or OpenID Connect's redirect URI.
    serviceProvider: saml ? serviceProvider(ctx, id) : { redirectUri: oidcCallbackUrl(ctx) },
    createdAt: new Date(connection.createdAt).toISOString(),
    updatedAt: new Date(connection.updatedAt).toISOString(),
  };
}

/** The call of a signed-in route: its principal, and the step-up token when one came. */
export function managerCall(input: RouteInput): Call {
  const { principal, stepUpToken } = input as RouteInput & {
    principal?: Call["principal"];
    stepUpToken?: string;
  };
  return { principal, stepUpToken, request: input.meta };
}

/** A SCIM bearer token (shown once): `scim_` and 43 random characters. */
const newScimToken = () => `scim_${randomToken()}`;

const AT = "/organizations/:id/sso/connections";
const MANAGE = [
  "AUTHENTICATION_REQUIRED",
  "ORGANIZATION_NOT_FOUND",
  "PERMISSION_DENIED",
  "DATABASE_FAILURE",
] as const;

/**
 * The connection a create's body describes, checked (`VALIDATION_FAILED`), with a new id and SCIM
 * token hash: SAML (`samlSettings`) or OpenID Connect (`oidcSettings`, its client secret sealed).
 * IdP-initiated sign-in exists for SAML only.
 */
function newConnection(
  ctx: SsoContext,
  body: Record<string, unknown>,
  organizationId: string,
  scimToken: string,
  at: number,
) {
  if (body.type !== "saml" && body.type !== "oidc") throw invalid("type", 'must be "saml" or "oidc"');
  const type: "saml" | "oidc" = body.type;
  if (type === "oidc" && body.idpInitiated === true)
    throw invalid("idpInitiated", "exists for SAML connections only");
  return {
    id: randomToken().slice(0, 22),
    organizationId,
    type,
    saml: type === "saml" ? samlSettings(body) : null,
    oidc: type === "oidc" ? oidcSettings(ctx, body) : null,
    defaultRole: body.defaultRole === undefined ? "member" : text(body, "defaultRole", 64),
    domains: domainList(body),
    ssoRequired: flag(body, "ssoRequired", false),
    idpInitiated: flag(body, "idpInitiated", false),
    scimTokenHash: hashOf(scimToken),
    createdAt: at,
    updatedAt: at,
  } satisfies SsoConnectionRecord;
}

/** `POST …/sso/connections`: the body checked before the caller's rights, stored unless a domain is taken. */
const createRoute = (ctx: SsoContext) =>
  ssoRoute(
    ctx,
    {
      method: "POST",
      path: AT,
      summary:
        "Add an enterprise sign-in connection (sso:manage, step-up): 201 with its SCIM token, shown once",
      auth: "step-up",
      errors: [...MANAGE, "STEP_UP_REQUIRED", "VALIDATION_FAILED", "SSO_DOMAIN_TAKEN"],
      body: connectionBody,
    },
    async (ctx, input) => {
      const { auth, store, now } = ctx;
      const organizationId = param(input, "id");
      const scimToken = newScimToken();
      const body = objectBody(await input.body<unknown>());
      const connection = newConnection(ctx, body, organizationId, scimToken, now());
      const { defaultRole } = connection;
      await auth.sso.authorize(managerCall(input), { organizationId, stepUp: true, defaultRole });
      // Only an allowed caller makes the server contact an issuer (through the address guard).
      if (connection.oidc) await checkIssuer(ctx, connection.oidc);
      if ((await stored(() => store.createSsoConnection(connection))) === "domain-taken")
        throw new AuthError("SSO_DOMAIN_TAKEN");
      return jsonAnswer(201, { connection: connectionView(ctx, connection), scimToken });
    },
  );

/**
 * `POST …/sso/connections/:connectionId/scim-token` (`sso:manage`, step-up): a new SCIM token for
 * the connection, shown once; the old one stops working at once (a token lost or leaked).
 */
const rotateScimTokenRoute = (ctx: SsoContext) =>
  ssoRoute(
    ctx,
    {
      method: "POST",
      path: `${AT}/:connectionId/scim-token`,
      summary: "Replace a connection's SCIM token (sso:manage, step-up): the new token, shown once",
      auth: "step-up",
      errors: [...MANAGE, "STEP_UP_REQUIRED", "NOT_FOUND"],
    },
    async ({ auth, store, now }, input) => {
      const organizationId = param(input, "id");
      await auth.sso.authorize(managerCall(input), { organizationId, stepUp: true });
      const scimToken = newScimToken();
      const updated = await stored(() =>
        store.updateSsoConnection(organizationId, param(input, "connectionId"), {
          scimTokenHash: hashOf(scimToken),
          updatedAt: now(),
        }),
      );
      if (updated === null || updated === "domain-taken") throw new AuthError("NOT_FOUND");
      return jsonAnswer(200, { scimToken });
    },
  );

/**
 * An organization's connections (`sso:manage`): create (SAML or OpenID Connect, with a step-up;
 * answers the SCIM token once), list, delete (with a step-up), and a new SCIM token (with a step-up).
 */
export function connectionRoutes(ctx: SsoContext) {
  return [
    createRoute(ctx),
    rotateScimTokenRoute(ctx),
    ssoRoute(
      ctx,
      {
        method: "GET",
        path: AT,
        summary: "The organization's enterprise sign-in connections (sso:manage)",
        auth: "access",
        errors: MANAGE,
      },
      async ({ auth, store }, input) => {
        const organizationId = param(input, "id");
        await auth.sso.authorize(managerCall(input), { organizationId });
        const items = await stored(() => store.listSsoConnections(organizationId));
        return jsonAnswer(200, { items: items.map((connection) => connectionView(ctx, connection)) });
      },
    ),
    ssoRoute(
      ctx,
      {
        method: "DELETE",
        path: `${AT}/:connectionId`,
        summary: "Remove an enterprise sign-in connection (sso:manage, step-up)",
        auth: "step-up",
        errors: [...MANAGE, "STEP_UP_REQUIRED", "NOT_FOUND"],
      },
      async ({ auth, store, scim }, input) => {
        const organizationId = param(input, "id");
        const connectionId = param(input, "connectionId");
        await auth.sso.authorize(managerCall(input), { organizationId, stepUp: true });
        // The connection first: its SCIM token stops working; then its directory goes (a failure
        // there leaves rows no token reaches, as connection ids are never reused). The accounts
        // and their memberships stay: removing a connection removes nobody.
        if (!(await stored(() => store.deleteSsoConnection(organizationId, connectionId))))
          throw new AuthError("NOT_FOUND");
        if (scim !== undefined) await stored(() => scim.removeConnectionScim(connectionId));
        return jsonAnswer(200, { success: true });
      },
    ),
  ];
}
