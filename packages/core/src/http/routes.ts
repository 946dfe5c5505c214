import type { Auth, LoginResult, StepUpResult, TwoFactorChallenge } from "../create-auth.js";
import { AuthError } from "../errors.js";
import type { Principal } from "../model.js";
import type { TwoFactorMethod } from "../ports/user-store.js";
import {
  codeInput,
  confirmTotpInput,
  emailInput,
  identityLinkInput,
  loginInput,
  preferredMethodInput,
  refreshInput,
  registerInput,
  resetPasswordInput,
  stepUpInput,
} from "../validation.js";
import { appUrlFor } from "./app-url.js";
import type { CookieKind, Cookies } from "./cookies.js";
import { buildOpenApiDocument } from "./openapi.js";
import { jsonResponse, redirectResponse } from "./respond.js";
import type { Route, RouteInput } from "./route.js";
import { statusForCode } from "./status.js";
import type { HttpResponse } from "./types.js";

type RouteSpec = Omit<Route, "handle">;
const SUCCESS = { success: true } as const;
const SIGN_OUT: CookieKind[] = ["access", "refresh", "twoFactor", "stepUp"];

/** What the route tables share: response shapes and small route builders. */
function createRouteKit(auth: Auth, cookies: Cookies) {
  const { options } = auth;
  const exposeTokens = options.allowHeaderAuthentication;
  const signOutCookies = () => SIGN_OUT.map((kind) => cookies.clear(kind));
  const sessionCookies = (accessToken: string, refreshToken: string) => [
    cookies.set("access", accessToken, options.accessTokenTtlSeconds),
    cookies.set("refresh", refreshToken, options.refreshTokenTtlSeconds),
  ];
  /** The 2FA branch of login and step-up: the 2FA token as cookie (and in the body with header auth), nothing else. */
  const challenge = (result: TwoFactorChallenge, extra: Record<string, null>) =>
    jsonResponse(
      200,
      {
        ...extra,
        twoFactorRequired: true,
        twoFactorMethods: result.twoFactorMethods,
        preferredTwoFactorMethod: result.preferredTwoFactorMethod,
        twoFactorAuthenticationToken: exposeTokens ? result.twoFactorAuthenticationToken : null,
      },
      [cookies.set("twoFactor", result.twoFactorAuthenticationToken, options.twoFactorTokenTtlSeconds)],
    );
  const loginResponse = (result: LoginResult): HttpResponse => {
    if (result.twoFactorRequired)
      return challenge(result, { user: null, accessToken: null, refreshToken: null });
    return jsonResponse(
      200,
      {
        user: result.user,
        accessToken: exposeTokens ? result.accessToken : null,
        refreshToken: exposeTokens ? result.refreshToken : null,
        twoFactorRequired: false,
        twoFactorMethods: result.user.twoFactorMethods,
        preferredTwoFactorMethod: result.user.preferredTwoFactorMethod,
        twoFactorAuthenticationToken: null,
      },
      [...sessionCookies(result.accessToken, result.refreshToken), cookies.clear("twoFactor")],
    );
  };
  const stepUpResponse = (result: StepUpResult): HttpResponse => {
    if (result.twoFactorRequired) return challenge(result, { stepUpToken: null });
    return jsonResponse(
      200,
      { stepUpToken: exposeTokens ? result.stepUpToken : null, twoFactorRequired: false },
      [cookies.set("stepUp", result.stepUpToken, options.stepUpTokenTtlSeconds), cookies.clear("twoFactor")],
    );
  };
  const route = (spec: RouteSpec, handle: Route["handle"]): Route => ({ ...spec, handle });
  /** A route that answers 200 with the use case's result as JSON. */
  const json = (spec: RouteSpec, run: (input: RouteInput) => Promise<unknown>): Route => ({
    ...spec,
    handle: async (input) => jsonResponse(200, await run(input)),
  });
  /** A security-settings route: the principal and the step-up token (header or cookie). */
  const settings = (
    spec: Omit<RouteSpec, "auth">,
    run: (principal: Principal, stepUpToken: string | undefined, input: RouteInput) => Promise<unknown>,
  ): Route =>
    json({ ...spec, auth: "step-up" }, async (input) =>
      run(await input.principal(), input.token("stepUp"), input),
    );
  const tokenParam = (input: RouteInput) => input.query.get("token") ?? undefined;

  return {
    exposeTokens,
    signOutCookies,
    sessionCookies,
    loginResponse,
    stepUpResponse,
    route,
    json,
    settings,
    tokenParam,
  };
}

