import type { Auth } from "../../create-auth/create-auth.js";
import { errorsOf } from "../../use-case-errors.js";
import {
  passkeyRegistrationInput,
  passkeyRenameInput,
  passkeySignInInput,
  passkeySignInOptionsInput,
  passkeyStepUpInput,
} from "../../validation.js";
import { jsonResponse } from "../respond.js";
import type { Route } from "../route.js";
import type { RouteKit } from "../route-kit.js";
import {
  deviceTokenCall,
  json,
  param,
  principalCall,
  requestCall,
  route,
  settings,
  signedInCall,
} from "../route-kit.js";

/** How long the browser keeps a passkey sign-in's challenge cookie: the challenge's 5 minutes. */
const PASSKEY_CHALLENGE_COOKIE_SECONDS = 300;
/** The refusals of a passkey sign-in's answer that clear its challenge cookie (the challenge is spent or unusable). */
const CLEARS_CHALLENGE = [
  "PASSKEY_CHALLENGE_INVALID",
  "PASSKEY_CHALLENGE_EXPIRED",
  "PASSKEY_VERIFICATION_FAILED",
  "NOT_FOUND",
  "PASSKEY_UNKNOWN",
] as const;

/**
 * Passkeys (docs/concepts.md, "Passkeys"): registration (access + step-up), sign-in (none; the challenge is bound
 * to the browser by an HttpOnly cookie scoped to `<prefix>/passkeys`), step-up (access), and the
 * list, rename and removal. `NOT_FOUND` when `webauthn` is not configured.
 */
export function passkeyRoutes(auth: Auth, kit: RouteKit): Route[] {
  // Sign-in first: `/passkeys/login` must come before `/passkeys/:id` in the OpenAPI document's paths.
  return [...passkeySignInRoutes(auth, kit), ...passkeyAccountRoutes(auth)];
}

/** Registering, listing, renaming and removing the signed-in user's passkeys. */
function passkeyAccountRoutes(auth: Auth): Route[] {
  return [
    settings(
      {
        method: "POST",
        path: "/passkeys/register/options",
        summary: "Start registering a passkey: the options of navigator.credentials.create()",
        errors: errorsOf("passkeys.registrationOptions"),
      },
      (call) => auth.passkeys.registrationOptions(call),
    ),
    settings(
      {
        method: "POST",
        path: "/passkeys/register",
        summary: "Store the passkey of a navigator.credentials.create() response",
        body: passkeyRegistrationInput,
        errors: errorsOf("passkeys.register"),
      },
      async (call, input) => auth.passkeys.register(call, await input.body()),
    ),
    json(
      {
        method: "GET",
        path: "/passkeys",
        summary: "The user's passkeys",
        auth: "access",
        errors: errorsOf("passkeys.list"),
      },
      async (input) => auth.passkeys.list(principalCall(input)),
    ),
    settings(
      {
        method: "PATCH",
        path: "/passkeys/:id",
        summary: "Rename a passkey",
        body: passkeyRenameInput,
        errors: errorsOf("passkeys.rename"),
      },
      async (call, input) => auth.passkeys.rename(call, { id: param(input, "id"), body: await input.body() }),
    ),
    settings(
      {
        method: "DELETE",
        path: "/passkeys/:id",
        summary: "Remove a passkey (not the account's last way to sign in)",
        errors: errorsOf("passkeys.delete"),
      },
      (call, input) => auth.passkeys.delete(call, param(input, "id")),
    ),
  ];
}

/** Passkey sign-in (its challenge bound to the browser by a cookie) and step-up. */
function passkeySignInRoutes(auth: Auth, { cookies, loginResponse, stepUpResponse }: RouteKit): Route[] {
  const clearChallenge = cookies.clear("passkeyChallenge");
  return [
    route(
      {
        method: "POST",
        path: "/passkeys/login/options",
        summary: "Start a passkey sign-in (email: email-first): the options of navigator.credentials.get()",
        auth: "none",
        body: passkeySignInOptionsInput,
        errors: errorsOf("passkeys.signInOptions"),
      },
      async (input) => {
        const start = await auth.passkeys.signInOptions(requestCall(input), await input.body());
        return jsonResponse(200, start.options, [
          cookies.set("passkeyChallenge", start.browserBinding, PASSKEY_CHALLENGE_COOKIE_SECONDS),
        ]);
      },
    ),
    route(
      {
        method: "POST",
        path: "/passkeys/login",
        summary: "Sign in with a navigator.credentials.get() response",
        auth: "none",
        body: passkeySignInInput,
        errors: errorsOf("passkeys.signIn"),
        clearOnError: {
          codes: CLEARS_CHALLENGE,
          cookies: ["passkeyChallenge"],
        },
      },
      async (input) => {
        const signedIn = await auth.passkeys.signIn(
          deviceTokenCall(input, input.cookie("passkeyChallenge")),
          await input.body(),
        );
        const response = loginResponse(signedIn);
        return { ...response, cookies: [...(response.cookies ?? []), clearChallenge] };
      },
    ),
    json(
      {
        method: "POST",
        path: "/passkeys/step-up/options",
        summary: "Start a passkey step-up: the options of navigator.credentials.get()",
        auth: "access",
        errors: errorsOf("passkeys.stepUpOptions"),
      },
      async (input) => auth.passkeys.stepUpOptions(signedInCall(input)),
    ),
    route(
      {
        method: "POST",
        path: "/passkeys/step-up",
        summary: "Step up with a passkey: the step-up token",
        auth: "access",
        body: passkeyStepUpInput,
        errors: errorsOf("passkeys.stepUp"),
      },
      async (input) => stepUpResponse(await auth.passkeys.stepUp(signedInCall(input), await input.body())),
    ),
  ];
}
