import type { Auth } from "../../create-auth/create-auth.js";
import type { Call } from "../../model.js";
import { errorsOf, type UseCaseName } from "../../use-case-errors.js";
import { lockUserBody } from "../../validation.js";
import { jsonResponse } from "../respond.js";
import type { Route, RouteInput, RouteSpec } from "../route.js";
import { adminCall, json, param, type RouteKit, route } from "../route-kit.js";

/** The user id of an admin route (`:id`). */
const userParam = (input: RouteInput<"admin">) => param(input, "id");

/**
 * An admin route answering its use case's result as JSON: the admin's call, and the errors of
 * `useCase` (the back office's check of the caller included).
 */
function admin(
  method: "GET" | "POST" | "DELETE",
  path: string,
  summary: string,
  useCase: UseCaseName,
  run: (call: Call, input: RouteInput<"admin">) => Promise<unknown>,
  extra: Pick<RouteSpec<"admin">, "body" | "query"> = {},
): Route {
  return json({ method, path, summary, auth: "admin", errors: errorsOf(useCase), ...extra }, (input) =>
    run(adminCall(input), input),
  );
}

/**
 * The back office under `/admin` (docs/back-office.md), mounted only when the host passes
 * `admin.authorize`: an access token and a step-up token of a caller it allows.
 */
export function adminRoutes(auth: Auth, kit: RouteKit): Route[] {
  return [
    admin(
      "GET",
      "/admin/users",
      "Users by address prefix (query), a page at a time (cursor: the previous page's nextCursor)",
      "admin.listUsers",
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
      "admin.getUser",
      (call, input) => auth.admin.getUser(call, userParam(input)),
    ),
    admin(
      "POST",
      "/admin/users/:id/lock",
      "Lock the account (it signs in by no method) and end its sessions",
      "admin.lockUser",
      async (call, input) => {
        const body = (await input.body<{ reason?: string } | undefined>()) ?? {};
        return auth.admin.lockUser(call, { userId: userParam(input), reason: body.reason });
      },
      { body: lockUserBody },
    ),
    admin("POST", "/admin/users/:id/unlock", "Lift the lock", "admin.unlockUser", (call, input) =>
      auth.admin.unlockUser(call, userParam(input)),
    ),
    admin(
      "DELETE",
      "/admin/users/:id/sessions",
      "End every session of the user",
      "admin.revokeSessions",
      (call, input) => auth.admin.revokeSessions(call, userParam(input)),
    ),
    admin(
      "POST",
      "/admin/users/:id/require-password-change",
      "The next password sign-in must set a new password first; every session ends",
      "admin.requirePasswordChange",
      (call, input) => auth.admin.requirePasswordChange(call, { userId: userParam(input) }),
    ),
    impersonateRoute(auth, kit),
  ];
}

/**
 * POST /admin/users/:id/impersonate: the tokens in the body; an admin authenticated by cookie (a
 * browser) gets the session's cookies instead, so the tokens stay out of the page's script.
 */
function impersonateRoute(auth: Auth, { cookies, sessionCookies }: RouteKit): Route {
  return route(
    {
      method: "POST",
      path: "/admin/users/:id/impersonate",
      summary:
        "A session as the user for at most one hour that cannot step up (tokens in the body; with cookie authentication, the browser's session cookies instead)",
      auth: "admin",
      errors: errorsOf("admin.impersonate"),
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