type RouteKit = ReturnType<typeof createRouteKit>;

/** The route table of docs/http-api.md, each entry one use case call and its response. */
export function buildRoutes(auth: Auth, cookies: Cookies): Route[] {
  const kit = createRouteKit(auth, cookies);
  const routes = [
    ...accountRoutes(auth, kit),
    ...sessionRoutes(auth, kit),
    ...twoFactorRoutes(auth, kit),
    ...twoFactorSettingsRoutes(auth, kit),
    ...linkRoutes(auth, kit),
    ...oauthRoutes(auth, kit, cookies),
  ];
  let document: Record<string, unknown> | undefined;
  const openApi: Route = kit.json(
    { method: "GET", path: "/openapi.json", summary: "This OpenAPI 3.1 document", auth: "none" },
    async () => {
      document ??= buildOpenApiDocument([...routes, openApi], auth.options.basePath);
      return document;
    },
  );
  return [...routes, openApi];
}

/** Sign-up, sign-in, refresh and sign-out. */
function accountRoutes(
  auth: Auth,
  { exposeTokens, signOutCookies, sessionCookies, loginResponse, route, json }: RouteKit,
): Route[] {
  return [
    json(
      {
        method: "POST",
        path: "/register",
        summary: "Create a password account",
        auth: "none",
        body: registerInput,
      },
      async (input) => auth.register(await input.body(), input.meta),
    ),
    route(
      {
        method: "POST",
        path: "/login",
        summary: "Sign in with email and password",
        auth: "none",
        body: loginInput,
      },
      async (input) => loginResponse(await auth.login(await input.body(), input.meta)),
    ),
    route(
      {
        method: "POST",
        path: "/refresh",
        summary: "Rotate the refresh token",
        auth: "refresh",
        body: refreshInput,
        clearOnError: { code: "REFRESH_TOKEN_INVALID", cookies: ["access", "refresh"] },
      },
      async (input) => {
        const result = await auth.refresh(input.token("refresh"), await input.body(), input.meta);
        const body = {
          user: result.user,
          accessToken: exposeTokens ? result.accessToken : null,
          refreshToken: exposeTokens ? result.refreshToken : null,
        };
        return jsonResponse(200, body, sessionCookies(result.accessToken, result.refreshToken));
      },
    ),
    route(
      {
        method: "POST",
        path: "/logout",
        summary: "End the current session and clear the cookies",
        auth: "optional",
      },
      async (input) => {
        await auth.logout({ accessToken: input.token("access"), refreshToken: input.token("refresh") });
        return jsonResponse(200, SUCCESS, signOutCookies());
      },
    ),
  ];
}

/** The signed-in user and their sessions. */
function sessionRoutes(auth: Auth, { signOutCookies, route, json }: RouteKit): Route[] {
  return [
    json({ method: "GET", path: "/me", summary: "The signed-in user", auth: "access" }, async (input) =>
      auth.getCurrentUser(await input.principal()),
    ),
    json(
      { method: "GET", path: "/sessions", summary: "The user's sessions", auth: "access" },
      async (input) => ({
        sessions: await auth.listSessions(await input.principal()),
      }),
    ),
    route(
      { method: "DELETE", path: "/sessions", summary: "Revoke every session of the user", auth: "access" },
      async (input) =>
        jsonResponse(200, await auth.revokeAllSessions(await input.principal()), signOutCookies()),
    ),
    route(
      {
        method: "DELETE",
        path: "/sessions/:id",
        summary: "Revoke one of the user's sessions",
        auth: "access",
      },
      async (input) => {
        const principal = await input.principal();
        const sessionId = input.params.id ?? "";
        await auth.revokeSession(principal, sessionId);
        return jsonResponse(200, SUCCESS, sessionId === principal.sessionId ? signOutCookies() : []);
      },
    ),
  ];
}

