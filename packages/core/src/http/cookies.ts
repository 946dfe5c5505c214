import { parseCookie, stringifySetCookie } from "cookie";
import type { ResolvedAuthOptions } from "../options/options.js";
import type { SessionCookieTokens } from "./types.js";

export type CookieKind =
  | "access"
  | "refresh"
  | "twoFactor"
  | "stepUp"
  | "oauthState"
  | "device"
  | "passkeyChallenge"
  | "ssoRequest";
/** The cookies that carry a credential a route reads (the header may carry it instead). */
export type TokenKind = Exclude<CookieKind, "oauthState" | "passkeyChallenge" | "ssoRequest">;

const BASE_NAMES: Record<CookieKind, string> = {
  access: "access_token",
  refresh: "refresh_token",
  twoFactor: "two_factor_authentication_token",
  stepUp: "step_up_token",
  oauthState: "oauth_state",
  device: "device_token",
  passkeyChallenge: "passkey_challenge",
  ssoRequest: "sso_request",
};

/** The device cookie's Max-Age: one year, renewed by every sign-in. */
export const DEVICE_COOKIE_MAX_AGE_SECONDS = 365 * 24 * 3600;

/**
 * Cookie names, paths and attributes (docs/http-api.md): HttpOnly, SameSite (strict by default),
 * Path=/ for access and 2FA, the mount prefix for refresh and step-up, Secure when configured,
 * Max-Age equal to the token's lifetime, and Max-Age=0 to clear. The identity-provider state
 * cookie is scoped to `<prefix>/oauth` and SameSite=Lax at most (it must survive the redirect back).
 * The device cookie (known browsers) is scoped to the prefix, SameSite=Lax at most too (an
 * identity provider's callback reads it), and lives `DEVICE_COOKIE_MAX_AGE_SECONDS`. The passkey
 * challenge cookie (a sign-in's browser binding) is scoped to `<prefix>/passkeys` and lives 5 minutes.
 * The enterprise sign-in request cookie (the browser binding of a SAML request, docs/sso.md) is
 * scoped to `<prefix>/sso` and SameSite=Lax at most, like the identity-provider state. With `hostPrefix`, path-`/`
 * cookies are named `__Host-…` and prefix-scoped ones `__Secure-…` (`__Host-` demands Path=/).
 */
export interface Cookies {
  readonly names: Readonly<Record<CookieKind, string>>;
  /**
   * The `Set-Cookie` value that stores `value` for `maxAgeSeconds`; without it, a browser-session
   * cookie (no Max-Age: the browser drops it when it closes).
   */
  set(kind: CookieKind, value: string, maxAgeSeconds?: number): string;
  /** The `Set-Cookie` value that deletes the cookie. */
  clear(kind: CookieKind): string;
  /**
   * The access and refresh cookies of a session, with their tokens' lifetimes as Max-Age, or none
   * (browser-session cookies) when the session is not remembered (`rememberMe: false`).
   */
  session(tokens: SessionCookieTokens): [string, string];
  /** Cookies of a request, by name; empty when the header is absent or unreadable. */
  parse(header: string | undefined): Record<string, string | undefined>;
}

export function createCookies(options: ResolvedAuthOptions): Cookies {
  const { secure, sameSite, hostPrefix } = options.cookies;
  const pathOf = (kind: CookieKind) => {
    if (kind === "oauthState") return `${options.basePath}/oauth`;
    if (kind === "passkeyChallenge") return `${options.basePath}/passkeys`;
    if (kind === "ssoRequest") return `${options.basePath}/sso`;
    return kind === "refresh" || kind === "stepUp" || kind === "device" ? options.basePath : "/";
  };
  // The provider's redirect back is a cross-site navigation: a Strict state cookie would not come along.
  const sameSiteOf = (kind: CookieKind) =>
    (kind === "oauthState" || kind === "device" || kind === "ssoRequest") && sameSite === "strict"
      ? "lax"
      : sameSite;
  const nameOf = (kind: CookieKind) => {
    if (!hostPrefix) return BASE_NAMES[kind];
    return `${pathOf(kind) === "/" ? "__Host-" : "__Secure-"}${BASE_NAMES[kind]}`;
  };
  const names = {
    access: nameOf("access"),
    refresh: nameOf("refresh"),
    twoFactor: nameOf("twoFactor"),
    stepUp: nameOf("stepUp"),
    oauthState: nameOf("oauthState"),
    device: nameOf("device"),
    passkeyChallenge: nameOf("passkeyChallenge"),
    ssoRequest: nameOf("ssoRequest"),
  };
  const serialize = (kind: CookieKind, value: string, maxAge: number | undefined) =>
    stringifySetCookie(names[kind], value, {
      httpOnly: true,
      sameSite: sameSiteOf(kind),
      secure,
      path: pathOf(kind),
      ...(maxAge === undefined ? {} : { maxAge }),
    });

  return {
    names,
    set: (kind, value, maxAgeSeconds) => serialize(kind, value, maxAgeSeconds),
    clear: (kind) => serialize(kind, "", 0),
    session: ({ accessToken, refreshToken, rememberMe }) => [
      serialize("access", accessToken, rememberMe === false ? undefined : options.accessTokenTtlSeconds),
      serialize("refresh", refreshToken, rememberMe === false ? undefined : options.refreshTokenTtlSeconds),
    ],
    parse(header) {
      if (!header || header.length > 16_384) return {};
      try {
        return parseCookie(header);
      } catch {
        return {};
      }
    },
  };
}
