import type {
  Auth,
  AuthorizationStart,
  IdentityProviderCallbackResult,
} from "../../create-auth/create-auth.js";

import { AuthError } from "../../errors.js";
import { errorsOf } from "../../use-case-errors.js";
import { type IdentityLinkInput, identityLinkInput } from "../../validation.js";
import { appUrlFor } from "../app-url.js";
import { type Cookies, DEVICE_COOKIE_MAX_AGE_SECONDS } from "../cookies.js";
import { jsonResponse, redirectResponse } from "../respond.js";
import type { RequestInput, Route } from "../route.js";
import { deviceCall, json, param, type RouteKit, route, settings, stepUpCall } from "../route-kit.js";
import { statusForCode } from "../status.js";
import type { HttpResponse } from "../types.js";

/** The provider of an identity-provider route (`:provider`). */
const providerParam = (input: RequestInput) => param(input, "provider");

/** The state cookie of a started authorization. */
const stateCookie = (cookies: Cookies, start: AuthorizationStart) =>
  cookies.set("oauthState", start.state, start.stateTtlSeconds);

/** Where the app's pages are: `appOrigin` and a path, with query parameters. */
type AppUrl = (path: string, extra?: Record<string, string>) => string;

/**
 * Identity providers (the "Identity providers" section of packages/core/README.md): the list,
 * sign-in and step-up. The browser goes to the provider and back, so authorize and callback
 * answer with redirects; the state is bound to the browser by an HttpOnly cookie and every
 * callback error is a 302 to `appOrigin` with `?error=<code>`.
 */
export function oauthSignInRoutes(auth: Auth, kit: RouteKit): Route[] {
  const { cookies } = kit;
  return [
    json(
      {
        method: "GET",
        path: "/oauth/providers",
        summary: "The configured identity providers",
        auth: "none",
        errors: [],
      },
      async () => ({ providers: auth.identityProviders.list() }),
    ),
    route(
      {
        method: "GET",
        path: "/oauth/:provider/authorize",
        summary: "Sign in at an identity provider (stepUp=1: a fresh login for a step-up): 302 to it",
        auth: "optional",
        query: ["returnTo", "stepUp"],
        errors: errorsOf("identityProviders.authorize"),
      },
      async (input) => {
        // A step-up needs the signed-in user (its refusal is the answer); a sign-in ignores a stale access cookie.
        const stepUp = input.query.get("stepUp") === "1";
        if (stepUp && input.refusal) throw input.refusal;
        const start = await auth.identityProviders.authorize(stepUp ? { principal: input.principal } : {}, {
          provider: providerParam(input),
          returnTo: input.query.get("returnTo") ?? undefined,
          stepUp,
        });
        return redirectResponse(start.authorizationUrl, [stateCookie(cookies, start)]);
      },
    ),
    callbackRoute(auth, kit),
  ];
}

/** GET /oauth/:provider/callback: the provider's redirect back, answered with a redirect to the app. */
function callbackRoute(auth: Auth, { cookies, sessionCookies }: RouteKit): Route {
  const { options, logger } = auth;
  const appUrl: AppUrl = (path, extra = {}) => appUrlFor(options.appOrigin, path, extra);
  return route(
    {
      method: "GET",
      path: "/oauth/:provider/callback",
      summary: "The identity provider's redirect back: sign in, step up or link, then 302 to returnTo",
      auth: "none",
      query: ["code", "state"],
      // Every failure is a 302 back to the app with `?error=<code>`.
      errors: [],
    },
    async (input) => {
      const clearState = cookies.clear("oauthState");
      const provider = providerParam(input);
      let result: IdentityProviderCallbackResult;
      try {
        result = await auth.identityProviders.callback(deviceCall(input), {
          provider,
          query: input.query.toString(),
          state: input.cookie("oauthState"),
        });
      } catch (error) {
        const path = input.request.url.split("?")[0] ?? "";
        return callbackFailure(error, { logger, appUrl, clearState, path });
      }
      return callbackRedirect(result, { cookies, options, sessionCookies, appUrl, clearState, provider });
    },
  );
}

/** Linking an identity provider to the signed-in account and unlinking it (access + step-up). */
export function oauthAccountRoutes(auth: Auth, { cookies }: RouteKit): Route[] {
  return [
    route(
      {
        method: "POST",
        path: "/oauth/:provider/link",
        summary: "Start linking an identity provider to the account: its authorization URL",
        auth: "step-up",
        body: identityLinkInput,
        errors: errorsOf("identityProviders.link"),
      },
      async (input) => {
        const body = (await input.body<IdentityLinkInput>()) ?? {};
        const start = await auth.identityProviders.link(stepUpCall(input), {
          provider: providerParam(input),
          returnTo: body.returnTo,
        });
        return jsonResponse(200, { authorizationUrl: start.authorizationUrl }, [stateCookie(cookies, start)]);
      },
    ),
    settings(
      {
        method: "DELETE",
        path: "/oauth/:provider",
        summary: "Unlink an identity provider from the account",
        errors: errorsOf("identityProviders.unlink"),
      },
      (call, input) => auth.identityProviders.unlink(call, providerParam(input)),
    ),
  ];
}

/** Where the identity provider's callback sends the browser, with the cookies of its outcome. */
function callbackRedirect(
  result: IdentityProviderCallbackResult,
  ctx: {
    cookies: Cookies;
    options: Auth["options"];
    sessionCookies: RouteKit["sessionCookies"];
    appUrl: AppUrl;
    clearState: string;
    provider: string;
  },
): HttpResponse {
  const { cookies, options, sessionCookies, appUrl, clearState, provider } = ctx;
  switch (result.outcome) {
    case "signed-in":
      return redirectResponse(appUrl(result.returnTo), [
        clearState,
        ...sessionCookies(result.signedIn),
        cookies.clear("twoFactor"),
        cookies.set("device", result.signedIn.deviceToken, DEVICE_COOKIE_MAX_AGE_SECONDS),
      ]);
    case "two-factor":
      return redirectResponse(
        appUrl(result.returnTo, {
          twoFactor: result.purpose,
          methods: result.challenge.twoFactorMethods.join(","),
        }),
        [
          clearState,
          cookies.set(
            "twoFactor",
            result.challenge.twoFactorAuthenticationToken,
            options.twoFactorTokenTtlSeconds,
          ),
        ],
      );
    case "stepped-up":
      return redirectResponse(appUrl(result.returnTo, { stepUp: "1" }), [
        clearState,
        cookies.set("stepUp", result.stepUpToken, options.stepUpTokenTtlSeconds),
        cookies.clear("twoFactor"),
      ]);
    case "linked":
      return redirectResponse(appUrl(result.returnTo, { linked: provider }), [clearState]);
  }
}

/** A failed callback: back to the app with `?error=<code>` (500s logged with their cause). */
function callbackFailure(
  error: unknown,
  ctx: { logger: Auth["logger"]; appUrl: AppUrl; clearState: string; path: string },
): HttpResponse {
  const code = error instanceof AuthError ? error.code : "INTERNAL_ERROR";
  if (statusForCode(code) >= 500)
    ctx.logger.error(
      { event: "request.failed", code, path: ctx.path, err: String(error) },
      "identity provider callback failed",
    );
  return redirectResponse(ctx.appUrl("", { error: code }), [ctx.clearState]);
}