/** Second factors: finishing a login, recovery codes and step-up. */
function twoFactorRoutes(auth: Auth, { loginResponse, stepUpResponse, route }: RouteKit): Route[] {
  return [
    route(
      {
        method: "POST",
        path: "/2fa/login",
        summary: "Finish a sign-in with a TOTP or emailed code",
        auth: "two-factor",
        body: codeInput,
      },
      async (input) =>
        loginResponse(
          await auth.completeTwoFactorLogin(input.token("twoFactor"), await input.body(), input.meta),
        ),
    ),
    route(
      {
        method: "POST",
        path: "/2fa/recover",
        summary: "Finish a sign-in with a recovery code",
        auth: "two-factor",
        body: codeInput,
      },
      async (input) =>
        loginResponse(
          await auth.recoverWithRecoveryCode(input.token("twoFactor"), await input.body(), input.meta),
        ),
    ),
    route(
      {
        method: "POST",
        path: "/step-up",
        summary: "Confirm the password before a settings change",
        auth: "access",
        body: stepUpInput,
      },
      async (input) =>
        stepUpResponse(await auth.stepUp(await input.principal(), await input.body(), input.meta)),
    ),
    route(
      {
        method: "POST",
        path: "/2fa/step-up",
        summary: "The second factor of a step-up",
        auth: "two-factor",
        body: codeInput,
      },
      async (input) =>
        stepUpResponse(
          await auth.completeTwoFactorStepUp(
            await input.principal(),
            input.token("twoFactor"),
            await input.body(),
            input.meta,
          ),
        ),
    ),
  ];
}

/** Where a 2FA method is turned on (a POST with its code, for the use case `enable`) and off (a DELETE). */
interface MethodSwitch {
  enable: "confirmTotpSetup" | "enableEmailTwoFactor";
  on: Pick<RouteSpec, "path" | "summary" | "body">;
  off: Pick<RouteSpec, "path" | "summary">;
}

const METHOD_SWITCHES: Record<TwoFactorMethod, MethodSwitch> = {
  totp: {
    enable: "confirmTotpSetup",
    on: { path: "/2fa/totp/setup", summary: "Confirm TOTP setup with a code", body: confirmTotpInput },
    off: { path: "/2fa/totp", summary: "Turn TOTP off" },
  },
  email: {
    enable: "enableEmailTwoFactor",
    on: { path: "/2fa/email/enable", summary: "Turn email 2FA on with a mailed code", body: codeInput },
    off: { path: "/2fa/email", summary: "Turn email 2FA off" },
  },
};

