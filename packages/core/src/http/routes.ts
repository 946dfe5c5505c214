import type {
  Auth,
  AuthorizationStart,
  IdentityProviderCallbackResult,
  LoginResult,
  StepUpResult,
  TwoFactorChallenge,
} from "../create-auth.js";
import { refusingUseCasesOf } from "../create-auth.js";
import { AuthError, CooldownRefusal, type ErrorCode } from "../errors.js";
import type { Call } from "../model.js";
import type { TwoFactorMethod } from "../ports/user-store.js";
import {
  changePasswordInput,
  codeInput,
  confirmTotpInput,
  emailChangeInput,
  emailInput,
  emailSignInInput,
  type IdentityLinkInput,
  identityLinkInput,
  lockUserBody,
  loginInput,
  parseInput,
  passkeyRegistrationInput,
  passkeyRenameInput,
  passkeySignInInput,
  passkeySignInOptionsInput,
  passkeyStepUpInput,
  preferredMethodInput,
  refreshInput,
  registerInput,
  requiredPasswordChangeInput,
  resetPasswordInput,
  revokeSessionsQuery,
  signInCodeInput,
  stepUpInput,
} from "../validation.js";
import { appUrlFor } from "./app-url.js";
import { type CookieKind, type Cookies, DEVICE_COOKIE_MAX_AGE_SECONDS } from "./cookies.js";
import { buildOpenApiDocument } from "./openapi.js";
import { jsonResponse, redirectResponse } from "./respond.js";
import type { Route, RouteAuth, RouteInput, RouteOf, RouteSpec } from "./route.js";
import { statusForCode } from "./status.js";
import { accessTokenExpiresAt } from "./token-expiry.js";
import type { HttpResponse } from "./types.js";

const SUCCESS = { success: true } as const;
/** What a session's auth cookies are made of. */
type SessionCookieInput = { accessToken: string; refreshToken: string; rememberMe: boolean };
const SIGN_OUT: CookieKind[] = ["access", "refresh", "twoFactor", "stepUp"];

/** A use case's result as a 200 JSON answer; a `CooldownRefusal` goes back to the handler, which answers its 429. */
const okOrRefusal = (result: unknown): HttpResponse | CooldownRefusal =>
  result instanceof CooldownRefusal ? result : jsonResponse(200, result);

/** What the route tables share: response shapes and small route builders. */
function createRouteKit(auth: Auth, cookies: Cookies) {
  const { options } = auth;
  const exposeTokens = options.allowHeaderAuthentication;
  const signOutCookies = () => SIGN_OUT.map((kind) => cookies.clear(kind));
  /** The auth cookies of a session; without Max-Age (browser-session cookies) when it is not remembered. */
  const sessionCookies = (tokens: SessionCookieInput) => cookies.session(tokens);
  /** The device cookie of a browser that signed in or registered (known browsers, docs/security.md). */
  const deviceCookie = (deviceToken: string) =>
    cookies.set("device", deviceToken, DEVICE_COOKIE_MAX_AGE_SECONDS);
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
        emailCodeSent: result.emailCodeSent,
        emailCodeCooldown: result.emailCodeCooldown,
      },
      [cookies.set("twoFactor", result.twoFactorAuthenticationToken, options.twoFactorTokenTtlSeconds)],
    );
  const loginResponse = (result: LoginResult): HttpResponse => {
    if (result.twoFactorRequired)
      return challenge(result, {
        user: null,
        accessToken: null,
        refreshToken: null,
        accessTokenExpiresAt: null,
      });
    return jsonResponse(200, signedInBody(result, exposeTokens), [
      ...sessionCookies(result),
      cookies.clear("twoFactor"),
      deviceCookie(result.deviceToken),
    ]);
  };
  const stepUpResponse = (result: StepUpResult): HttpResponse => {
    if (result.twoFactorRequired) return challenge(result, { stepUpToken: null });
    return jsonResponse(
      200,
      { stepUpToken: exposeTokens ? result.stepUpToken : null, twoFactorRequired: false },
      [cookies.set("stepUp", result.stepUpToken, options.stepUpTokenTtlSeconds), cookies.clear("twoFactor")],
    );
  };
  /** A route: its data and its handler, which gets the credentials its `auth` names. */
  const route = <A extends RouteAuth>(spec: RouteSpec<A>, handle: RouteOf<A>["handle"]): Route =>
    ({ ...spec, handle }) as RouteOf<A> as Route;
  /** A route that answers 200 with the use case's result as JSON (a `CooldownRefusal` as its 429: `okOrRefusal`). */
  const json = <A extends RouteAuth>(
    spec: RouteSpec<A>,
    run: (input: RouteInput<A>) => Promise<unknown>,
  ): Route => route(spec, async (input) => okOrRefusal(await run(input)));
  /** A security-settings route: its use case's call has the principal, the step-up token (header or cookie) and the request. */
  const settings = (
    spec: Omit<RouteSpec<"step-up">, "auth">,
    run: (call: Call, input: RouteInput<"step-up">) => Promise<unknown>,
  ): Route => json({ ...spec, auth: "step-up" }, (input) => run(stepUpCall(input), input));
  /** The call of an emailed link's route: the link's token (`?token=`) and the request. */
  const linkCall = (input: RouteInput): Call => ({
    token: input.query.get("token") ?? undefined,
    request: input.meta,
  });

  return {
    exposeTokens,
    cookies,
    signOutCookies,
    sessionCookies,
    deviceCookie,
    loginResponse,
    stepUpResponse,
    route,
    json,
    settings,
    linkCall,
  };
}

