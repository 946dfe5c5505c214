import type { Auth } from "../../create-auth/create-auth.js";
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
} from "../route-kit.js";
import { accessTokenExpiresAt } from "../token-expiry.js";
import { DB } from "./error-groups.js";

/** A password login: the password's answers, its counters, a locked account, a required password change. */
const LOGIN_ERRORS = [
  "INVALID_CREDENTIALS",
  "LOGIN_THROTTLED",
  "EMAIL_COOLDOWN_CACHE_FAILURE",
  "ACCOUNT_LOCKED",
  "PASSWORD_CHANGE_REQUIRED",
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
        errors: REGISTER_ERRORS,
      },
      async (input) => {
        const { deviceToken } = await auth.register(deviceCall(input), await input.body());
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
      async (input) => loginResponse(await auth.login(deviceCall(input), await input.body())),
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
        errors: [...DB],
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
        errors: ["USER_NOT_FOUND", ...DB],
      },
      async (input) => auth.getCurrentUser(principalCall(input)),
    ),
    json(
      { method: "GET", path: "/sessions", summary: "The user's sessions", auth: "access", errors: [...DB] },
      async (input) => ({ sessions: await auth.sessions.list(principalCall(input)) }),
    ),
    route(
      {
        method: "DELETE",
        path: "/sessions",
        summary: "Revoke every session of the user (others=true: all but the caller's)",
        auth: "access",
        query: ["others"],
        errors: ["VALIDATION_FAILED", "IMPERSONATION_NOT_ALLOWED", ...DB],
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
        errors: ["NOT_FOUND", "IMPERSONATION_NOT_ALLOWED", ...DB],
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
        errors: ["VALIDATION_FAILED", ...DB],
      },
      async (input) =>
        auth.activity.list(principalCall(input), {
          cursor: input.query.get("cursor") ?? undefined,
          limit: input.query.get("limit") ?? undefined,
        }),
    ),
  ];
}