/** The 2FA settings: TOTP and email on and off, the preferred method (access + step-up). */
function twoFactorSettingsRoutes(auth: Auth, { json, settings }: RouteKit): Route[] {
  /** The routes that turn `method` on (the body, its code, and the request go to `enable`) and off. */
  const onAndOff = (method: TwoFactorMethod): Route[] => {
    const { enable, on, off } = METHOD_SWITCHES[method];
    return [
      settings({ method: "POST", ...on }, async (principal, stepUp, input) =>
        auth[enable](principal, stepUp, await input.body(), input.meta),
      ),
      settings({ method: "DELETE", ...off }, (principal, stepUp, input) =>
        auth.disableTwoFactorMethod(principal, stepUp, method, input.meta),
      ),
    ];
  };
  return [
    settings(
      { method: "GET", path: "/2fa/totp/setup", summary: "Start TOTP setup: secret, URI, recovery codes" },
      (principal, stepUp) => auth.getTotpSetup(principal, stepUp),
    ),
    ...onAndOff("totp"),
    json(
      {
        method: "POST",
        path: "/2fa/email/send",
        summary: "Mail a 2FA code (access token, or a login's 2FA token)",
        auth: "optional",
      },
      async (input) => {
        const twoFactorToken = input.token("twoFactor");
        const useChallenge = input.token("access") === undefined && twoFactorToken !== undefined;
        return auth.sendTwoFactorEmailCode(
          useChallenge ? { twoFactorToken } : { principal: await input.principal() },
          input.meta,
        );
      },
    ),
    json(
      {
        method: "GET",
        path: "/2fa/email/cooldown",
        summary: "Seconds until another 2FA code can be mailed",
        auth: "access",
      },
      async (input) => auth.getTwoFactorEmailCooldown(await input.principal()),
    ),
    ...onAndOff("email"),
    settings(
      {
        method: "POST",
        path: "/2fa/preferred-method",
        summary: "Choose the method login offers first",
        body: preferredMethodInput,
      },
      async (principal, stepUp, input) =>
        auth.setPreferredTwoFactorMethod(principal, stepUp, await input.body()),
    ),
  ];
}

/** The emailed-link flows: password reset and address verification. */
function linkRoutes(auth: Auth, { signOutCookies, route, json, tokenParam }: RouteKit): Route[] {
  return [
    json(
      {
        method: "POST",
        path: "/password/reset-request",
        summary: "Mail a reset link",
        auth: "none",
        body: emailInput,
      },
      async (input) => auth.requestPasswordReset(await input.body(), input.meta),
    ),
    json(
      {
        method: "GET",
        path: "/password/reset/cooldown",
        summary: "Seconds until another reset email",
        auth: "none",
        query: ["email"],
      },
      async (input) => auth.getPasswordResetCooldown(input.query.get("email") ?? undefined),
    ),
    route(
      {
        method: "POST",
        path: "/password/reset",
        summary: "Set a new password with a reset token",
        auth: "none",
        body: resetPasswordInput,
        query: ["token"],
      },
      async (input) =>
        jsonResponse(
          200,
          await auth.resetPassword(tokenParam(input), await input.body(), input.meta),
          signOutCookies(),
        ),
    ),
    json(
      {
        method: "POST",
        path: "/email/verification/send",
        summary: "Mail a verification link",
        auth: "access",
      },
      async (input) => auth.resendVerification(await input.principal(), input.meta),
    ),
    json(
      {
        method: "GET",
        path: "/email/verification/cooldown",
        summary: "Seconds until another verification email",
        auth: "access",
      },
      async (input) => auth.getVerificationCooldown(await input.principal()),
    ),
    json(
      {
        method: "POST",
        path: "/email/verification",
        summary: "Verify the address with a token",
        auth: "none",
        query: ["token"],
      },
      (input) => auth.verifyEmail(tokenParam(input), input.meta),
    ),
  ];
}

/**
 * Identity providers (the "Identity providers" section of packages/core/README.md): sign-in, step-up, link and unlink. The browser goes to the
 * provider and back, so authorize and callback answer with redirects; the state is bound to the
 * browser by an HttpOnly cookie and every callback error is a 302 to `appOrigin` with `?error=<code>`.
 */
