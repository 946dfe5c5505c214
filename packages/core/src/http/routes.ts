import type { Principal, RequestContext } from "../context.js";
import type { Auth } from "../create-auth.js";
import type { TwoFactorChallenge } from "../two-factor/second-factor.js";
import type { LoginResult } from "../use-cases/login.js";
import type { StepUpResult } from "../use-cases/step-up.js";
import type { CookieKind, Cookies } from "./cookies.js";
import { jsonResponse } from "./respond.js";
import type { HttpRequest, HttpResponse } from "./types.js";

/** What a route handler gets: the parsed request plus lazy helpers for body and credentials. */
export interface RouteInput {
  request: HttpRequest;
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  meta: RequestContext;
  /** The parsed JSON body (see `readJsonBody`). */
  body(): Promise<unknown>;
  /** A token by the header/cookie rules of `allowHeaderAuthentication` and `preferHeaderAuthentication`. */
  token(kind: "access" | "refresh" | "twoFactor" | "stepUp"): string | undefined;
  /** The access token's principal; throws the 401 codes. */
  principal(): Promise<Principal>;
}

export interface Route {
  method: "GET" | "POST" | "DELETE";
  /** Relative to the mount prefix; `:name` matches one path segment. */
  path: string;
  handle(input: RouteInput): Promise<HttpResponse>;
}

const SUCCESS = { success: true } as const;
const CLEARED_ON_SIGN_OUT: CookieKind[] = ["access", "refresh", "twoFactor", "stepUp"];