/** The body of a completed sign-in (`LoginResponse`): tokens only with header authentication. */
function signedInBody(result: Extract<LoginResult, { twoFactorRequired: false }>, exposeTokens: boolean) {
  return {
    user: result.user,
    accessToken: exposeTokens ? result.accessToken : null,
    refreshToken: exposeTokens ? result.refreshToken : null,
    twoFactorRequired: false,
    twoFactorMethods: result.user.twoFactorMethods,
    preferredTwoFactorMethod: result.user.preferredTwoFactorMethod,
    twoFactorAuthenticationToken: null,
    emailCodeSent: false,
    emailCodeCooldown: null,
    deviceToken: exposeTokens ? result.deviceToken : null,
    // Only when the password was found in the breach corpus (`breachedPasswords`).
    ...(result.passwordBreached === true ? { passwordBreached: true } : {}),
    accessTokenExpiresAt: accessTokenExpiresAt(result.accessToken),
  };
}

type RouteKit = ReturnType<typeof createRouteKit>;

/** The call of a route with `auth: "step-up"`: the principal, the step-up token and the request. */
function stepUpCall(input: RouteInput<"step-up">): Call {
  return { principal: input.principal, stepUpToken: input.stepUpToken, request: input.meta };
}

/** The route table of docs/http-api.md, each entry one use case call and its response. */
export function buildRoutes(auth: Auth, cookies: Cookies): Route[] {
  const kit = createRouteKit(auth, cookies);
  const routes = [
    ...accountRoutes(auth, kit),
    ...sessionRoutes(auth, kit),
    ...activityRoutes(auth, kit),
    ...twoFactorRoutes(auth, kit),
    ...twoFactorSettingsRoutes(auth, kit),
    ...passwordResetRoutes(auth, kit),
    ...verificationRoutes(auth, kit),
    ...oauthSignInRoutes(auth, kit, cookies),
    ...oauthAccountRoutes(auth, kit, cookies),
    ...emailSignInRoutes(auth, kit),
    ...selfServiceRoutes(auth, kit),
    ...requiredPasswordChangeRoutes(auth, kit),
    ...(auth.options.admin.authorize ? adminRoutes(auth, kit) : []),
    ...passkeyRoutes(auth, kit, cookies),
  ];
  let document: Record<string, unknown> | undefined;
  const openApi: Route = kit.json(
    { method: "GET", path: "/openapi.json", summary: "This OpenAPI 3.1 document", auth: "none", errors: [] },
    async () => {
      document ??= buildOpenApiDocument([...routes, openApi], auth.options.basePath);
      return document;
    },
  );
  return [...routes, openApi];
}

/** The 500s of a route that reads or writes the stores. */
const DB = ["DATABASE_FAILURE"] as const;
/** The 500s of a send: the mailer, the templates, and the cooldown store. */
const MAIL = [
  "EMAIL_SEND_FAILURE",
  "EMAIL_AUTHENTICATION_FAILURE",
  "EMAIL_TEMPLATE_FAILURE",
  "EMAIL_COOLDOWN_CACHE_FAILURE",
] as const;
/** A second-factor check: its answers, its counters (in the cooldown store), the sealed TOTP secret. */
const CODE_CHECK = [
  "TWO_FACTOR_CODE_MISSING",
  "WRONG_TWO_FACTOR_CODE",
  "TWO_FACTOR_THROTTLED",
  "TWO_FACTOR_DISABLED",
  "EMAIL_COOLDOWN_CACHE_FAILURE",
  "DATABASE_ENCRYPTION_FAILURE",
] as const;
/** A security setting: the signed-in user's record must still exist. */
const SETTING = ["USER_NOT_FOUND", ...DB] as const;
/** A password login: the password's answers, its counters, a locked account, a required password change. */
const LOGIN_ERRORS = [
  "INVALID_CREDENTIALS",
  "LOGIN_THROTTLED",
  "EMAIL_COOLDOWN_CACHE_FAILURE",
  "ACCOUNT_LOCKED",
  "PASSWORD_CHANGE_REQUIRED",
  ...DB,
] as const;
/** A step-up's password check: the login's answers, and no step-up for an impersonation. */
const STEP_UP_ERRORS = [
  "INVALID_CREDENTIALS",
  "LOGIN_THROTTLED",
  "EMAIL_COOLDOWN_CACHE_FAILURE",
  "IMPERSONATION_NOT_ALLOWED",
  ...SETTING,
] as const;
/** A sign-in finished with a recovery code. */
const RECOVERY_ERRORS = [
  "TWO_FACTOR_CODE_MISSING",
  "WRONG_TWO_FACTOR_CODE",
  "TWO_FACTOR_THROTTLED",
  "EMAIL_COOLDOWN_CACHE_FAILURE",
  "ACCOUNT_LOCKED",
  ...DB,
] as const;

/** What a sign-up can answer besides success. */
const REGISTER_ERRORS = [
  "PASSWORD_POLICY_VIOLATION",
  "RATE_LIMITED",
  "EMAIL_COOLDOWN_CACHE_FAILURE",
  ...DB,
  "PASSWORD_BREACHED",
  "BREACHED_PASSWORD_CHECK_FAILURE",
] as const;

