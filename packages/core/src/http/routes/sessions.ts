import type { Auth } from "../../create-auth/create-auth.js";
import { errorsOf } from "../../use-case-errors.js";
import {
  loginInput,
  parseInput,
  refreshInput,
  registerInput,
  revokeSessionsQuery,
} from "../../validation.js";
import { jsonResponse } from "../respond.js";
import type { Route } from "../route.js";
import {
  deviceCall,
  json,
  param,
  principalCall,
  type RouteKit,
  requestCall,
  route,
  SUCCESS,
  signedInCall,
  tokenCall,
  withCaptcha,
} from "../route-kit.js";
import { accessTokenExpiresAt } from "../token-expiry.js";

/** Sign-up, sign-in, refresh and sign-out. */
export function signInRoutes(
  auth: Auth,
  { exposeTokens, signOutCookies, sessionCookies, deviceCookie, loginResponse }: RouteKit,
): Route[] {
  return [
    route(
      {
        method: "POST",
        path: "/register",
        summary: "Create a password account",
        auth: "none",
        body: registerInput,
        errors: errorsOf("register"),
      },
      async (input) => {
        const body = await input.body<Parameters<Auth["register"]>[1]>();
        const { deviceToken } = await auth.register(withCaptcha(deviceCall(input), input, body), body);
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
        errors: errorsOf("login"),
      },
      async (input) => {
        const body = await input.body<Parameters<Auth["login"]>[1]>();
        return loginResponse(await auth.login(withCaptcha(deviceCall(input), input, body), body));
      },
    ),
    route(
      {
        method: "POST",
        path: "/refresh",
        summary: "Rotate the refresh token",
        auth: "refresh",
        body: refreshInput,
        errors: errorsOf("refresh"),
        clearOnError: {
          codes: ["REFRESH_TOKEN_INVALID", "SESSION_EXPIRED", "ACCOUNT_LOCKED"],
          cookies: ["access", "refresh"],
        },
      },
      async (input) => {
        const result = await auth.refresh(tokenCall(input, input.refreshToken), await input.body());
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
        errors: errorsOf("logout"),
      },
      async (input) => {
        await auth.logout(requestCall(input), {
          accessToken: input.accessToken,
          refreshToken: input.refreshToken,
        });
        return jsonResponse(200, SUCCESS, signOutCookies());
      },
    ),
  ];
}

/** The signed-in user and their sessions. */
export function sessionRoutes(auth: Auth, { signOutCookies }: RouteKit): Route[] {
  return [
    json(
      {
        method: "GET",
        path: "/me",
        summary: "The signed-in user",
        auth: "access",
        errors: errorsOf("getCurrentUser"),
      },
      async (input) => auth.getCurrentUser(principalCall(input)),
    ),
    json(
      {
        method: "GET",
        path: "/sessions",
        summary: "The user's sessions",
        auth: "access",
        errors: errorsOf("sessions.list"),
      },
      async (input) => ({ sessions: await auth.sessions.list(principalCall(input)) }),
    ),
    route(
      {
        method: "DELETE",
        path: "/sessions",
        summary: "Revoke every session of the user (others=true: all but the caller's)",
        auth: "access",
        query: ["others"],
        // `VALIDATION_FAILED`: the route reads `others` itself.
        errors: ["VALIDATION_FAILED", ...errorsOf("sessions.revokeAll", "sessions.revokeOthers")],
      },
      async (input) => {
        const given = input.query.getAll("others");
        const { others } = parseInput(revokeSessionsQuery, { others: given.length > 1 ? given : given[0] });
        const call = signedInCall(input);
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
        errors: errorsOf("sessions.revoke"),
      },
      async (input) => {
        const sessionId = param(input, "id");
        await auth.sessions.revoke(principalCall(input), sessionId);
        return jsonResponse(200, SUCCESS, sessionId === input.principal.sessionId ? signOutCookies() : []);
      },
    ),
  ];
}

/** The signed-in user's activity: their security events, newest first, a page at a time. */
export function activityRoutes(auth: Auth): Route[] {
  return [
    json(
      {
        method: "GET",
        path: "/activity",
        summary: "The user's security events, newest first (cursor: the previous page's nextCursor)",
        auth: "access",
        query: ["cursor", "limit"],
        errors: errorsOf("activity.list"),
      },
      async (input) =>
        auth.activity.list(principalCall(input), {
          cursor: input.query.get("cursor") ?? undefined,
          limit: input.query.get("limit") ?? undefined,
        }),
    ),
  ];
}
