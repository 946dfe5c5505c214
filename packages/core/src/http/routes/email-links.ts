import type { Auth } from "../../create-auth/create-auth.js";
import { emailInput, resetPasswordInput } from "../../validation.js";
import { jsonResponse } from "../respond.js";
import type { Route } from "../route.js";
import {
  json,
  linkCall,
  principalCall,
  type RouteKit,
  requestCall,
  route,
  signedInCall,
} from "../route-kit.js";
import { DB, MAIL } from "./error-groups.js";

/** The emailed-link flow of a forgotten password. */
export function passwordResetRoutes(auth: Auth, { signOutCookies }: RouteKit): Route[] {
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
      async (input) => auth.requestPasswordReset(requestCall(input), await input.body()),
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
export function verificationRoutes(auth: Auth): Route[] {
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
      async (input) => auth.resendVerification(signedInCall(input)),
    ),
    json(
      {
        method: "GET",
        path: "/email/verification/cooldown",
        summary: "Seconds until another verification email",
        auth: "access",
        errors: ["USER_NOT_FOUND", "EMAIL_COOLDOWN_CACHE_FAILURE", ...DB],
      },
      async (input) => auth.getVerificationCooldown(principalCall(input)),
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