/** Sign-up, sign-in, refresh and sign-out. */
function accountRoutes(
  auth: Auth,
  { exposeTokens, signOutCookies, sessionCookies, deviceCookie, loginResponse, route }: RouteKit,
): Route[] {
  return [
    route(
      {
        method: "POST",
        path: "/register",
        summary: "Create a password account",
        auth: "none",
        body: registerInput,
        errors: REGISTER_ERRORS,
      },
      async (input) => {
        const { deviceToken } = await auth.register({ request: input.withDevice() }, await input.body());
        return jsonResponse(200, SUCCESS, [deviceCookie(deviceToken)]);
      },
    ),
    route(
      {
        method: "POST",
        path: "/login",
        summary: "Sign in with email and password",
        auth: "none",
        body: loginInput,
        errors: LOGIN_ERRORS,
      },
      async (input) => loginResponse(await auth.login({ request: input.withDevice() }, await input.body())),
    ),
    route(
      {
        method: "POST",
        path: "/refresh",
        summary: "Rotate the refresh token",
        auth: "refresh",
        body: refreshInput,
        errors: ["SESSION_EXPIRED", "ACCOUNT_LOCKED", ...DB],
        clearOnError: {
          codes: ["REFRESH_TOKEN_INVALID", "SESSION_EXPIRED", "ACCOUNT_LOCKED"],
          cookies: ["access", "refresh"],
        },
      },
      async (input) => {
        const result = await auth.refresh(
          { token: input.refreshToken, request: input.meta },
          await input.body(),
        );
        const body = {
          user: result.user,
          accessToken: exposeTokens ? result.accessToken : null,
          refreshToken: exposeTokens ? result.refreshToken : null,
          accessTokenExpiresAt: accessTokenExpiresAt(result.accessToken),
        };
        return jsonResponse(200, body, sessionCookies(result));
      },
    ),
    route(
      {
        method: "POST",
        path: "/logout",
        summary: "End the current session and clear the cookies",
        auth: "sign-out",
        errors: [...DB],
      },
      async (input) => {
        await auth.logout(
          { request: input.meta },
          { accessToken: input.accessToken, refreshToken: input.refreshToken },
        );
        return jsonResponse(200, SUCCESS, signOutCookies());
      },
    ),
  ];
}

/** The signed-in user and their sessions. */
function sessionRoutes(auth: Auth, { signOutCookies, route, json }: RouteKit): Route[] {
  return [
    json(
      {
        method: "GET",
        path: "/me",
        summary: "The signed-in user",
        auth: "access",
        errors: ["USER_NOT_FOUND", ...DB],
      },
      async (input) => auth.getCurrentUser({ principal: input.principal }),
    ),
    json(
      { method: "GET", path: "/sessions", summary: "The user's sessions", auth: "access", errors: [...DB] },
      async (input) => ({ sessions: await auth.sessions.list({ principal: input.principal }) }),
    ),
    route(
      {
        method: "DELETE",
        path: "/sessions",
        summary: "Revoke every session of the user (others=true: all but the caller's)",
        auth: "access",
        query: ["others"],
        errors: ["VALIDATION_FAILED", ...DB],
      },
      async (input) => {
        const given = input.query.getAll("others");
        const { others } = parseInput(revokeSessionsQuery, { others: given.length > 1 ? given : given[0] });
        const call = { principal: input.principal, request: input.meta };
        if (others === "true") return jsonResponse(200, await auth.sessions.revokeOthers(call));
        return jsonResponse(200, await auth.sessions.revokeAll(call), signOutCookies());
      },
    ),
    route(
      {
        method: "DELETE",
        path: "/sessions/:id",
        summary: "Revoke one of the user's sessions",
        auth: "access",
        errors: ["NOT_FOUND", ...DB],
      },
      async (input) => {
        const { principal } = input;
        const sessionId = input.params.id ?? "";
        await auth.sessions.revoke({ principal }, sessionId);
        return jsonResponse(200, SUCCESS, sessionId === principal.sessionId ? signOutCookies() : []);
      },
    ),
  ];
}

/** The signed-in user's activity: their security events, newest first, a page at a time. */
function activityRoutes(auth: Auth, { json }: RouteKit): Route[] {
  return [
    json(
      {
        method: "GET",
        path: "/activity",
        summary: "The user's security events, newest first (cursor: the previous page's nextCursor)",
        auth: "access",
        query: ["cursor", "limit"],
        errors: ["VALIDATION_FAILED", ...DB],
      },
      async (input) =>
        auth.activity.list(
          { principal: input.principal },
          { cursor: input.query.get("cursor") ?? undefined, limit: input.query.get("limit") ?? undefined },
        ),
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
        body: signInCodeInput,
        errors: [...CODE_CHECK, "ACCOUNT_LOCKED", ...DB],
      },
      async (input) =>
        loginResponse(
          await auth.completeTwoFactorLogin(
            { token: input.twoFactorToken, request: input.withDevice() },
            await input.body(),
          ),
        ),
    ),
    route(
      {
        method: "POST",
        path: "/2fa/recover",
        summary: "Finish a sign-in with a recovery code",
        auth: "two-factor",
        body: signInCodeInput,
        errors: RECOVERY_ERRORS,
      },
      async (input) =>
        loginResponse(
          await auth.recoverWithRecoveryCode(
            { token: input.twoFactorToken, request: input.withDevice() },
            await input.body(),
          ),
        ),
    ),
    route(
      {
        method: "POST",
        path: "/step-up",
        summary: "Confirm the password before a settings change",
        auth: "access",
        body: stepUpInput,
        errors: STEP_UP_ERRORS,
      },
      async (input) =>
        stepUpResponse(
          await auth.stepUp({ principal: input.principal, request: input.meta }, await input.body()),
        ),
    ),
    route(
      {
        method: "POST",
        path: "/2fa/step-up",
        summary: "The second factor of a step-up",
        auth: "access-and-two-factor",
        body: codeInput,
        errors: [...CODE_CHECK, "IMPERSONATION_NOT_ALLOWED", ...DB],
      },
      async (input) =>
        stepUpResponse(
          await auth.completeTwoFactorStepUp(
            { principal: input.principal, token: input.twoFactorToken, request: input.meta },
            await input.body(),
          ),
        ),
    ),
  ];
}

