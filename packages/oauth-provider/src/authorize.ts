import type { HttpResponse, Principal, RouteInput } from "@portcullis/core";
import {
  type AuthorizationRequest,
  checkAuthorizationRequest,
  clientAndRedirect,
  type SignInDemands,
} from "./authorization-request.js";
import { OAuthError } from "./oauth-error.js";
import {
  hashOf,
  oauthJson,
  type ProviderContext,
  randomToken,
  redirectTo,
  withQuery,
} from "./provider-context.js";

/** The purpose of an authorization code in the single-use token store. */
export const CODE_PURPOSE = "oauth-code";
/** The purpose of a consent request's single-use mark. */
export const CONSENT_PURPOSE = "oauth-consent";

/**
 * Issues an authorization code for `request` (single use, `lifetimes.code`, bound to the client,
 * the redirect URI and the PKCE challenge): the redirect URI with `code`, `state` and `iss`.
 */
export async function issueCode(
  ctx: ProviderContext,
  request: AuthorizationRequest,
  userId: string,
  authTime: number,
): Promise<string> {
  const code = randomToken();
  const lifetimeMs = ctx.lifetimes.code * 1000;
  await ctx.tokens.saveToken(
    {
      purpose: CODE_PURPOSE,
      tokenHash: hashOf(code),
      userId,
      expiresAt: ctx.now() + lifetimeMs,
      data: {
        clientId: request.clientId,
        redirectUri: request.redirectUri,
        scope: request.scopes.join(" "),
        resource: request.resources.join(" "),
        codeChallenge: request.codeChallenge,
        nonce: request.nonce ?? null,
        authTime,
      },
    },
    // Kept past its expiry, so an expired code is told from an unknown one (and revokes nothing).
    lifetimeMs + 60_000,
  );
  return withQuery(request.redirectUri, { code, state: request.state, iss: ctx.issuer });
}

/** What a consent request's id seals: the request, for whom, since when signed in, until when. */
export interface ConsentRequest {
  request: AuthorizationRequest;
  userId: string;
  authTime: number;
  expiresAt: number;
}

/** A consent request: its id seals the request (so the page can show it), its use is single (the store's mark). */
async function createConsentRequest(ctx: ProviderContext, consent: ConsentRequest): Promise<string> {
  const consentId = ctx.consentSealer.seal(JSON.stringify(consent));
  await ctx.tokens.saveToken(
    {
      purpose: CONSENT_PURPOSE,
      tokenHash: hashOf(consentId),
      userId: consent.userId,
      expiresAt: consent.expiresAt,
    },
    ctx.lifetimes.consentRequest * 1000,
  );
  return consentId;
}

/** Whether the user must sign in again first: `prompt=login`, a `max_age` passed, or a forced sign-in not yet done. */
function mustSignInAgain(now: number, authTime: number, demands: SignInDemands): boolean {
  if (demands.signedInAfter !== undefined) return authTime <= demands.signedInAfter;
  if (demands.prompt.has("login")) return true;
  return demands.maxAge !== undefined && now - authTime > demands.maxAge * 1000;
}

/**
 * To the app's sign-in page, and back to this authorization request afterwards. A forced sign-in
 * (`prompt=login`, `max_age`) comes back without `prompt=login` but with `signed_in_after`, so the
 * way back does not ask again, and the page gets `reauth=1` (sign in even when signed in).
 */
function toSignIn(ctx: ProviderContext, input: RouteInput<"optional">, forced: boolean): HttpResponse {
  const back = new URL(input.request.url, ctx.appOrigin);
  if (forced) {
    const prompt = (back.searchParams.get("prompt") ?? "")
      .split(" ")
      .filter((value) => value !== "login" && value);
    if (prompt.length > 0) back.searchParams.set("prompt", prompt.join(" "));
    else back.searchParams.delete("prompt");
    back.searchParams.set("signed_in_after", String(ctx.now()));
  }
  const returnTo = encodeURIComponent(back.pathname + back.search);
  return redirectTo(`${ctx.appOrigin}${ctx.pages.login}?returnTo=${returnTo}${forced ? "&reauth=1" : ""}`);
}

/** When the principal's session signed in (ms): its session's start. */
async function authTimeOf(ctx: ProviderContext, principal: Principal): Promise<number> {
  const session = await ctx.auth.options.stores.sessions.getSession(principal.sessionId);
  return session?.createdAt ?? 0;
}

/** The authorization of a checked request: sign-in, consent, then the code. */
async function authorizeChecked(
  ctx: ProviderContext,
  input: RouteInput<"optional">,
  request: AuthorizationRequest,
  demands: SignInDemands,
): Promise<HttpResponse> {
  const { principal } = input;
  const silent = demands.prompt.has("none");
  if (principal === undefined) {
    if (silent) throw new OAuthError("login_required", "no one is signed in");
    return toSignIn(ctx, input, false);
  }
  if (principal.impersonatedBy !== undefined)
    throw new OAuthError("access_denied", "an impersonation session grants no app access");
  const authTime = await authTimeOf(ctx, principal);
  if (mustSignInAgain(ctx.now(), authTime, demands)) {
    if (silent) throw new OAuthError("login_required", "the sign-in is too old for this request");
    return toSignIn(ctx, input, true);
  }
  const consent = await ctx.oauth.getOAuthConsent(principal.userId, request.clientId);
  const covered = consent !== null && request.scopes.every((scope) => consent.scopes.includes(scope));
  if (covered && !demands.prompt.has("consent"))
    return redirectTo(await issueCode(ctx, request, principal.userId, authTime));
  if (silent) throw new OAuthError("consent_required", "the user has not consented to this client and scope");
  const expiresAt = ctx.now() + ctx.lifetimes.consentRequest * 1000;
  const consentId = await createConsentRequest(ctx, {
    request,
    userId: principal.userId,
    authTime,
    expiresAt,
  });
  return redirectTo(`${ctx.appOrigin}${ctx.pages.consent}?consentId=${encodeURIComponent(consentId)}`);
}

/**
 * `GET <prefix>/oauth2/authorize` (RFC 6749 §4.1.1 with PKCE, OpenID Connect Core §3.1.2): an
 * unknown client or a redirect URI not the client's answers 400 and never redirects; every other
 * refusal goes back to the redirect URI with `error`, `state` and `iss`.
 */
export async function authorize(ctx: ProviderContext, input: RouteInput<"optional">): Promise<HttpResponse> {
  let target: Awaited<ReturnType<typeof clientAndRedirect>>;
  try {
    target = await clientAndRedirect(ctx, input.query);
  } catch (error) {
    if (error instanceof OAuthError) return oauthJson(error.status, error.toJSON());
    throw error;
  }
  try {
    const { request, demands } = checkAuthorizationRequest(
      ctx,
      target.client,
      target.redirectUri,
      input.query,
    );
    return await authorizeChecked(ctx, input, request, demands);
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    return redirectTo(
      withQuery(target.redirectUri, {
        error: error.error,
        error_description: error.description,
        state: input.query.get("state") ?? undefined,
        iss: ctx.issuer,
      }),
    );
  }
}
