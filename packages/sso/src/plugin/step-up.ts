import { AuthError, type Principal, type RouteInput, type SsoConnectionRecord } from "@portcullis/core";
import { stepUpBody } from "./bodies.js";
import { type SsoContext, stored } from "./context.js";
import { objectBody } from "./input.js";
import { ssoRoute } from "./route.js";
import { beginRequest } from "./sign-in.js";

/** The link issuer of a connection's identities (the core's `ssoIssuer`): `urn:portcullis:sso:<id>`. */
const SSO_ISSUER = "urn:portcullis:sso:";

/**
 * The connection the account signs in with: of the connections its identities are linked
 * through, the one of the active organization, else the oldest link's; null when it has none.
 */
async function connectionOfAccount(
  ctx: SsoContext,
  principal: Principal,
): Promise<SsoConnectionRecord | null> {
  const identities = ctx.auth.options.stores.identities;
  if (identities === undefined) return null;
  const links = await stored(() => identities.listByUser(principal.userId));
  const ids = links
    .filter((link) => link.issuer.startsWith(SSO_ISSUER))
    .map((link) => link.issuer.slice(SSO_ISSUER.length));
  const connections = (
    await Promise.all(ids.map((id) => stored(() => ctx.store.findSsoConnection(id))))
  ).filter((connection): connection is SsoConnectionRecord => connection !== null);
  return (
    connections.find((connection) => connection.organizationId === principal.activeOrganizationId) ??
    connections[0] ??
    null
  );
}

/**
 * `POST /sso/step-up { returnTo? }` (signed in): a step-up of this session through the connection
 * the account signs in with, for an account that has no password or passkey of its own (one SSO
 * made). Answers the identity provider's URL, asking it for a fresh login (SAML's ForceAuthn,
 * OpenID Connect's `prompt=login` and `max_age=0`), and the binding cookie; the finish (or the
 * callback) then checks that the login is fresh and is the account's own identity
 * (`auth.sso.stepUp`), and lands on `returnTo` with `?stepUp=1` and the step-up token's cookie;
 * a refused answer (the provider's error, a refused assertion, a stale login, someone else's
 * identity) lands back on `returnTo` with `?error=<code>`, the session still signed in (on the
 * sign-in page only when that session has ended). `NOT_FOUND` for an account no connection signs in.
 */
export function stepUpRoute(ctx: SsoContext) {
  return ssoRoute(
    ctx,
    {
      method: "POST",
      path: "/sso/step-up",
      summary:
        "Step up this session through the account's enterprise sign-in connection: the identity provider's URL for a fresh login",
      auth: "access",
      errors: [
        "NOT_FOUND",
        "IMPERSONATION_NOT_ALLOWED",
        "RATE_LIMITED",
        "VALIDATION_FAILED",
        "DATABASE_FAILURE",
      ],
      body: stepUpBody,
    },
    async (ctx, input) => {
      const { principal } = input as RouteInput & { principal: Principal };
      const raw = await input.body<unknown>();
      const body = raw === undefined || raw === null ? {} : objectBody(raw);
      if (principal.impersonatedBy !== undefined) throw new AuthError("IMPERSONATION_NOT_ALLOWED");
      await ctx.auth.sso.countStart({ request: input.meta });
      const connection = await connectionOfAccount(ctx, principal);
      if (connection === null) throw new AuthError("NOT_FOUND");
      const stepUp = { userId: principal.userId, sessionId: principal.sessionId };
      return beginRequest(ctx, connection, { returnTo: body.returnTo, stepUp });
    },
  );
}
