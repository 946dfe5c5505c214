import { AuthError } from "../errors.js";
import type { ResolvedIdentityProvider } from "../options/identity-provider-options.js";
import type { Clock } from "../ports/clock.js";
import { assertPeerInstalled } from "../support/optional-peer.js";

type OpenIdClient = typeof import("openid-client");
type Configuration = import("openid-client").Configuration;
type ServerMetadata = import("openid-client").ServerMetadata;

/** Who a provider says the user is, after every check of its answer passed. */
export interface ProviderIdentity {
  /** The issuer identifier (the ID token's `iss`; `https://github.com` for GitHub). */
  issuer: string;
  /** The provider's stable user id (the ID token's `sub`; GitHub's numeric id). */
  subject: string;
  /** The address as the provider gave it (not normalized), or null. */
  email: string | null;
  /** True only when the provider says the address is verified. */
  emailVerified: boolean;
  name: string | null;
}

/** What an authorization request left behind, to be checked on the callback. */
export interface PendingAuthorization {
  codeVerifier: string;
  /** The nonce the ID token must carry; null for OAuth 2.0 providers without ID tokens (GitHub). */
  nonce: string | null;
}

/** One configured provider, as the use cases see it: an authorization URL, then a checked identity. */
export interface RelyingParty {
  readonly name: string;
  readonly displayName: string;
  /** The URL to send the browser to, and the PKCE verifier and nonce to keep for the callback. */
  authorizationUrl(input: {
    redirectUri: string;
    state: string;
    /** Ask for a fresh login at the provider (a step-up): `prompt=login`, `max_age=0`. */
    fresh: boolean;
  }): Promise<{ url: string } & PendingAuthorization>;
  /**
   * Exchanges the code of `callbackUrl` (PKCE), checks the ID token (signature, issuer, audience,
   * expiry, nonce; `auth_time` when `fresh`) and returns the identity. Throws
   * `IDENTITY_PROVIDER_REJECTED` for any answer that fails a check, `IDENTITY_PROVIDER_FAILURE`
   * when the provider cannot be reached.
   */
  exchange(
    input: { callbackUrl: URL; state: string; fresh: boolean } & PendingAuthorization,
  ): Promise<ProviderIdentity>;
  /**
   * Reads the provider's discovery document now and keeps it for the calls above (an
   * administrator adding a provider learns at once whether it can be used):
   * `IDENTITY_PROVIDER_FAILURE`, with what went wrong as its cause, when it cannot be read.
   */
  discover(): Promise<void>;
}

/** How long a fresh login at the provider may be old on a step-up callback, in seconds. */
const FRESH_LOGIN_MAX_AGE_SECONDS = 300;

const GITHUB: ServerMetadata = {
  issuer: "https://github.com",
  authorization_endpoint: "https://github.com/login/oauth/authorize",
  token_endpoint: "https://github.com/login/oauth/access_token",
};
const GITHUB_API = "https://api.github.com";

const PRESET_NAMES: Record<ResolvedIdentityProvider["type"], string> = {
  oidc: "OpenID Connect",
  google: "Google",
  entra: "Microsoft",
  github: "GitHub",
};

/**
 * Throws at start-up (synchronously, from `createAuth`) when `openid-client`, the optional peer
 * dependency every identity provider needs, cannot be found from here: without this check the
 * server would start and answer each sign-in with 502 `IDENTITY_PROVIDER_FAILURE`.
 */
export function assertOpenIdClientInstalled(
  resolve: (specifier: string) => string = (specifier) => import.meta.resolve(specifier),
): void {
  assertPeerInstalled("identityProviders", "openid-client", resolve);
}

let loading: Promise<OpenIdClient> | undefined;

/** `openid-client`, an optional peer dependency, loaded on first use only. */
export function loadOpenIdClient(): Promise<OpenIdClient> {
  loading ??= import("openid-client").catch((error: unknown) => {
    loading = undefined;
    throw new AuthError("IDENTITY_PROVIDER_FAILURE", {
      cause: new Error("identityProviders need the openid-client package: npm install openid-client", {
        cause: error,
      }),
    });
  });
  return loading;
}

function issuerOf(provider: ResolvedIdentityProvider): string | null {
  switch (provider.type) {
    case "oidc":
      return provider.issuer;
    case "google":
      return "https://accounts.google.com";
    case "entra":
      return `https://login.microsoftonline.com/${provider.tenantId}/v2.0`;
    case "github":
      return null;
  }
}

/** openid-client's errors: a check that failed, or a provider that did not answer. */
function classify(client: OpenIdClient, error: unknown): AuthError {
  if (error instanceof AuthError) return error;
  const name = (error as { name?: unknown } | null)?.name;
  const unreachable =
    !(error instanceof client.ResponseBodyError) &&
    !(error instanceof client.AuthorizationResponseError) &&
    !(error instanceof client.WWWAuthenticateChallengeError) &&
    (name === "TimeoutError" || name === "AbortError" || (error instanceof TypeError && !("code" in error)));
  return new AuthError(unreachable ? "IDENTITY_PROVIDER_FAILURE" : "IDENTITY_PROVIDER_REJECTED", {
    cause: error,
  });
}

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);

