import type { Auth } from "../../create-auth/create-auth.js";
import { errorsOf } from "../../use-case-errors.js";
import { resetPasswordInput } from "../../validation.js";
import { jsonResponse } from "../respond.js";
import type { Route } from "../route.js";
import {
  emailRequestRoute,
  json,
  linkCall,
  principalCall,
  type RouteKit,
  route,
  signedInCall,
  withCaptcha,
} from "../route-kit.js";

/** The emailed-link flow of a forgotten password. */
export function passwordResetRoutes(auth: Auth, { signOutCookies }: RouteKit): Route[] {
  return [
    emailRequestRoute(auth, "requestPasswordReset", "/password/reset-request", "Mail a reset link"),
    json(
      {
        method: "GET",
        path: "/password/reset/cooldown",
        summary: "Seconds until another reset email",
        auth: "none",
        query: ["email"],
        errors: errorsOf("getPasswordResetCooldown"),
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
        errors: errorsOf("resetPassword"),
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
        errors: errorsOf("resendVerification"),
      },
      async (input) => {
        // The body is read only for its CAPTCHA token, and only when this route wants one.
        const body = auth.options.captcha?.on.verificationResend === true ? await input.body() : undefined;
        return auth.resendVerification(withCaptcha(signedInCall(input), input, body));
      },
    ),
    json(
      {
        method: "GET",
        path: "/email/verification/cooldown",
        summary: "Seconds until another verification email",
        auth: "access",
        errors: errorsOf("getVerificationCooldown"),
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
        errors: errorsOf("verifyEmail"),
      },
      (input) => auth.verifyEmail(linkCall(input)),
    ),
  ];
}
