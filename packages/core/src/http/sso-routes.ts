import type { Auth } from "../create-auth/create-auth.js";
import type { SsoSignInResult, SsoStepUpResult } from "../create-auth/sso-api.js";
import { appUrlFor } from "./app-url.js";
import { DEVICE_COOKIE_MAX_AGE_SECONDS } from "./cookies.js";
import type { RequestInput, Route } from "./route.js";
import type { RouteKit } from "./route-kit.js";

/**
 * What the HTTP layer lends the enterprise sign-in plugin's routes (docs/sso.md): the cookies of a
 * sign-in's outcome and of the browser binding of a request, and URLs on `appOrigin`.
 */
export interface SsoRouteKit {
  /**
   * The `Set-Cookie` values of a connection's sign-in: the session's access and refresh cookies
   * and the device cookie when signed in, or the 2FA challenge's cookie when a second factor is
   * due (the query `twoFactor=login&methods=…` of `outcomeQuery` tells the page); of a step-up
   * through it, the step-up token's cookie (or the 2FA challenge's, `twoFactor=step-up`).
   */
  outcomeCookies(result: SsoSignInResult | SsoStepUpResult): string[];
  /** The query parameters the app's page gets for the outcome (`twoFactor`, `methods`; `stepUp=1`), else none. */
  outcomeQuery(result: SsoSignInResult | SsoStepUpResult): Record<string, string>;
  /** The `Set-Cookie` value binding a started request to this browser (HttpOnly, `<prefix>/sso`, SameSite=Lax at most). */
  setRequestCookie(value: string, maxAgeSeconds: number): string;
  /** The `Set-Cookie` value that deletes it. */
  clearRequestCookie(): string;
  /** The binding this browser sent, if any. */
  requestCookie(input: RequestInput): string | undefined;
  /** The absolute URL on `appOrigin` of `path` with `query` (never another origin). */
  appUrl(path: string, query?: Record<string, string>): string;
}

/** The kit of `ssoRoutes`. */
function ssoRouteKit(auth: Auth, { cookies, sessionCookies }: RouteKit): SsoRouteKit {
  const { options } = auth;
  return {
    outcomeCookies: (result) => {
      if (result.outcome === "signed-in")
        return [
          ...sessionCookies(result.signedIn),
          cookies.clear("twoFactor"),
          cookies.set("device", result.signedIn.deviceToken, DEVICE_COOKIE_MAX_AGE_SECONDS),
        ];
      if (result.outcome === "stepped-up")
        return [
          cookies.set("stepUp", result.stepUpToken, options.stepUpTokenTtlSeconds),
          cookies.clear("twoFactor"),
        ];
      const { twoFactorAuthenticationToken } = result.challenge;
      return [cookies.set("twoFactor", twoFactorAuthenticationToken, options.twoFactorTokenTtlSeconds)];
    },
    outcomeQuery: (result): Record<string, string> => {
      if (result.outcome === "signed-in") return {};
      if (result.outcome === "stepped-up") return { stepUp: "1" };
      const purpose = "purpose" in result ? result.purpose : "login";
      return { twoFactor: purpose, methods: result.challenge.twoFactorMethods.join(",") };
    },
    setRequestCookie: (value, maxAgeSeconds) => cookies.set("ssoRequest", value, maxAgeSeconds),
    clearRequestCookie: () => cookies.clear("ssoRequest"),
    requestCookie: (input) => input.cookie("ssoRequest"),
    appUrl: (path, query = {}) => appUrlFor(options.appOrigin, path, query),
  };
}

/** Where the plugin's routes may sit, below the mount prefix. */
const SSO_PATHS =
  /^\/(sso\/|scim\/v2(\/|$)|organizations\/:id\/(sso\/|domains(\/|$))|admin\/organizations\/:id\/domains(\/|$))/;

/**
 * The enterprise sign-in plugin's routes (docs/sso.md), while the `sso` option is set: each under
 * `/sso/`, `/scim/v2/`, `/organizations/:id/sso/`, `/organizations/:id/domains` or
 * `/admin/organizations/:id/domains`; a cross-origin one (SCIM's, SAML's ACS) takes no credential
 * of ours.
 */
export function ssoRoutes(auth: Auth, kit: RouteKit): Route[] {
  if (!auth.sso.enabled) return [];
  const routes = auth.sso.routes(ssoRouteKit(auth, kit) as never) as readonly Route[];
  for (const route of routes) {
    if (!SSO_PATHS.test(route.path))
      throw new Error(
        `an enterprise sign-in route must be under /sso/, /scim/v2/ or an organization's sso or domains: ${route.path}`,
      );
    if (route.crossOrigin && route.auth !== "none")
      throw new Error(`a cross-origin route takes no credential of ours: ${route.method} ${route.path}`);
  }
  return [...routes];
}