/** The route table of CONTRACT.md §3, each entry one use case call and its response. */
export function buildRoutes(auth: Auth, cookies: Cookies): Route[] {
  const { options } = auth;
  const exposeTokens = options.allowHeaderAuthentication;
  const signOutCookies = () => CLEARED_ON_SIGN_OUT.map((kind) => cookies.clear(kind));
  const sessionCookies = (accessToken: string, refreshToken: string) => [
    cookies.set("access", accessToken, options.accessTokenTtlSeconds),
    cookies.set("refresh", refreshToken, options.refreshTokenTtlSeconds),
  ];
  /** The 2FA branch of login and step-up: the 2FA token as cookie (and in the body with header auth), nothing else. */
  const challengeBody = (challenge: TwoFactorChallenge) => ({
    twoFactorRequired: true,
    twoFactorMethods: challenge.twoFactorMethods,
    preferredTwoFactorMethod: challenge.preferredTwoFactorMethod,
    twoFactorAuthenticationToken: exposeTokens ? challenge.twoFactorAuthenticationToken : null,
  });
  const challengeCookie = (challenge: TwoFactorChallenge) =>
    cookies.set("twoFactor", challenge.twoFactorAuthenticationToken, options.twoFactorTokenTtlSeconds);
  const loginResponse = (result: LoginResult): HttpResponse => {
    if (result.twoFactorRequired) {
      return jsonResponse(
        200,
        { user: null, accessToken: null, refreshToken: null, ...challengeBody(result) },
        [challengeCookie(result)],
      );
    }
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
    if (result.twoFactorRequired) {
      return jsonResponse(200, { stepUpToken: null, ...challengeBody(result) }, [challengeCookie(result)]);
    }
    return jsonResponse(
      200,
      { stepUpToken: exposeTokens ? result.stepUpToken : null, twoFactorRequired: false },
      [cookies.set("stepUp", result.stepUpToken, options.stepUpTokenTtlSeconds), cookies.clear("twoFactor")],
    );
  };
  /** A settings change: the principal plus the step-up token (header or cookie). */
  const withStepUp = async (input: RouteInput) => ({
    principal: await input.principal(),
    stepUp: input.token("stepUp"),
  });

  return [
    {
      method: "POST",
      path: "/register",
      handle: async (input) => jsonResponse(200, await auth.register(await input.body(), input.meta)),
    },
    {
      method: "POST",
      path: "/login",
      handle: async (input) => loginResponse(await auth.login(await input.body(), input.meta)),
    },
    {
      method: "POST",
      path: "/2fa/login",
      handle: async (input) =>
        loginResponse(
          await auth.completeTwoFactorLogin(input.token("twoFactor"), await input.body(), input.meta),
        ),
    },
    {
      method: "POST",
      path: "/2fa/recover",
      handle: async (input) =>
        loginResponse(
          await auth.recoverWithRecoveryCode(input.token("twoFactor"), await input.body(), input.meta),
        ),
    },
    {
      method: "POST",
      path: "/step-up",
      handle: async (input) =>
        stepUpResponse(await auth.stepUp(await input.principal(), await input.body(), input.meta)),
    },
    {
      method: "POST",
      path: "/2fa/step-up",
      handle: async (input) =>
        stepUpResponse(
          await auth.completeTwoFactorStepUp(
            await input.principal(),
            input.token("twoFactor"),
            await input.body(),
            input.meta,
          ),
        ),
    },
    {
      method: "GET",
      path: "/2fa/totp/setup",
      async handle(input) {
        const { principal, stepUp } = await withStepUp(input);
        return jsonResponse(200, await auth.getTotpSetup(principal, stepUp));
      },
    },
    {
      method: "POST",
      path: "/2fa/totp/setup",
      async handle(input) {
        const { principal, stepUp } = await withStepUp(input);
        return jsonResponse(
          200,
          await auth.confirmTotpSetup(principal, stepUp, await input.body(), input.meta),
        );
      },
    },
    {
      method: "DELETE",
      path: "/2fa/totp",
      async handle(input) {
        const { principal, stepUp } = await withStepUp(input);
        return jsonResponse(200, await auth.disableTwoFactorMethod(principal, stepUp, "totp", input.meta));
      },
    },
    {
      method: "POST",
      path: "/2fa/email/send",
      async handle(input) {
        const twoFactorToken = input.token("twoFactor");
        const hasAccess = input.token("access") !== undefined;
        const who =
          !hasAccess && twoFactorToken ? { twoFactorToken } : { principal: await input.principal() };
        return jsonResponse(200, await auth.sendTwoFactorEmailCode(who, input.meta));
      },
    },
    {
      method: "GET",
      path: "/2fa/email/cooldown",
      handle: async (input) =>
        jsonResponse(200, await auth.getTwoFactorEmailCooldown(await input.principal())),
    },
    {
      method: "POST",
      path: "/2fa/email/enable",
      async handle(input) {
        const { principal, stepUp } = await withStepUp(input);
        return jsonResponse(
          200,
          await auth.enableEmailTwoFactor(principal, stepUp, await input.body(), input.meta),
        );
      },
    },
    {
      method: "DELETE",
      path: "/2fa/email",
      async handle(input) {
        const { principal, stepUp } = await withStepUp(input);
        return jsonResponse(200, await auth.disableTwoFactorMethod(principal, stepUp, "email", input.meta));
      },
    },
    {
      method: "POST",
      path: "/2fa/preferred-method",
      async handle(input) {
        const { principal, stepUp } = await withStepUp(input);
        return jsonResponse(
          200,
          await auth.setPreferredTwoFactorMethod(principal, stepUp, await input.body()),
        );
      },
    },
    {
      method: "POST",
      path: "/refresh",
      async handle(input) {
        const result = await auth.refresh(input.token("refresh"), await input.body(), input.meta);
        return jsonResponse(
          200,
          {
            user: result.user,
            accessToken: exposeTokens ? result.accessToken : null,
            refreshToken: exposeTokens ? result.refreshToken : null,
          },
          sessionCookies(result.accessToken, result.refreshToken),
        );
      },
    },
    {
      method: "POST",
      path: "/logout",
      async handle(input) {
        await auth.logout({ accessToken: input.token("access"), refreshToken: input.token("refresh") });
        return jsonResponse(200, SUCCESS, signOutCookies());
      },
    },
    {
      method: "GET",
      path: "/me",
      handle: async (input) => jsonResponse(200, await auth.getCurrentUser(await input.principal())),
    },
    {
      method: "GET",
      path: "/sessions",
      handle: async (input) =>
        jsonResponse(200, { sessions: await auth.listSessions(await input.principal()) }),
    },
    {
      method: "DELETE",
      path: "/sessions",
      async handle(input) {
        const result = await auth.revokeAllSessions(await input.principal());
        return jsonResponse(200, result, signOutCookies());
      },
    },
    {
      method: "POST",
      path: "/password/reset-request",
      handle: async (input) =>
        jsonResponse(200, await auth.requestPasswordReset(await input.body(), input.meta)),
    },
    {
      method: "GET",
      path: "/password/reset/cooldown",
      handle: async (input) =>
        jsonResponse(200, await auth.getPasswordResetCooldown(input.query.get("email") ?? undefined)),
    },
    {
      method: "POST",
      path: "/password/reset",
      async handle(input) {
        const result = await auth.resetPassword(
          input.query.get("token") ?? undefined,
          await input.body(),
          input.meta,
        );
        return jsonResponse(200, result, signOutCookies());
      },
    },
    {
      method: "POST",
      path: "/email/verification/send",
      handle: async (input) =>
        jsonResponse(200, await auth.resendVerification(await input.principal(), input.meta)),
    },
    {
      method: "GET",
      path: "/email/verification/cooldown",
      handle: async (input) => jsonResponse(200, await auth.getVerificationCooldown(await input.principal())),
    },
    {
      method: "POST",
      path: "/email/verification",
      handle: async (input) =>
        jsonResponse(200, await auth.verifyEmail(input.query.get("token") ?? undefined, input.meta)),
    },
    {
      method: "DELETE",
      path: "/sessions/:id",
      async handle(input) {
        const principal = await input.principal();
        const sessionId = input.params.id ?? "";
        await auth.revokeSession(principal, sessionId);
        return jsonResponse(200, SUCCESS, sessionId === principal.sessionId ? signOutCookies() : []);
      },
    },
  ];
}
