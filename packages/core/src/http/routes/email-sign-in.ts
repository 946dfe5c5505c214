import type { Auth } from "../../create-auth/create-auth.js";
import { errorsOf } from "../../use-case-errors.js";
import { emailSignInInput } from "../../validation.js";
import type { Route } from "../route.js";
import { deviceCall, emailRequestRoute, type RouteKit, route } from "../route-kit.js";

/**
 * Sign-in by an emailed link or code (`emailSignIn.enabled`; 404 `NOT_FOUND` otherwise). The
 * link opens a page of the app (`email.links.emailSignIn`) that posts its token here: a GET of
 * the link never signs in.
 */
export function emailSignInRoutes(auth: Auth, { loginResponse }: RouteKit): Route[] {
  return [
    emailRequestRoute(
      auth,
      "requestEmailSignIn",
      "/email-sign-in/request",
      "Mail a sign-in code and link (the same answer for any address)",
    ),
    route(
      {
        method: "POST",
        path: "/email-sign-in",
        summary: "Sign in with an emailed link's token, or the address and its emailed code",
        auth: "none",
        body: emailSignInInput,
        errors: errorsOf("signInWithEmail"),
      },
      async (input) => loginResponse(await auth.signInWithEmail(deviceCall(input), await input.body())),
    ),
  ];
}