/** Where a 2FA method is turned on (a POST with its code, for the use case `enable`) and off (a DELETE). */
interface MethodSwitch {
  enable: "confirmTotpSetup" | "enableEmailTwoFactor";
  on: Pick<RouteSpec, "path" | "summary" | "body" | "errors">;
  off: Pick<RouteSpec, "path" | "summary">;
}

/** Turning a method on: a verified address, then its first code. */
const ENABLING = ["EMAIL_NOT_VERIFIED", ...CODE_CHECK, ...SETTING] as const;

const METHOD_SWITCHES: Record<TwoFactorMethod, MethodSwitch> = {
  totp: {
    enable: "confirmTotpSetup",
    on: {
      path: "/2fa/totp/setup",
      summary: "Confirm TOTP setup with a code",
      body: confirmTotpInput,
      // The setup token of `GET /2fa/totp/setup` is refused like a 2FA token.
      errors: ["TWO_FACTOR_TOKEN_INVALID", ...ENABLING],
    },
    off: { path: "/2fa/totp", summary: "Turn TOTP off" },
  },
  email: {
    enable: "enableEmailTwoFactor",
    on: {
      path: "/2fa/email/enable",
      summary: "Turn email 2FA on with a mailed code",
      body: codeInput,
      errors: ENABLING,
    },
    off: { path: "/2fa/email", summary: "Turn email 2FA off" },
  },
};

/** The 2FA settings: TOTP and email on and off, the preferred method (access + step-up). */
function twoFactorSettingsRoutes(auth: Auth, { json, settings }: RouteKit): Route[] {
  /** The routes that turn `method` on (the body, its code, and the request go to `enable`) and off. */
  const onAndOff = (method: TwoFactorMethod): Route[] => {
    const { enable, on, off } = METHOD_SWITCHES[method];
    return [
      settings({ method: "POST", ...on }, async (call, input) => auth[enable](call, await input.body())),
      settings({ method: "DELETE", ...off, errors: ["TWO_FACTOR_DISABLED", ...SETTING] }, (call) =>
        auth.disableTwoFactorMethod(call, method),
      ),
    ];
  };
  return [
    settings(
      {
        method: "GET",
        path: "/2fa/totp/setup",
        summary: "Start TOTP setup: secret, URI, recovery codes",
        errors: ["EMAIL_NOT_VERIFIED", "DATABASE_ENCRYPTION_FAILURE", ...SETTING],
      },
      (call) => auth.getTotpSetup(call),
    ),
    ...onAndOff("totp"),
    json(
      {
        method: "POST",
        path: "/2fa/email/send",
        summary: "Mail a 2FA code (access token, or a login's 2FA token)",
        auth: "access-or-two-factor",
        errors: [
          "EMAIL_DISABLED",
          "EMAIL_NOT_VERIFIED",
          "TWO_FACTOR_DISABLED",
          "EMAIL_COOLDOWN_ACTIVE",
          "USER_NOT_FOUND",
          ...MAIL,
          ...DB,
        ],
      },
      async (input) =>
        auth.sendTwoFactorEmailCode({
          principal: input.principal,
          token: input.twoFactorToken,
          request: input.meta,
        }),
    ),
    json(
      {
        method: "GET",
        path: "/2fa/email/cooldown",
        summary: "Seconds until another 2FA code can be mailed (access token, or a login's 2FA token)",
        auth: "access-or-two-factor",
        errors: ["EMAIL_COOLDOWN_CACHE_FAILURE", ...SETTING],
      },
      async (input) =>
        auth.getTwoFactorEmailCooldown({ principal: input.principal, token: input.twoFactorToken }),
    ),
    ...onAndOff("email"),
    settings(
      {
        method: "POST",
        path: "/2fa/preferred-method",
        summary: "Choose the method login offers first",
        body: preferredMethodInput,
        errors: ["TWO_FACTOR_DISABLED", ...SETTING],
      },
      async (call, input) => auth.setPreferredTwoFactorMethod(call, await input.body()),
    ),
  ];
}