function oauthRoutes(
  auth: Auth,
  { sessionCookies, route, json, settings }: RouteKit,
  cookies: Cookies,
): Route[] {
  const { options, logger } = auth;
  const provider = (input: RouteInput) => input.params.provider ?? "";
  const stateCookie = (start: { state: string; stateTtlSeconds: number }) =>
    cookies.set("oauthState", start.state, start.stateTtlSeconds);
  const appUrl = (path: string, extra: Record<string, string> = {}) => {
    return appUrlFor(options.appOrigin, path, extra);
  };
  return [
    json(
      { method: "GET", path: "/oauth/providers", summary: "The configured identity providers", auth: "none" },
      async () => ({ providers: auth.identityProviders.list() }),
    ),
    route(
      {
        method: "GET",
        path: "/oauth/:provider/authorize",
        summary: "Sign in at an identity provider (stepUp=1: a fresh login for a step-up): 302 to it",
        auth: "optional",
        query: ["returnTo", "stepUp"],
      },
      async (input) => {
        const stepUp = input.query.get("stepUp") === "1" ? await input.principal() : undefined;
        const start = await auth.identityProviders.authorize(provider(input), {
          returnTo: input.query.get("returnTo") ?? undefined,
          stepUp,
        });
        return redirectResponse(start.authorizationUrl, [stateCookie(start)]);
      },
    ),
    route(
      {
        method: "GET",
        path: "/oauth/:provider/callback",
        summary: "The identity provider's redirect back: sign in, step up or link, then 302 to returnTo",
        auth: "none",
        query: ["code", "state"],
      },
      async (input) => {
        const clearState = cookies.clear("oauthState");
        let result: Awaited<ReturnType<Auth["identityProviders"]["callback"]>>;
        try {
          result = await auth.identityProviders.callback(
            provider(input),
            { query: input.query.toString(), state: input.cookie("oauthState") },
            input.meta,
          );
        } catch (error) {
          return callbackFailure(error, {
            logger,
            appUrl,
            clearState,
            path: input.request.url.split("?")[0] ?? "",
          });
        }
        return callbackRedirect(result, {
          cookies,
          options,
          sessionCookies,
          appUrl,
          clearState,
          provider: provider(input),
        });
      },
    ),
    route(
      {
        method: "POST",
        path: "/oauth/:provider/link",
        summary: "Start linking an identity provider to the account: its authorization URL",
        auth: "step-up",
        body: identityLinkInput,
      },
      async (input) => {
        const principal = await input.principal();
        const start = await auth.identityProviders.link(
          principal,
          input.token("stepUp"),
          provider(input),
          (await input.body()) ?? {},
        );
        return jsonResponse(200, { authorizationUrl: start.authorizationUrl }, [stateCookie(start)]);
      },
    ),
    settings(
      { method: "DELETE", path: "/oauth/:provider", summary: "Unlink an identity provider from the account" },
      (principal, stepUp, input) =>
        auth.identityProviders.unlink(principal, stepUp, provider(input), input.meta),
    ),
  ];
}

/** Where the identity provider's callback sends the browser, with the cookies of its outcome. */
function callbackRedirect(
  result: Awaited<ReturnType<Auth["identityProviders"]["callback"]>>,
  ctx: {
    cookies: Cookies;
    options: Auth["options"];
    sessionCookies: RouteKit["sessionCookies"];
    appUrl: (path: string, extra?: Record<string, string>) => string;
    clearState: string;
    provider: string;
  },
): HttpResponse {
  const { cookies, options, sessionCookies, appUrl, clearState, provider } = ctx;
  switch (result.outcome) {
    case "signed-in":
      return redirectResponse(appUrl(result.returnTo), [
        clearState,
        ...sessionCookies(result.signedIn.accessToken, result.signedIn.refreshToken),
        cookies.clear("twoFactor"),
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
  ctx: {
    logger: Auth["logger"];
    appUrl: (path: string, extra?: Record<string, string>) => string;
    clearState: string;
    path: string;
  },
): HttpResponse {
  const code = error instanceof AuthError ? error.code : "INTERNAL_ERROR";
  if (statusForCode(code) >= 500)
    ctx.logger.error(
      { event: "request.failed", code, path: ctx.path, err: String(error) },
      "identity provider callback failed",
    );
  return redirectResponse(ctx.appUrl("", { error: code }), [ctx.clearState]);
}
