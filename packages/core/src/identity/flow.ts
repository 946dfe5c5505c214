import { AuthError, guardPort, ValidationError } from "../errors.js";
import type { Principal } from "../model.js";
import type { ResolvedIdentityProvider } from "../options/identity-provider-options.js";
import type { Clock } from "../ports/clock.js";
import type { TokenRecord } from "../ports/single-use-token-store.js";
import { OAUTH_STATE_PURPOSE } from "../tokens/purposes.js";
import { hashToken, randomToken } from "../tokens/random.js";
import { consumeSingleUseToken, type TokenDeps } from "../tokens/single-use-token.js";
import { fieldIssue } from "../validation.js";
import { createRelyingParty, type RelyingParty } from "./relying-party.js";

/** How long a browser has at the provider between authorize and callback. */
export const OAUTH_STATE_TTL_SECONDS = 600;

/**
 * What the callback does once the provider vouched for the user: sign in (or create the
 * account), a step-up of the session that started it, or a link to the signed-in account.
 */
export type AuthorizationMode = "sign-in" | "step-up" | "link";

/** The configured providers by name. */
export type RelyingParties = ReadonlyMap<string, RelyingParty>;

export function createRelyingParties(
  providers: readonly ResolvedIdentityProvider[],
  deps: { clock: Clock },
): RelyingParties {
  return new Map(providers.map((provider) => [provider.name, createRelyingParty(provider, deps)]));
}

/** The provider of that name, or `NOT_FOUND` (an unknown provider is an unknown route). */
export function relyingParty(parties: RelyingParties, name: string): RelyingParty {
  const party = parties.get(name);
  if (!party) throw new AuthError("NOT_FOUND");
  return party;
}

/** A started authorization: where to send the browser, and the state its cookie binds to it. */
export interface AuthorizationStart {
  authorizationUrl: string;
  /** The `state` parameter; the HTTP layer puts it in an HttpOnly cookie for the callback to compare. */
  state: string;
  stateTtlSeconds: number;
}

export interface FlowDeps extends TokenDeps {
  relyingParties: RelyingParties;
  options: { appOrigin?: string | undefined; apiOrigin?: string | undefined; basePath: string };
}

/** `<apiOrigin or appOrigin><basePath>/oauth/<provider>/callback`, the URI registered at the provider. */
export function redirectUriOf(options: FlowDeps["options"], provider: string): string {
  const origin = (options.apiOrigin ?? options.appOrigin ?? "").replace(/\/+$/, "");
  return `${origin}${options.basePath}/oauth/${encodeURIComponent(provider)}/callback`;
}

/** A path as a redirect may carry it: one leading `/` (not `//` or `/\\`), no space, backslash or control character. */
const PLAIN_PATH = /^\/(?![/\\])[^\s\\\p{Cc}\p{Cf}]*$/u;

/**
 * A `returnTo` as given, normalized once: a path on `appOrigin` (`/settings?tab=security`),
 * never another origin, a scheme-relative `//host` or a backslash trick. The value is resolved
 * against `appOrigin` (dot segments, `%2e`), and the normalized path, query and fragment are
 * checked again and returned: what the callback redirects to is exactly what was checked, so
 * `/.//evil.test` (which resolves to `//evil.test`) is refused. Default `/`. `VALIDATION_FAILED` otherwise.
 */
export function parseReturnTo(appOrigin: string | undefined, value: string | undefined): string {
  if (value === undefined || value === "") return "/";
  const invalid = () => new ValidationError([fieldIssue("returnTo", "invalid_return_to")]);
  if (value.length > 1024 || !PLAIN_PATH.test(value)) throw invalid();
  const base = new URL(appOrigin ?? "http://localhost");
  const target = new URL(value, base);
  if (target.origin !== base.origin) throw invalid();
  const normalized = `${target.pathname}${target.search}${target.hash}`;
  if (normalized.length > 1024 || !PLAIN_PATH.test(normalized)) throw invalid();
  // A fixed point: resolving the normalized value again lands on the same URL.
  if (new URL(normalized, base).href !== target.href) throw invalid();
  return normalized;
}

/**
 * Starts an authorization: a single-use state record (PKCE verifier, nonce, mode, where to
 * return, and for a step-up or link the signed-in `principal`) kept in the SingleUseTokenStore, and the
 * provider's URL carrying its token as `state`.
 */
export async function startAuthorization(
  deps: FlowDeps,
  provider: string,
  input: { mode: AuthorizationMode; returnTo: string; principal?: Principal },
): Promise<AuthorizationStart> {
  const party = relyingParty(deps.relyingParties, provider);
  const state = randomToken(32);
  const request = await party.authorizationUrl({
    redirectUri: redirectUriOf(deps.options, provider),
    state,
    fresh: input.mode === "step-up",
  });
  const ttlMs = OAUTH_STATE_TTL_SECONDS * 1000;
  const record: TokenRecord = {
    purpose: OAUTH_STATE_PURPOSE,
    tokenHash: hashToken(state),
    userId: input.principal?.userId ?? "",
    expiresAt: deps.clock.now() + ttlMs,
    data: {
      provider,
      mode: input.mode,
      returnTo: input.returnTo,
      sessionId: input.principal?.sessionId ?? null,
      codeVerifier: request.codeVerifier,
      nonce: request.nonce,
    },
  };
  await guardPort("DATABASE_FAILURE", () => deps.singleUseTokens.saveToken(record, ttlMs));
  return { authorizationUrl: request.url, state, stateTtlSeconds: OAUTH_STATE_TTL_SECONDS };
}

/** A taken state record: what the authorize step decided and kept. */
export interface TakenAuthorization {
  mode: AuthorizationMode;
  returnTo: string;
  userId: string;
  sessionId: string | null;
  codeVerifier: string;
  nonce: string | null;
}

/**
 * Takes the state of a callback, once: the `state` parameter must equal the browser's state
 * cookie (so a state minted for another browser is useless) and name a live record of this
 * provider, which is consumed (a replay finds nothing). `IDENTITY_PROVIDER_STATE_INVALID` otherwise.
 */
export async function takeAuthorization(
  deps: TokenDeps,
  provider: string,
  state: string | undefined,
  cookie: string | undefined,
): Promise<TakenAuthorization> {
  const invalid = () => new AuthError("IDENTITY_PROVIDER_STATE_INVALID");
  if (!state || !cookie || hashToken(state) !== hashToken(cookie)) throw invalid();
  const taken = await consumeSingleUseToken(deps, OAUTH_STATE_PURPOSE, state);
  if (!taken || taken.expired) throw invalid();
  const { record } = taken;
  const data = record.data ?? {};
  if (data.provider !== provider || typeof data.codeVerifier !== "string") throw invalid();
  return {
    mode: data.mode === "step-up" || data.mode === "link" ? data.mode : "sign-in",
    returnTo: typeof data.returnTo === "string" ? data.returnTo : "/",
    userId: record.userId,
    sessionId: typeof data.sessionId === "string" ? data.sessionId : null,
    codeVerifier: data.codeVerifier,
    nonce: typeof data.nonce === "string" ? data.nonce : null,
  };
}
