import { z } from "zod";
import type { SecurityEvent } from "../events.js";

/** What a verified OAuth access token says (`auth.oauthProvider.verifyAccessToken`). */
export interface OAuthAccessToken {
  /** `sub`: the user's id, or the client's for a client-credentials token. */
  subject: string;
  /** The user it acts for; null for a client-credentials token (the client acts for itself). */
  userId: string | null;
  clientId: string;
  scopes: string[];
  /** `aud`: the resource servers it is for. */
  audience: string[];
  /** When it expires (ms since the epoch). */
  expiresAt: number;
}

/** What `auth.oauthProvider` offers the host's own code (docs/oauth-provider.md). */
export interface OAuthProviderApi {
  /**
   * Verifies an access token the provider issued (RFC 9068) for this resource server: signed by
   * one of the provider's keys, not expired, `aud` naming `audience`, and holding every scope of
   * `scopes`. Rejects with the provider's error (`invalid_token`, `insufficient_scope`) otherwise.
   */
  verifyAccessToken(
    token: string,
    options: { audience: string; scopes?: readonly string[] },
  ): Promise<OAuthAccessToken>;
  /**
   * The provider's metadata (OpenID Connect discovery, which is also RFC 8414's), for a host
   * that serves it outside the prefix too: `/.well-known/oauth-authorization-server<prefix>` at
   * the origin's root, where some clients (MCP's) look for it.
   */
  metadata(): Promise<Record<string, unknown>>;
}

/** The provider once `createAuth` has set it up: its API and the routes the HTTP layer mounts. */
export interface OAuthProviderInstance<TRoute = unknown> extends OAuthProviderApi {
  /** Routes of the HTTP layer (`Route`), all under `/oauth2/` or `/.well-known/` of the mount prefix. */
  readonly routes: readonly TRoute[];
}

/**
 * The `oauthProvider` option: the OAuth 2.1 / OpenID provider of `@portcullis/oauth-provider`
 * (`createOAuthProvider`). The core knows it only by this shape, so a host that does not use it
 * bundles none of it.
 */
export interface OAuthProviderPlugin<TAuth = never, TRoute = unknown> {
  /**
   * Called once by `createAuth`, with the finished `Auth` (typed `never` here, so the provider's
   * own `(auth: Auth) => …` fits): what `auth.oauthProvider` becomes.
   */
  setUp(auth: TAuth): OAuthProviderInstance<TRoute>;
  /**
   * Hears each security event as it is emitted (a password reset, "sign out everywhere", a lock
   * or a deletion ends the user's grants). A returned promise is waited for by the answer of the
   * call that emitted the event, like the audit log's writes; it must not reject.
   */
  observe?(event: SecurityEvent): Promise<void> | undefined;
}

/** The validation of the `oauthProvider` option: an object with `setUp`, as `createOAuthProvider` makes it. */
export const oauthProviderOptionSchema = z
  .custom<OAuthProviderPlugin>(
    (value) =>
      typeof value === "object" &&
      value !== null &&
      typeof (value as OAuthProviderPlugin).setUp === "function",
    { message: "must be a provider of @portcullis/oauth-provider (createOAuthProvider)" },
  )
  .optional();

/** The refinement's message while `oauthProvider` is set without `appOrigin`. */
export const OAUTH_PROVIDER_NEEDS_ORIGIN = {
  message: "is required while oauthProvider is set: the provider's issuer is <appOrigin><basePath>",
  path: ["appOrigin"],
};
