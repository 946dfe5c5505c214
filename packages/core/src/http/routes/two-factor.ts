import type { Auth } from "../../create-auth/create-auth.js";
import type { Principal } from "../../model.js";
import type { TwoFactorMethod } from "../../ports/user-store.js";
import { errorsOf } from "../../use-case-errors.js";
import {
  codeInput,
  confirmTotpInput,
  preferredMethodInput,
  signInCodeInput,
  stepUpInput,
} from "../../validation.js";
import type { RequestInput, Route, RouteSpec } from "../route.js";
import {
  deviceTokenCall,
  json,
  param,
  type RouteKit,
  route,
  settings,
  signedInCall,
  twoFactorCall,
} from "../route-kit.js";

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
        errors: errorsOf("completeTwoFactorLogin"),
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
        errors: errorsOf("recoverWithRecoveryCode"),
      },
      async (input) =>
        loginResponse(
          await auth.recoverWithRecoveryCode(
            deviceTokenCall(input, input.twoFactorToken),
            await input.body(),
          ),
        ),
    ),
    ...trustedBrowserRoutes(auth),
    route(
      {
        method: "POST",
        path: "/step-up",
        summary: "Confirm the password before a settings change",
        auth: "access",
        body: stepUpInput,
        errors: errorsOf("stepUp"),
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
        errors: errorsOf("completeTwoFactorStepUp"),
      },
      async (input) =>
        stepUpResponse(await auth.completeTwoFactorStepUp(twoFactorCall(input), await input.body())),
    ),
  ];
}

/** Where a 2FA method is turned on (a POST with its code, for the use case `enable`) and off (a DELETE). */
interface MethodSwitch {
  enable: "confirmTotpSetup" | "enableEmailTwoFactor";
  on: Pick<RouteSpec, "path" | "summary" | "body">;
  off: Pick<RouteSpec, "path" | "summary">;
}

const METHOD_SWITCHES: Record<TwoFactorMethod, MethodSwitch> = {
  totp: {
    enable: "confirmTotpSetup",
    on: {
      path: "/2fa/totp/setup",
      summary: "Confirm TOTP setup with a code",
      body: confirmTotpInput,
    },
    off: { path: "/2fa/totp", summary: "Turn TOTP off" },
  },
  email: {
    enable: "enableEmailTwoFactor",
    on: {
      path: "/2fa/email/enable",
      summary: "Turn email 2FA on with a mailed code",
      body: codeInput,
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
      settings({ method: "POST", ...on, errors: errorsOf(enable) }, async (call, input) =>
        auth[enable](call, await input.body()),
      ),
      settings({ method: "DELETE", ...off, errors: errorsOf("disableTwoFactorMethod") }, (call) =>
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
        errors: errorsOf("getTotpSetup"),
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
        errors: errorsOf("setPreferredTwoFactorMethod"),
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
        errors: errorsOf("sendTwoFactorEmailCode"),
      },
      async (input) => auth.sendTwoFactorEmailCode(twoFactorCall(input)),
    ),
    json(
      {
        method: "GET",
        path: "/2fa/email/cooldown",
        summary: "Seconds until another 2FA code can be mailed (access token, or a login's 2FA token)",
        auth: "access-or-two-factor",
        errors: errorsOf("getTwoFactorEmailCooldown"),
      },
      async (input) =>
        auth.getTwoFactorEmailCooldown({ principal: input.principal, token: input.twoFactorToken }),
    ),
  ];
}

/** The browsers trusted to skip the second factor: listed, and forgotten one by one or all. */
function trustedBrowserRoutes(auth: Auth): Route[] {
  const call = (input: RequestInput & { principal: Principal }) => ({
    principal: input.principal,
    request: input.withDevice(),
  });
  return [
    json(
      {
        method: "GET",
        path: "/2fa/trusted-browsers",
        summary: "The browsers trusted to skip the second factor",
        auth: "access",
        errors: errorsOf("sessions.listTrustedBrowsers"),
      },
      async (input) => ({ browsers: await auth.sessions.listTrustedBrowsers(call(input)) }),
    ),
    json(
      {
        method: "DELETE",
        path: "/2fa/trusted-browsers",
        summary: "Forget every trusted browser",
        auth: "access",
        errors: errorsOf("sessions.forgetTrustedBrowsers"),
      },
      async (input) => auth.sessions.forgetTrustedBrowsers(call(input)),
    ),
    json(
      {
        method: "DELETE",
        path: "/2fa/trusted-browsers/:id",
        summary: "Forget one trusted browser",
        auth: "access",
        errors: errorsOf("sessions.forgetTrustedBrowsers"),
      },
      async (input) => auth.sessions.forgetTrustedBrowsers(call(input), param(input, "id")),
    ),
  ];
}