/** The emailed-link flow of a forgotten password. */
function passwordResetRoutes(auth: Auth, { signOutCookies, route, json, linkCall }: RouteKit): Route[] {
  const refusing = refusingUseCasesOf(auth);
  return [
    json(
      {
        method: "POST",
        path: "/password/reset-request",
        summary: "Mail a reset link",
        auth: "none",
        body: emailInput,
        errors: ["EMAIL_DISABLED", "EMAIL_COOLDOWN_ACTIVE", "RATE_LIMITED", ...MAIL, ...DB],
      },
      async (input) => {
        const call = { request: input.meta };
        const body = await input.body<Parameters<Auth["requestPasswordReset"]>[1]>();
        return refusing ? refusing.requestPasswordReset(call, body) : auth.requestPasswordReset(call, body);
      },
    ),
    json(
      {
        method: "GET",
        path: "/password/reset/cooldown",
        summary: "Seconds until another reset email",
        auth: "none",
        query: ["email"],
        errors: ["VALIDATION_FAILED", "EMAIL_COOLDOWN_CACHE_FAILURE"],
      },
      async (input) => auth.getPasswordResetCooldown({}, input.query.get("email") ?? undefined),
    ),
    route(
      {
        method: "POST",
        path: "/password/reset",
        summary: "Set a new password with a reset token",
        auth: "none",
        body: resetPasswordInput,
        query: ["token"],
        errors: [
          "PASSWORD_RESET_TOKEN_INVALID",
          "PASSWORD_RESET_TOKEN_EXPIRED",
          "PASSWORD_POLICY_VIOLATION",
          "RATE_LIMITED",
          "EMAIL_COOLDOWN_CACHE_FAILURE",
          ...DB,
          "PASSWORD_BREACHED",
          "BREACHED_PASSWORD_CHECK_FAILURE",
        ],
      },
      async (input) =>
        jsonResponse(200, await auth.resetPassword(linkCall(input), await input.body()), signOutCookies()),
    ),
  ];
}

/** The emailed-link flow of address verification. */
function verificationRoutes(auth: Auth, { json, linkCall }: RouteKit): Route[] {
  const refusing = refusingUseCasesOf(auth);
  return [
    json(
      {
        method: "POST",
        path: "/email/verification/send",
        summary: "Mail a verification link",
        auth: "access",
        errors: [
          "EMAIL_ALREADY_VERIFIED",
          "USER_NOT_FOUND",
          "EMAIL_COOLDOWN_ACTIVE",
          "RATE_LIMITED",
          "EMAIL_DISABLED",
          "EMAIL_VERIFICATION_TOKEN_CREATION_FAILURE",
          ...MAIL,
          ...DB,
        ],
      },
      async (input) => {
        const call = { principal: input.principal, request: input.meta };
        return refusing ? refusing.resendVerification(call) : auth.resendVerification(call);
      },
    ),
    json(
      {
        method: "GET",
        path: "/email/verification/cooldown",
        summary: "Seconds until another verification email",
        auth: "access",
        errors: ["USER_NOT_FOUND", "EMAIL_COOLDOWN_CACHE_FAILURE", ...DB],
      },
      async (input) => auth.getVerificationCooldown({ principal: input.principal }),
    ),
    json(
      {
        method: "POST",
        path: "/email/verification",
        summary: "Verify the address with a token",
        auth: "none",
        query: ["token"],
        errors: [
          "EMAIL_ALREADY_VERIFIED",
          "EMAIL_VERIFICATION_TOKEN_INVALID",
          "EMAIL_VERIFICATION_TOKEN_EXPIRED",
          "RATE_LIMITED",
          "USER_NOT_FOUND",
          "EMAIL_COOLDOWN_CACHE_FAILURE",
          ...DB,
        ],
      },
      (input) => auth.verifyEmail(linkCall(input)),
    ),
  ];
}

/** The provider of an identity-provider route (`:provider`). */
const providerParam = (input: RouteInput) => input.params.provider ?? "";

/** The state cookie of a started authorization. */
const stateCookie = (cookies: Cookies, start: AuthorizationStart) =>
  cookies.set("oauthState", start.state, start.stateTtlSeconds);

/**
 * Identity providers (the "Identity providers" section of packages/core/README.md): the list,
 * sign-in and step-up. The browser goes to the provider and back, so authorize and callback
 * answer with redirects; the state is bound to the browser by an HttpOnly cookie and every
 * callback error is a 302 to `appOrigin` with `?error=<code>`.
 */
function oauthSignInRoutes(auth: Auth, { sessionCookies, route, json }: RouteKit, cookies: Cookies): Route[] {
  const { options, logger } = auth;
  const appUrl = (path: string, extra: Record<string, string> = {}) =>
    appUrlFor(options.appOrigin, path, extra);
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
        errors: [
          "NOT_FOUND",
          "VALIDATION_FAILED",
          "IDENTITY_PROVIDER_MISMATCH",
          "IDENTITY_PROVIDER_FAILURE",
          "USER_NOT_FOUND",
          ...DB,
        ],
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
    route(
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
          result = await auth.identityProviders.callback(
            { request: input.withDevice() },
            { provider, query: input.query.toString(), state: input.cookie("oauthState") },
          );
        } catch (error) {
          const path = input.request.url.split("?")[0] ?? "";
          return callbackFailure(error, { logger, appUrl, clearState, path });
        }
        return callbackRedirect(result, { cookies, options, sessionCookies, appUrl, clearState, provider });
      },
    ),
  ];
}

