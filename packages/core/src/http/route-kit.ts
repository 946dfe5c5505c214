import type { Auth, LoginResult, StepUpResult, TwoFactorChallenge } from "../create-auth/create-auth.js";
import type { Call, Principal } from "../model.js";
import { errorsOf } from "../use-case-errors.js";
import { emailInput } from "../validation.js";
import { type CookieKind, type Cookies, DEVICE_COOKIE_MAX_AGE_SECONDS } from "./cookies.js";
import { header } from "./request-checks.js";
import { jsonResponse } from "./respond.js";
import type { RequestInput, Route, RouteAuth, RouteInput, RouteOf, RouteSpec } from "./route.js";
import { accessTokenExpiresAt } from "./token-expiry.js";
import type { HttpResponse } from "./types.js";

/** The body of a route that answers only that it worked. */
export const SUCCESS = { success: true } as const;
/** What a session's auth cookies are made of. */
type SessionCookieInput = { accessToken: string; refreshToken: string; rememberMe: boolean };
const SIGN_OUT: CookieKind[] = ["access", "refresh", "twoFactor", "stepUp"];

/** The responses the route tables share: sign-in, step-up, the session's and the device's cookies. */
export function createRouteKit(auth: Auth, cookies: Cookies) {
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
  return {
    exposeTokens,
    cookies,
    signOutCookies,
    sessionCookies,
    deviceCookie,
    loginResponse,
    stepUpResponse,
  };
}

/** What the route tables share (`createRouteKit`). */
export type RouteKit = ReturnType<typeof createRouteKit>;

/** A route: its data and its handler, which gets the credentials its `auth` names. */
export function route<A extends RouteAuth>(spec: RouteSpec<A>, handle: RouteOf<A>["handle"]): Route {
  return { ...spec, handle } as RouteOf<A> as Route;
}

/** A route that answers 200 with the use case's result as JSON. */
export function json<A extends RouteAuth>(
  spec: RouteSpec<A>,
  run: (input: RouteInput<A>) => Promise<unknown>,
): Route {
  return route(spec, async (input) => jsonResponse(200, await run(input)));
}

/** A security-settings route: its use case's call has the principal, the step-up token (header or cookie) and the request. */
export function settings(
  spec: Omit<RouteSpec<"step-up">, "auth">,
  run: (call: Call, input: RouteInput<"step-up">) => Promise<unknown>,
): Route {
  return json({ ...spec, auth: "step-up" }, (input) => run(stepUpCall(input), input));
}

/**
 * POST of an address to mail a link or code to (a password reset, an emailed sign-in): public,
 * behind the CAPTCHA when it guards `useCase`; answers the use case's result (its cooldown).
 */
export function emailRequestRoute(
  auth: Auth,
  useCase: "requestPasswordReset" | "requestEmailSignIn",
  path: string,
  summary: string,
): Route {
  const errors = errorsOf(useCase);
  const spec: RouteSpec<"none"> = { method: "POST", path, summary, auth: "none", body: emailInput, errors };
  return json(spec, async (input) => {
    const body = await input.body<Parameters<Auth[typeof useCase]>[1]>();
    return auth[useCase](withCaptcha(requestCall(input), input, body), body);
  });
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

// The calls of the routes' use cases: what each kind of route passes, built in one place.

/**
 * `call` with the request's CAPTCHA token: the `X-Captcha-Token` header, else the body's
 * `captchaToken` (a string; anything else counts as none).
 */
export const withCaptcha = (call: Call, input: RequestInput, body: unknown): Call => {
  const fromBody =
    typeof body === "object" && body !== null ? (body as { captchaToken?: unknown }).captchaToken : undefined;
  const captchaToken =
    header(input.request, "x-captcha-token") ?? (typeof fromBody === "string" ? fromBody : undefined);
  return captchaToken === undefined ? call : { ...call, captchaToken };
};

/** The call of a public route: the request alone. */
export const requestCall = (input: RequestInput): Call => ({ request: input.meta });

/** The call of a route that may sign the browser in: the request with the browser's device token. */
export const deviceCall = (input: RequestInput): Call => ({ request: input.withDevice() });

/** `deviceCall` with the credential the use case consumes (a 2FA token, a passkey challenge). */
export const deviceTokenCall = (input: RequestInput, token: string | undefined): Call => ({
  token,
  request: input.withDevice(),
});

/** The call of a route that consumes a credential (a refresh token): the token and the request. */
export const tokenCall = (input: RequestInput, token: string | undefined): Call => ({
  token,
  request: input.meta,
});

/** The call of a signed-in read: the principal alone. */
export const principalCall = (input: { principal: Principal }): Call => ({ principal: input.principal });

/** The call of a signed-in action: the principal and the request. */
export const signedInCall = (input: RequestInput & { principal: Principal }): Call => ({
  principal: input.principal,
  request: input.meta,
});

/** The call of a route with a 2FA token: the principal if one came, the token and the request. */
export const twoFactorCall = (
  input: RequestInput & { principal?: Principal | undefined; twoFactorToken?: string | undefined },
): Call => ({ principal: input.principal, token: input.twoFactorToken, request: input.meta });

/** The call of a route with `auth: "step-up"`: the principal, the step-up token and the request. */
export const stepUpCall = (input: RouteInput<"step-up">): Call => ({
  principal: input.principal,
  stepUpToken: input.stepUpToken,
  request: input.meta,
});

/** The call of an admin route: the admin's principal, step-up token (if any) and the request. */
export const adminCall = (input: RouteInput<"admin">): Call => ({
  principal: input.principal,
  stepUpToken: input.stepUpToken,
  request: input.meta,
});

/** The call of an emailed link's route: the link's token (`?token=`) and the request. */
export const linkCall = (input: RequestInput): Call =>
  tokenCall(input, input.query.get("token") ?? undefined);

/** A path parameter (`:name`), or "" when the path has none (the router always gives it). */
export const param = (input: RequestInput, name: string): string => input.params[name] ?? "";
