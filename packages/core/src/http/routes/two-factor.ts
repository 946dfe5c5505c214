import type { Auth } from "../../create-auth/create-auth.js";
import type { TwoFactorMethod } from "../../ports/user-store.js";
import {
  codeInput,
  confirmTotpInput,
  preferredMethodInput,
  signInCodeInput,
  stepUpInput,
} from "../../validation.js";
import type { Route, RouteSpec } from "../route.js";
import {
  deviceTokenCall,
  json,
  type RouteKit,
  route,
  settings,
  signedInCall,
  twoFactorCall,
} from "../route-kit.js";
import { CODE_CHECK, DB, MAIL, SETTING } from "./error-groups.js";

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

/** Second factors: finishing a login, recovery codes and step-up. */
export function twoFactorRoutes(auth: Auth, { loginResponse, stepUpResponse }: RouteKit): Route[] {
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
          await auth.completeTwoFactorLogin(deviceTokenCall(input, input.twoFactorToken), await input.body()),
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
            deviceTokenCall(input, input.twoFactorToken),
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
      async (input) => stepUpResponse(await auth.stepUp(signedInCall(input), await input.body())),
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
        stepUpResponse(await auth.completeTwoFactorStepUp(twoFactorCall(input), await input.body())),
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
export function twoFactorSettingsRoutes(auth: Auth): Route[] {
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
    ...twoFactorEmailRoutes(auth),
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

/** Mailing a 2FA code and its cooldown: for the signed-in user, or a login's 2FA token. */
function twoFactorEmailRoutes(auth: Auth): Route[] {
  return [
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
      async (input) => auth.sendTwoFactorEmailCode(twoFactorCall(input)),
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
  ];
}
