import type { UserRecord } from "@portcullis/core";
import { issueAccessToken } from "./access-tokens.js";
import { issueIdToken, userClaims } from "./id-tokens.js";
import { OAuthError } from "./oauth-error.js";
import { oauthJson, type ProviderContext } from "./provider-context.js";

/** What a token response is made of (RFC 6749 §5.1, OpenID Connect Core §3.1.3.3). */
export interface TokenGrant {
  clientId: string;
  /** The user it acts for; null for client credentials. */
  userId: string | null;
  scopes: readonly string[];
  resources: readonly string[];
  /** When the user signed in (ms), for the ID token's `auth_time`. */
  authTime: number | null;
  grantId?: string | undefined;
  refreshToken?: string | undefined;
  nonce?: string | undefined;
}

/**
 * The user a grant acts for, when the account can still be used: gone or locked accounts answer
 * `invalid_grant` (the caller revokes the grant).
 */
export async function liveUser(ctx: ProviderContext, userId: string): Promise<UserRecord> {
  const user = await ctx.auth.options.stores.users.findById(userId);
  if (user === null) throw new OAuthError("invalid_grant", "the account no longer exists");
  if (user.lockedAt != null) throw new OAuthError("invalid_grant", "the account is locked");
  return user;
}

/**
 * The token response: an RFC 9068 access token (`aud` the resources, or the client), the refresh
 * token when the grant has one, and an ID token when `openid` was granted to a user.
 */
export async function tokenResponse(ctx: ProviderContext, grant: TokenGrant, user: UserRecord | null) {
  const now = ctx.now();
  const accessToken = await issueAccessToken(ctx.ring, {
    issuer: ctx.issuer,
    subject: grant.userId ?? grant.clientId,
    audience: grant.resources.length > 0 ? grant.resources : grant.clientId,
    clientId: grant.clientId,
    scopes: grant.scopes,
    expiresInSeconds: ctx.lifetimes.accessToken,
    now,
    grantId: grant.grantId,
  });
  const idToken =
    user !== null && grant.scopes.includes("openid")
      ? await issueIdToken(ctx.ring, {
          issuer: ctx.issuer,
          clientId: grant.clientId,
          claims: userClaims(user, grant.scopes),
          ...(grant.nonce === undefined ? {} : { nonce: grant.nonce }),
          ...(grant.authTime === null ? {} : { authTime: grant.authTime }),
          accessToken,
          expiresInSeconds: ctx.lifetimes.idToken,
          now,
        })
      : undefined;
  return oauthJson(200, {
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: ctx.lifetimes.accessToken,
    scope: grant.scopes.join(" "),
    ...(grant.refreshToken === undefined ? {} : { refresh_token: grant.refreshToken }),
    ...(idToken === undefined ? {} : { id_token: idToken }),
  });
}
