import type { HttpResponse, RouteInput } from "@portcullis/core";
import { CONSENT_PURPOSE, type ConsentRequest, issueCode } from "./authorize.js";
import { OAuthError } from "./oauth-error.js";
import { hashOf, oauthJson, type ProviderContext, withQuery } from "./provider-context.js";

/** The consent request `consentId` seals, when it is the caller's and has not expired. */
function openConsent(ctx: ProviderContext, consentId: unknown, userId: string): ConsentRequest {
  const opened = typeof consentId === "string" ? ctx.consentSealer.open(consentId) : null;
  const consent = opened === null ? null : (JSON.parse(opened) as ConsentRequest);
  if (consent === null || consent.userId !== userId || consent.expiresAt <= ctx.now())
    throw new OAuthError("invalid_request", "the consent request is unknown, someone else's or expired");
  return consent;
}

const refused = (error: unknown): HttpResponse => {
  if (error instanceof OAuthError) return oauthJson(error.status, error.toJSON());
  throw error;
};

/** `GET <prefix>/oauth2/consent?consentId=…`: what the consent page shows (the client, the scopes). */
export async function showConsent(ctx: ProviderContext, input: RouteInput<"access">): Promise<HttpResponse> {
  try {
    const { request } = openConsent(ctx, input.query.get("consentId"), input.principal.userId);
    const client = await ctx.clients.get(request.clientId);
    if (client === null) throw new OAuthError("invalid_request", "the client is gone");
    return oauthJson(200, {
      client: { clientId: client.clientId, name: client.name },
      scopes: request.scopes,
      redirectOrigin: new URL(request.redirectUri).origin,
    });
  } catch (error) {
    return refused(error);
  }
}

/**
 * `POST <prefix>/oauth2/consent { consentId, approve }`: the signed-in user's answer, once per
 * request. Approval remembers the consent (widened to these scopes) and answers the redirect URI
 * with a code; a refusal answers it with `error=access_denied`.
 */
export async function decideConsent(
  ctx: ProviderContext,
  input: RouteInput<"access">,
): Promise<HttpResponse> {
  try {
    const body = (await input.body<{ consentId?: unknown; approve?: unknown }>()) ?? {};
    if (typeof body.approve !== "boolean")
      throw new OAuthError("invalid_request", "approve must be true or false");
    const { userId } = input.principal;
    const consent = openConsent(ctx, body.consentId, userId);
    const { request } = consent;
    if ((await ctx.tokens.consumeToken(CONSENT_PURPOSE, hashOf(body.consentId as string))) === null)
      throw new OAuthError("invalid_request", "the consent request was answered already");
    if (!body.approve)
      return oauthJson(200, {
        redirectTo: withQuery(request.redirectUri, {
          error: "access_denied",
          error_description: "the user refused",
          state: request.state,
          iss: ctx.issuer,
        }),
      });
    const now = ctx.now();
    const earlier = await ctx.oauth.getOAuthConsent(userId, request.clientId);
    await ctx.oauth.saveOAuthConsent({
      userId,
      clientId: request.clientId,
      scopes: [...new Set([...(earlier?.scopes ?? []), ...request.scopes])],
      createdAt: earlier?.createdAt ?? now,
      updatedAt: now,
    });
    return oauthJson(200, { redirectTo: await issueCode(ctx, request, userId, consent.authTime) });
  } catch (error) {
    return refused(error);
  }
}

/** `GET <prefix>/oauth2/grants`: the apps the signed-in user has authorized, with their scopes. */
export async function listGrants(ctx: ProviderContext, input: RouteInput<"access">): Promise<HttpResponse> {
  const consents = await ctx.oauth.listOAuthConsents(input.principal.userId);
  const clients = await Promise.all(consents.map((consent) => ctx.clients.get(consent.clientId)));
  const grants = consents.flatMap((consent, index) => {
    const client = clients[index];
    return client
      ? [
          {
            clientId: consent.clientId,
            name: client.name,
            scopes: consent.scopes,
            createdAt: new Date(consent.createdAt).toISOString(),
            updatedAt: new Date(consent.updatedAt).toISOString(),
          },
        ]
      : [];
  });
  return oauthJson(200, { grants });
}

/**
 * `DELETE <prefix>/oauth2/grants/:clientId`: withdraws the user's consent to the client and
 * revokes every grant it holds for the user (their refresh tokens stop working at once).
 */
export async function revokeGrants(ctx: ProviderContext, input: RouteInput<"access">): Promise<HttpResponse> {
  const { userId } = input.principal;
  const clientId = input.params.clientId ?? "";
  const [withdrawn, revoked] = await Promise.all([
    ctx.oauth.deleteOAuthConsent(userId, clientId),
    ctx.oauth.revokeUserOAuthGrants(userId, ctx.now(), clientId),
  ]);
  if (!withdrawn && revoked === 0)
    return oauthJson(404, { error: "not_found", error_description: "no such grant" });
  return oauthJson(200, { success: true, revoked });
}
