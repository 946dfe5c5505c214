import { isAuthError } from "@portcullis/core";
import { hashOf, type SsoContext, stored } from "./context.js";
import { oidcCallbackUrl, relyingPartyOf } from "./oidc.js";
import { ssoRoute } from "./route.js";
import {
  boundToThisBrowser,
  failure,
  REQUEST,
  refused,
  type StepUpOf,
  samlRoutes,
  signInToApp,
  startRoute,
  stepUpIn,
} from "./sign-in.js";
import { stepUpRoute } from "./step-up.js";

/** What `POST /sso/start` kept for an OpenID Connect request. */
interface OidcRequest {
  connectionId: string;
  codeVerifier: string;
  nonce: string | null;
  binding: string;
  returnTo: string;
  stepUp?: StepUpOf | null;
}

/** The request a `state` names, taken once: null when none (unknown, used, expired, or a SAML one). */
async function takeOidcRequest(ctx: SsoContext, state: string): Promise<OidcRequest | null> {
  if (state.length !== 43) return null;
  const record = await stored(() => ctx.tokens.consumeToken(REQUEST, hashOf(state)));
  const data = record?.data as Partial<OidcRequest> | undefined;
  if (!record || record.expiresAt <= ctx.now() || typeof data?.codeVerifier !== "string") return null;
  return { ...(data as OidcRequest), stepUp: stepUpIn(record.data) };
}

/**
 * `GET /sso/oidc/callback?code=&state=`: the one redirect URI of every OpenID Connect connection.
 * The `state` names the request `POST /sso/start` kept (taken once), and so the connection; the
 * browser must hold that request's binding cookie (a top-level navigation back to our site brings
 * it). Then the relying party (`openid-client`, through the address guard) exchanges the code
 * with PKCE and checks the ID token (signature, issuer, audience, expiry, nonce), and the identity
 * signs in as a SAML one does. Any refusal lands on the sign-in page with `?error=<code>`, or for
 * a step-up (the provider's error answer too) back on the step-up's `returnTo` with it.
 */
function oidcCallbackRoute(ctx: SsoContext) {
  return ssoRoute(
    ctx,
    {
      method: "GET",
      path: "/sso/oidc/callback",
      summary: "OpenID Connect redirect URI of every connection: 302 to the app, signed in or with ?error=",
      auth: "none",
      errors: [],
    },
    async (ctx, input) => {
      const state = input.query.get("state") ?? "";
      const request = await takeOidcRequest(ctx, state);
      if (request === null || !boundToThisBrowser(ctx, input, request.binding))
        return failure(ctx, "SSO_ASSERTION_INVALID");
      const connection = await stored(() => ctx.store.findSsoConnection(request.connectionId));
      if (!connection?.oidc) return refused(ctx, "NOT_FOUND", request);
      try {
        const identity = await relyingPartyOf(ctx, connection).exchange({
          callbackUrl: new URL(`${oidcCallbackUrl(ctx)}?${input.query.toString()}`),
          state,
          codeVerifier: request.codeVerifier,
          nonce: request.nonce,
          // A step-up's ID token must show a login at most 5 minutes old (`auth_time`).
          fresh: Boolean(request.stepUp),
        });
        const { subject, email, name } = identity;
        const { connectionId, returnTo, stepUp } = request;
        return await signInToApp(ctx, input, { connectionId, subject, email, name, returnTo, stepUp });
      } catch (error) {
        if (!isAuthError(error)) throw error;
        ctx.auth.logger.warn(
          {
            event: "sso.oidc_refused",
            connectionId: connection.id,
            code: error.code,
            err: String(error.cause),
          },
          "OpenID Connect answer refused",
        );
        return refused(ctx, error.code, request);
      }
    },
  );
}

/** Every sign-in route: the start, the step-up, SAML's ACS, finish and metadata, and OpenID Connect's callback. */
export const signInRoutes = (ctx: SsoContext) => [
  startRoute(ctx),
  stepUpRoute(ctx),
  ...samlRoutes(ctx),
  oidcCallbackRoute(ctx),
];