/** Linking an identity provider to the signed-in account and unlinking it (access + step-up). */
function oauthAccountRoutes(auth: Auth, { route, settings }: RouteKit, cookies: Cookies): Route[] {
  return [
    route(
      {
        method: "POST",
        path: "/oauth/:provider/link",
        summary: "Start linking an identity provider to the account: its authorization URL",
        auth: "step-up",
        body: identityLinkInput,
        errors: ["NOT_FOUND", "IDENTITY_PROVIDER_ALREADY_LINKED", "IDENTITY_PROVIDER_FAILURE", ...SETTING],
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
        errors: ["NOT_FOUND", "IDENTITY_PROVIDER_LAST_METHOD", ...SETTING],
      },
      (call, input) => auth.identityProviders.unlink(call, providerParam(input)),
    ),
  ];
}

/** The signed-in user's own account (CONTRACT §11): password, address, deletion, export. */
function selfServiceRoutes(
  auth: Auth,
  { signOutCookies, route, json, settings, linkCall }: RouteKit,
): Route[] {
  return [
    json(
      {
        method: "POST",
        path: "/password/change",
        summary: "Change the password (the current one is checked on the login budget); other sessions end",
        auth: "access",
        body: changePasswordInput,
        errors: [
          "PASSWORD_POLICY_VIOLATION",
          "PASSWORD_NOT_SET",
          "INVALID_CREDENTIALS",
          "LOGIN_THROTTLED",
          "EMAIL_COOLDOWN_CACHE_FAILURE",
          "PASSWORD_BREACHED",
          "BREACHED_PASSWORD_CHECK_FAILURE",
          ...SETTING,
        ],
      },
      async (input) =>
        auth.account.changePassword({ principal: input.principal, request: input.meta }, await input.body()),
    ),
    settings(
      {
        method: "POST",
        path: "/email/change",
        summary: "Mail a link that moves the account to a new address (the same answer for a taken one)",
        body: emailChangeInput,
        errors: ["EMAIL_DISABLED", "EMAIL_COOLDOWN_ACTIVE", ...MAIL, ...SETTING],
      },
      async (call, input) => auth.account.requestEmailChange(call, await input.body()),
    ),
    json(
      {
        method: "POST",
        path: "/email/change/confirm",
        summary: "Move the account to the new address with the emailed token",
        auth: "none",
        query: ["token"],
        errors: [
          "EMAIL_CHANGE_TOKEN_INVALID",
          "EMAIL_ADDRESS_TAKEN",
          "RATE_LIMITED",
          "EMAIL_COOLDOWN_CACHE_FAILURE",
          ...DB,
        ],
      },
      (input) => auth.account.confirmEmailChange(linkCall(input)),
    ),
    route(
      {
        method: "DELETE",
        path: "/me",
        summary: "Delete the account and everything stored about it; clears the cookies",
        auth: "step-up",
        errors: ["EMAIL_COOLDOWN_CACHE_FAILURE", ...SETTING],
      },
      async (input) => jsonResponse(200, await auth.account.delete(stepUpCall(input)), signOutCookies()),
    ),
    settings(
      {
        method: "GET",
        path: "/me/export",
        summary: "What is stored about the user, without hashes, secrets or tokens",
        errors: [...SETTING],
      },
      (call) => auth.account.export(call),
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

/**
 * Sign-in by an emailed link or code (`emailSignIn.enabled`; 404 `NOT_FOUND` otherwise). The
 * link opens a page of the app (`email.links.emailSignIn`) that posts its token here: a GET of
 * the link never signs in.
 */
function emailSignInRoutes(auth: Auth, { json, route, loginResponse }: RouteKit): Route[] {
  return [
    json(
      {
        method: "POST",
        path: "/email-sign-in/request",
        summary: "Mail a sign-in code and link (the same answer for any address)",
        auth: "none",
        body: emailInput,
        errors: ["NOT_FOUND", "EMAIL_DISABLED", "EMAIL_COOLDOWN_ACTIVE", "RATE_LIMITED", ...MAIL, ...DB],
      },
      async (input) => auth.requestEmailSignIn({ request: input.meta }, await input.body()),
    ),
    route(
      {
        method: "POST",
        path: "/email-sign-in",
        summary: "Sign in with an emailed link's token, or the address and its emailed code",
        auth: "none",
        body: emailSignInInput,
        errors: [
          "NOT_FOUND",
          "EMAIL_SIGN_IN_INVALID",
          "EMAIL_SIGN_IN_THROTTLED",
          "RATE_LIMITED",
          "TWO_FACTOR_DISABLED",
          "EMAIL_COOLDOWN_CACHE_FAILURE",
          ...DB,
        ],
      },
      async (input) =>
        loginResponse(await auth.signInWithEmail({ request: input.withDevice() }, await input.body())),
    ),
  ];
}

/** The second half of a password sign-in that answered 403 `PASSWORD_CHANGE_REQUIRED` (docs/back-office.md). */
function requiredPasswordChangeRoutes(auth: Auth, { loginResponse, route }: RouteKit): Route[] {
  return [
    route(
      {
        method: "POST",
        path: "/password/change-required",
        summary: "Set the new password a login asked for (PASSWORD_CHANGE_REQUIRED), then sign in",
        auth: "none",
        body: requiredPasswordChangeInput,
        errors: [
          "PASSWORD_CHANGE_TOKEN_INVALID",
          "PASSWORD_POLICY_VIOLATION",
          "ACCOUNT_LOCKED",
          "EMAIL_COOLDOWN_CACHE_FAILURE",
          ...DB,
        ],
      },
      async (input) =>
        loginResponse(
          await auth.completeRequiredPasswordChange({ request: input.withDevice() }, await input.body()),
        ),
    ),
  ];
}

/** The user id of an admin route (`:id`). */
const userParam = (input: RouteInput) => input.params.id ?? "";

/** The call of an admin route: the admin's principal, step-up token (if any) and the request. */
const adminCall = (input: RouteInput<"admin">): Call => ({
  principal: input.principal,
  stepUpToken: input.stepUpToken,
  request: input.meta,
});

/** What every admin route can answer besides its own: the caller is no admin, or has no step-up. */
const ADMIN = ["ADMIN_REQUIRED", "STEP_UP_REQUIRED", "IMPERSONATION_NOT_ALLOWED", ...DB] as const;

/**
 * The back office under `/admin` (docs/back-office.md), mounted only when the host passes
 * `admin.authorize`: an access token and a step-up token of a caller it allows.
 */
function adminRoutes(auth: Auth, kit: RouteKit): Route[] {
  const { json } = kit;
  const admin = <P extends string>(
    method: "GET" | "POST" | "DELETE",
    path: P,
    summary: string,
    errors: readonly ErrorCode[],
    run: (call: Call, input: RouteInput<"admin">) => Promise<unknown>,
    extra: Pick<RouteSpec<"admin">, "body" | "query"> = {},
  ) =>
    json({ method, path, summary, auth: "admin", errors: [...errors, ...ADMIN], ...extra }, (input) =>
      run(adminCall(input), input),
    );
  return [
    admin(
      "GET",
      "/admin/users",
      "Users by address prefix (query), a page at a time (cursor: the previous page's nextCursor)",
      ["VALIDATION_FAILED"],
      (call, input) =>
        auth.admin.listUsers(call, {
          query: input.query.get("query") ?? undefined,
          cursor: input.query.get("cursor") ?? undefined,
          limit: input.query.get("limit") ?? undefined,
        }),
      { query: ["query", "cursor", "limit"] },
    ),
    admin(
      "GET",
      "/admin/users/:id",
      "A user with sessions, identities, second factors, passkeys and lock state",
      ["USER_NOT_FOUND"],
      (call, input) => auth.admin.getUser(call, userParam(input)),
    ),
    admin(
      "POST",
      "/admin/users/:id/lock",
      "Lock the account (it signs in by no method) and end its sessions",
      ["USER_NOT_FOUND", "VALIDATION_FAILED"],
      async (call, input) => {
        const body = (await input.body<{ reason?: string } | undefined>()) ?? {};
        return auth.admin.lockUser(call, { userId: userParam(input), reason: body.reason });
      },
      { body: lockUserBody },
    ),
    admin("POST", "/admin/users/:id/unlock", "Lift the lock", ["USER_NOT_FOUND"], (call, input) =>
      auth.admin.unlockUser(call, userParam(input)),
    ),
    admin(
      "DELETE",
      "/admin/users/:id/sessions",
      "End every session of the user",
      ["USER_NOT_FOUND"],
      (call, input) => auth.admin.revokeSessions(call, userParam(input)),
    ),
    admin(
      "POST",
      "/admin/users/:id/require-password-change",
      "The next password sign-in must set a new password first; every session ends",
      ["USER_NOT_FOUND"],
      (call, input) => auth.admin.requirePasswordChange(call, { userId: userParam(input) }),
    ),
    impersonateRoute(auth, kit),
  ];
}

/**
 * POST /admin/users/:id/impersonate: the tokens in the body; an admin authenticated by cookie (a
 * browser) gets the session's cookies instead, so the tokens stay out of the page's script.
 */
function impersonateRoute(auth: Auth, { route, cookies, sessionCookies }: RouteKit): Route {
  return route(
    {
      method: "POST",
      path: "/admin/users/:id/impersonate",
      summary:
        "A session as the user for at most one hour that cannot step up (tokens in the body; with cookie authentication, the browser's session cookies instead)",
      auth: "admin",
      errors: ["USER_NOT_FOUND", "ACCOUNT_LOCKED", ...ADMIN],
    },
    async (input) => {
      const { user, accessToken, refreshToken, expiresAt } = await auth.admin.impersonate(
        adminCall(input),
        userParam(input),
      );
      if (!input.accessByCookie()) return jsonResponse(200, { user, accessToken, refreshToken, expiresAt });
      // A browser's admin (cookie authentication): the browser becomes the user. The session's
      // cookies are set (browser-session cookies, no Max-Age) and the tokens stay out of the
      // page's script; the admin's step-up cookie goes, as the session it belonged to does here.
      return jsonResponse(200, { user, accessToken: null, refreshToken: null, expiresAt }, [
        ...sessionCookies({ accessToken, refreshToken, rememberMe: false }),
        cookies.clear("stepUp"),
        cookies.clear("twoFactor"),
      ]);
    },
  );
}

/** How long the browser keeps a passkey sign-in's challenge cookie: the challenge's 5 minutes. */
const PASSKEY_CHALLENGE_COOKIE_SECONDS = 300;
/** The refusals of a passkey ceremony's answer. */
const PASSKEY_CHECK = [
  "PASSKEY_CHALLENGE_INVALID",
  "PASSKEY_CHALLENGE_EXPIRED",
  "PASSKEY_VERIFICATION_FAILED",
  "NOT_FOUND",
] as const;

/**
 * Passkeys (CONTRACT §12): registration (access + step-up), sign-in (none; the challenge is bound
 * to the browser by an HttpOnly cookie scoped to `<prefix>/passkeys`), step-up (access), and the
 * list, rename and removal. `NOT_FOUND` when `webauthn` is not configured.
 */
function passkeyRoutes(auth: Auth, kit: RouteKit, cookies: Cookies): Route[] {
  // Sign-in first: `/passkeys/login` must come before `/passkeys/:id` in the OpenAPI document's paths.
  return [...passkeySignInRoutes(auth, kit, cookies), ...passkeyAccountRoutes(auth, kit)];
}

/** Registering, listing, renaming and removing the signed-in user's passkeys. */
function passkeyAccountRoutes(auth: Auth, { json, settings }: RouteKit): Route[] {
  return [
    settings(
      {
        method: "POST",
        path: "/passkeys/register/options",
        summary: "Start registering a passkey: the options of navigator.credentials.create()",
        errors: ["NOT_FOUND", ...SETTING],
      },
      (call) => auth.passkeys.registrationOptions(call),
    ),
    settings(
      {
        method: "POST",
        path: "/passkeys/register",
        summary: "Store the passkey of a navigator.credentials.create() response",
        body: passkeyRegistrationInput,
        errors: [...PASSKEY_CHECK, "PASSKEY_ALREADY_REGISTERED", ...SETTING],
      },
      async (call, input) => auth.passkeys.register(call, await input.body()),
    ),
    json(
      {
        method: "GET",
        path: "/passkeys",
        summary: "The user's passkeys",
        auth: "access",
        errors: ["NOT_FOUND", ...DB],
      },
      async (input) => auth.passkeys.list({ principal: input.principal }),
    ),
    settings(
      {
        method: "PATCH",
        path: "/passkeys/:id",
        summary: "Rename a passkey",
        body: passkeyRenameInput,
        errors: ["NOT_FOUND", ...SETTING],
      },
      async (call, input) =>
        auth.passkeys.rename(call, { id: input.params.id ?? "", body: await input.body() }),
    ),
    settings(
      {
        method: "DELETE",
        path: "/passkeys/:id",
        summary: "Remove a passkey (not the account's last way to sign in)",
        errors: ["NOT_FOUND", "LAST_SIGN_IN_METHOD", ...SETTING],
      },
      (call, input) => auth.passkeys.delete(call, input.params.id ?? ""),
    ),
  ];
}

/** Passkey sign-in (its challenge bound to the browser by a cookie) and step-up. */
function passkeySignInRoutes(auth: Auth, kit: RouteKit, cookies: Cookies): Route[] {
  const { route, json, loginResponse, stepUpResponse } = kit;
  const clearChallenge = cookies.clear("passkeyChallenge");
  return [
    route(
      {
        method: "POST",
        path: "/passkeys/login/options",
        summary: "Start a passkey sign-in (email: email-first): the options of navigator.credentials.get()",
        auth: "none",
        body: passkeySignInOptionsInput,
        errors: ["NOT_FOUND", "RATE_LIMITED", "EMAIL_COOLDOWN_CACHE_FAILURE", ...DB],
      },
      async (input) => {
        const start = await auth.passkeys.signInOptions({ request: input.meta }, await input.body());
        return jsonResponse(200, start.options, [
          cookies.set("passkeyChallenge", start.browserBinding, PASSKEY_CHALLENGE_COOKIE_SECONDS),
        ]);
      },
    ),
    route(
      {
        method: "POST",
        path: "/passkeys/login",
        summary: "Sign in with a navigator.credentials.get() response",
        auth: "none",
        body: passkeySignInInput,
        errors: [
          ...PASSKEY_CHECK,
          "PASSKEY_UNKNOWN",
          "LOGIN_THROTTLED",
          "EMAIL_COOLDOWN_CACHE_FAILURE",
          ...DB,
        ],
        clearOnError: {
          codes: [...PASSKEY_CHECK, "PASSKEY_UNKNOWN"],
          cookies: ["passkeyChallenge"],
        },
      },
      async (input) => {
        const signedIn = await auth.passkeys.signIn(
          { token: input.cookie("passkeyChallenge"), request: input.withDevice() },
          await input.body(),
        );
        const response = loginResponse(signedIn);
        return { ...response, cookies: [...(response.cookies ?? []), clearChallenge] };
      },
    ),
    json(
      {
        method: "POST",
        path: "/passkeys/step-up/options",
        summary: "Start a passkey step-up: the options of navigator.credentials.get()",
        auth: "access",
        errors: ["NOT_FOUND", ...SETTING],
      },
      async (input) => auth.passkeys.stepUpOptions({ principal: input.principal, request: input.meta }),
    ),
    route(
      {
        method: "POST",
        path: "/passkeys/step-up",
        summary: "Step up with a passkey: the step-up token",
        auth: "access",
        body: passkeyStepUpInput,
        errors: [...PASSKEY_CHECK, "PASSKEY_UNKNOWN", ...SETTING],
      },
      async (input) =>
        stepUpResponse(
          await auth.passkeys.stepUp({ principal: input.principal, request: input.meta }, await input.body()),
        ),
    ),
  ];
}