/** GitHub (OAuth 2.0, no ID token): the account and its primary address from its REST API. */
async function githubIdentity(
  client: OpenIdClient,
  config: Configuration,
  accessToken: string,
): Promise<ProviderIdentity> {
  const headers = () => new Headers({ accept: "application/vnd.github+json", "user-agent": "portcullis" });
  const read = async (path: string) => {
    const response = await client.fetchProtectedResource(
      config,
      accessToken,
      new URL(`${GITHUB_API}${path}`),
      "GET",
      undefined,
      headers(),
    );
    if (!response.ok) throw new AuthError("IDENTITY_PROVIDER_REJECTED", { cause: `GitHub ${path}` });
    return (await response.json()) as unknown;
  };
  const user = (await read("/user")) as { id?: unknown; name?: unknown; login?: unknown };
  if (typeof user.id !== "number" && typeof user.id !== "string")
    throw new AuthError("IDENTITY_PROVIDER_REJECTED", { cause: "GitHub user without id" });
  const emails = (await read("/user/emails")) as {
    email?: unknown;
    primary?: unknown;
    verified?: unknown;
  }[];
  const primary = Array.isArray(emails) ? emails.find((entry) => entry.primary === true) : undefined;
  return {
    issuer: GITHUB.issuer,
    subject: String(user.id),
    email: text(primary?.email),
    emailVerified: primary?.verified === true,
    name: text(user.name) ?? text(user.login),
  };
}

/** An OpenID Connect identity: the ID token's claims, the address from userinfo when the token has none. */
async function oidcIdentity(
  client: OpenIdClient,
  config: Configuration,
  tokens: Awaited<ReturnType<OpenIdClient["authorizationCodeGrant"]>>,
): Promise<ProviderIdentity> {
  const claims = tokens.claims();
  if (!claims) throw new AuthError("IDENTITY_PROVIDER_REJECTED", { cause: "no ID token" });
  let { email, email_verified: emailVerified, name } = claims as Record<string, unknown>;
  if (typeof email !== "string" && config.serverMetadata().userinfo_endpoint) {
    const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
    ({ email, email_verified: emailVerified } = info as Record<string, unknown>);
    name ??= info.name;
  }
  return {
    issuer: claims.iss,
    subject: claims.sub,
    email: text(email),
    emailVerified: emailVerified === true || emailVerified === "true",
    name: text(name),
  };
}

/** A relying party for one configured provider (`openid-client` does every protocol step). */
export function createRelyingParty(provider: ResolvedIdentityProvider, deps: { clock: Clock }): RelyingParty {
  const issuer = issuerOf(provider);
  const insecure = provider.type === "oidc" && provider.allowInsecureRequests;
  let metadata: Promise<ServerMetadata> | undefined;

  /** The provider's metadata, by discovery once (retried after a failure), or GitHub's endpoints. */
  const serverMetadata = async (client: OpenIdClient): Promise<ServerMetadata> => {
    if (issuer === null) return GITHUB;
    metadata ??= client
      .discovery(new URL(issuer), provider.clientId, provider.clientSecret, undefined, {
        ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
        ...(provider.fetch ? { [client.customFetch]: provider.fetch } : {}),
      })
      .then((config) => config.serverMetadata())
      .catch((error: unknown) => {
        metadata = undefined;
        throw new AuthError("IDENTITY_PROVIDER_FAILURE", { cause: error });
      });
    return metadata;
  };

  /** A configuration whose idea of "now" is the auth clock's (so a fake clock moves it too). */
  const configuration = async (client: OpenIdClient): Promise<Configuration> => {
    const config = new client.Configuration(await serverMetadata(client), provider.clientId, {
      client_secret: provider.clientSecret,
      [client.clockSkew]: Math.round((deps.clock.now() - Date.now()) / 1000),
    });
    if (insecure) client.allowInsecureRequests(config);
    if (provider.fetch) config[client.customFetch] = provider.fetch;
    return config;
  };

  return {
    name: provider.name,
    displayName:
      provider.displayName ?? (provider.type === "oidc" ? provider.name : PRESET_NAMES[provider.type]),
    async authorizationUrl({ redirectUri, state, fresh }) {
      const client = await loadOpenIdClient();
      const config = await configuration(client);
      const codeVerifier = client.randomPKCECodeVerifier();
      const nonce = issuer === null ? null : client.randomNonce();
      const parameters: Record<string, string> = {
        redirect_uri: redirectUri,
        scope: provider.scopes.join(" "),
        response_type: "code",
        state,
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: "S256",
        ...(nonce ? { nonce } : {}),
        ...(fresh ? { prompt: "login", ...(nonce ? { max_age: "0" } : {}) } : {}),
      };
      return { url: client.buildAuthorizationUrl(config, parameters).href, codeVerifier, nonce };
    },
    async discover() {
      await serverMetadata(await loadOpenIdClient());
    },
    async exchange({ callbackUrl, state, codeVerifier, nonce, fresh }) {
      const client = await loadOpenIdClient();
      try {
        const config = await configuration(client);
        const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: codeVerifier,
          expectedState: state,
          ...(nonce === null
            ? {}
            : {
                expectedNonce: nonce,
                idTokenExpected: true,
                ...(fresh ? { maxAge: FRESH_LOGIN_MAX_AGE_SECONDS } : {}),
              }),
        });
        if (nonce === null) return await githubIdentity(client, config, tokens.access_token);
        return await oidcIdentity(client, config, tokens);
      } catch (error) {
        throw classify(client, error);
      }
    },
  };
}
