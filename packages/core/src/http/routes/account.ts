import type { Auth } from "../../create-auth/create-auth.js";
import { errorsOf } from "../../use-case-errors.js";
import { changePasswordInput, emailChangeInput, requiredPasswordChangeInput } from "../../validation.js";
import { jsonResponse } from "../respond.js";
import type { Route } from "../route.js";
import {
  deviceCall,
  json,
  linkCall,
  type RouteKit,
  route,
  settings,
  signedInCall,
  stepUpCall,
} from "../route-kit.js";

/** The signed-in user's own account (docs/concepts.md, "Account self-service"): password, address, deletion, export. */
export function selfServiceRoutes(auth: Auth, { signOutCookies }: RouteKit): Route[] {
  return [
    json(
      {
        method: "POST",
        path: "/password/change",
        summary: "Change the password (the current one is checked on the login budget); other sessions end",
        auth: "access",
        body: changePasswordInput,
        errors: errorsOf("account.changePassword"),
      },
      async (input) => auth.account.changePassword(signedInCall(input), await input.body()),
    ),
    settings(
      {
        method: "POST",
        path: "/email/change",
        summary: "Mail a link that moves the account to a new address (the same answer for a taken one)",
        body: emailChangeInput,
        errors: errorsOf("account.requestEmailChange"),
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
        errors: errorsOf("account.confirmEmailChange"),
      },
      (input) => auth.account.confirmEmailChange(linkCall(input)),
    ),
    route(
      {
        method: "DELETE",
        path: "/me",
        summary: "Delete the account and everything stored about it; clears the cookies",
        auth: "step-up",
        errors: errorsOf("account.delete"),
      },
      async (input) => jsonResponse(200, await auth.account.delete(stepUpCall(input)), signOutCookies()),
    ),
    settings(
      {
        method: "GET",
        path: "/me/export",
        summary: "What is stored about the user, without hashes, secrets or tokens",
        errors: errorsOf("account.export"),
      },
      (call) => auth.account.export(call),
    ),
  ];
}

/** The second half of a password sign-in that answered 403 `PASSWORD_CHANGE_REQUIRED` (docs/back-office.md). */
export function requiredPasswordChangeRoutes(auth: Auth, { loginResponse }: RouteKit): Route[] {
  return [
    route(
      {
        method: "POST",
        path: "/password/change-required",
        summary: "Set the new password a login asked for (PASSWORD_CHANGE_REQUIRED), then sign in",
        auth: "none",
        body: requiredPasswordChangeInput,
        errors: errorsOf("completeRequiredPasswordChange"),
      },
      async (input) =>
        loginResponse(await auth.completeRequiredPasswordChange(deviceCall(input), await input.body())),
    ),
  ];
}
