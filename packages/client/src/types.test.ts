// The types of every call, checked against the core's use cases (by `tsc`: `pnpm typecheck`, which
// covers this file). Each route's body is the input of the use case it goes to and each JSON answer
// that is a use case's result is that result's type; the client's methods take and give the route's.
import type {
  ActivityPage,
  Auth,
  ErrorCode,
  SignedIn,
  TotpSetup,
  TwoFactorChallenge,
  User,
} from "@portcullis/core";
import { describe, expectTypeOf, it } from "vitest";
import {
  type AuthClient,
  type CallInit,
  type LoginResponse,
  type NAVIGATION_ROUTES,
  PortcullisError,
  type ROUTE_AUTH,
  type RouteKey,
  type Routes,
  type StepUpResponse,
} from "./index.js";

type Input<F extends (...args: never[]) => unknown, I extends number = 1> = Parameters<F>[I];
type Answer<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;
type Body<K extends RouteKey> = Routes[K]["body"];
type Response<K extends RouteKey> = Routes[K]["response"];

describe("types", () => {
  it("routes - each route's body is its use case's input", () => {
    expectTypeOf<Body<"POST /register">>().toEqualTypeOf<Input<Auth["register"]>>();
    expectTypeOf<Body<"POST /login">>().toEqualTypeOf<Input<Auth["login"]>>();
    expectTypeOf<Body<"POST /refresh">>().toEqualTypeOf<Input<Auth["refresh"]>>();
    expectTypeOf<Body<"POST /2fa/login">>().toEqualTypeOf<Input<Auth["completeTwoFactorLogin"]>>();
    expectTypeOf<Body<"POST /2fa/recover">>().toEqualTypeOf<Input<Auth["recoverWithRecoveryCode"]>>();
    expectTypeOf<Body<"POST /step-up">>().toEqualTypeOf<Input<Auth["stepUp"]>>();
    expectTypeOf<Body<"POST /2fa/step-up">>().toEqualTypeOf<Input<Auth["completeTwoFactorStepUp"]>>();
    expectTypeOf<Body<"POST /2fa/totp/setup">>().toEqualTypeOf<Input<Auth["confirmTotpSetup"]>>();
    expectTypeOf<Body<"POST /2fa/email/enable">>().toEqualTypeOf<Input<Auth["enableEmailTwoFactor"]>>();
    expectTypeOf<Body<"POST /2fa/preferred-method">>().toEqualTypeOf<
      Input<Auth["setPreferredTwoFactorMethod"]>
    >();
    expectTypeOf<Body<"POST /password/reset-request">>().toEqualTypeOf<Input<Auth["requestPasswordReset"]>>();
    expectTypeOf<Body<"POST /password/reset">>().toEqualTypeOf<Input<Auth["resetPassword"]>>();
    expectTypeOf<Body<"POST /oauth/:provider/link">>().toEqualTypeOf<
      Omit<Input<Auth["identityProviders"]["link"]>, "provider">
    >();
    expectTypeOf<Body<"POST /invitations/accept">>().toEqualTypeOf<
      Input<Auth["organizations"]["acceptInvitation"]>
    >();
    expectTypeOf<Body<"POST /organizations">>().toEqualTypeOf<Input<Auth["organizations"]["create"]>>();
    expectTypeOf<Body<"POST /api-keys">>().toEqualTypeOf<Input<Auth["apiKeys"]["create"]>>();
    expectTypeOf<Routes["GET /api-keys"]["query"]>().toMatchTypeOf<
      NonNullable<Input<Auth["apiKeys"]["list"]>>
    >();
    expectTypeOf<Routes["GET /activity"]["query"]>().toMatchTypeOf<
      NonNullable<Input<Auth["activity"]["list"]>>
    >();
  });

  it("routes - each JSON answer is its use case's result", () => {
    expectTypeOf<Response<"GET /me">>().toEqualTypeOf<User>();
    expectTypeOf<Response<"GET /sessions">["sessions"]>().toEqualTypeOf<Answer<Auth["sessions"]["list"]>>();
    expectTypeOf<Response<"DELETE /sessions">>().toEqualTypeOf<Answer<Auth["sessions"]["revokeOthers"]>>();
    expectTypeOf<Response<"GET /activity">>().toEqualTypeOf<ActivityPage>();
    expectTypeOf<Response<"GET /2fa/totp/setup">>().toEqualTypeOf<TotpSetup>();
    expectTypeOf<Response<"POST /2fa/totp/setup">>().toEqualTypeOf<User>();
    expectTypeOf<Response<"DELETE /2fa/totp">>().toEqualTypeOf<User>();
    expectTypeOf<Response<"DELETE /2fa/email">>().toEqualTypeOf<User>();
    expectTypeOf<Response<"POST /2fa/email/send">>().toEqualTypeOf<Answer<Auth["sendTwoFactorEmailCode"]>>();
    expectTypeOf<Response<"POST /password/reset-request">>().toEqualTypeOf<
      Answer<Auth["requestPasswordReset"]>
    >();
    expectTypeOf<Response<"POST /email/verification">>().toEqualTypeOf<Answer<Auth["verifyEmail"]>>();
    expectTypeOf<Response<"DELETE /oauth/:provider">>().toEqualTypeOf<
      Answer<Auth["identityProviders"]["unlink"]>
    >();
    expectTypeOf<Response<"GET /organizations">>().toEqualTypeOf<Answer<Auth["organizations"]["list"]>>();
    expectTypeOf<Response<"GET /organizations/:id/members">>().toEqualTypeOf<
      Answer<Auth["organizations"]["listMembers"]>
    >();
    expectTypeOf<Response<"POST /invitations/accept">>().toEqualTypeOf<
      Answer<Auth["organizations"]["acceptInvitation"]>
    >();
    expectTypeOf<Response<"GET /admin/organizations">>().toEqualTypeOf<
      Answer<Auth["admin"]["listOrganizations"]>
    >();
    expectTypeOf<Response<"POST /api-keys">>().toEqualTypeOf<Answer<Auth["apiKeys"]["create"]>>();
    expectTypeOf<Response<"GET /api-keys">>().toEqualTypeOf<Answer<Auth["apiKeys"]["list"]>>();
    expectTypeOf<Response<"DELETE /api-keys/:id">>().toEqualTypeOf<Answer<Auth["apiKeys"]["delete"]>>();
    expectTypeOf<Response<"POST /organizations/:id/activate">["activeOrganization"]>().toEqualTypeOf<
      Answer<Auth["organizations"]["activate"]>["activeOrganization"]
    >();
    // Sign-ins: the user of the use case, the methods of its 2FA challenge.
    type Done = Extract<LoginResponse, { twoFactorRequired: false }>;
    type Challenge = Extract<LoginResponse, { twoFactorRequired: true }>;
    expectTypeOf<Done["user"]>().toEqualTypeOf<SignedIn["user"]>();
    expectTypeOf<Challenge["twoFactorMethods"]>().toEqualTypeOf<TwoFactorChallenge["twoFactorMethods"]>();
    expectTypeOf<Response<"POST /refresh">["user"]>().toEqualTypeOf<Answer<Auth["refresh"]>["user"]>();
    expectTypeOf<Extract<StepUpResponse, { twoFactorRequired: false }>["twoFactorRequired"]>().toEqualTypeOf<
      Answer<Auth["completeTwoFactorStepUp"]>["twoFactorRequired"]
    >();
  });

  it("routes - the run-time list names every typed route, and nothing else", () => {
    expectTypeOf<keyof typeof ROUTE_AUTH>().toEqualTypeOf<RouteKey>();
    expectTypeOf<(typeof NAVIGATION_ROUTES)[number] & RouteKey>().toBeNever();
  });

  it("client - each method takes and gives its route's types", () => {
    expectTypeOf<AuthClient["register"]>().parameter(0).toEqualTypeOf<Body<"POST /register">>();
    expectTypeOf<AuthClient["login"]>().parameter(0).toEqualTypeOf<Body<"POST /login">>();
    expectTypeOf<AuthClient["login"]>().returns.resolves.toEqualTypeOf<LoginResponse>();
    expectTypeOf<AuthClient["logout"]>().returns.resolves.toEqualTypeOf<Response<"POST /logout">>();
    expectTypeOf<AuthClient["me"]>().returns.resolves.toEqualTypeOf<User>();
    expectTypeOf<AuthClient["sessions"]["list"]>().returns.resolves.toEqualTypeOf<
      Response<"GET /sessions">
    >();
    expectTypeOf<AuthClient["sessions"]["revokeOthers"]>().returns.resolves.toEqualTypeOf<
      Response<"DELETE /sessions">
    >();
    expectTypeOf<AuthClient["activity"]>().returns.resolves.toEqualTypeOf<ActivityPage>();
    expectTypeOf<AuthClient["stepUp"]>().parameter(0).toEqualTypeOf<Body<"POST /step-up">>();
    expectTypeOf<AuthClient["stepUp"]>().returns.resolves.toEqualTypeOf<StepUpResponse>();
    expectTypeOf<AuthClient["passwordReset"]["confirm"]>()
      .parameter(1)
      .toEqualTypeOf<Body<"POST /password/reset">>();
    expectTypeOf<AuthClient["twoFactorSettings"]["confirmTotp"]>()
      .parameter(0)
      .toEqualTypeOf<Body<"POST /2fa/totp/setup">>();
    expectTypeOf<
      AuthClient["twoFactorSettings"]["setPreferredMethod"]
    >().returns.resolves.toEqualTypeOf<User>();
    expectTypeOf<AuthClient["verification"]["verify"]>().returns.resolves.toEqualTypeOf<User>();
    expectTypeOf<AuthClient["requestEmailSignIn"]>().parameter(0).toEqualTypeOf<string>();
    expectTypeOf<AuthClient["requestEmailSignIn"]>().returns.resolves.toEqualTypeOf<
      Answer<Auth["requestEmailSignIn"]>
    >();
    expectTypeOf<AuthClient["signInWithEmail"]>().returns.resolves.toEqualTypeOf<LoginResponse>();
    expectTypeOf<Body<"POST /email-sign-in">>().toEqualTypeOf<Input<Auth["signInWithEmail"]>>();
    expectTypeOf<AuthClient["apiKeys"]["create"]>().parameter(0).toEqualTypeOf<Body<"POST /api-keys">>();
    expectTypeOf<AuthClient["apiKeys"]["create"]>().returns.resolves.toEqualTypeOf<
      Response<"POST /api-keys">
    >();
    expectTypeOf<AuthClient["apiKeys"]["list"]>().returns.resolves.toEqualTypeOf<Response<"GET /api-keys">>();
    expectTypeOf<AuthClient["fetch"]>().returns.resolves.toEqualTypeOf<globalThis.Response>();
    expectTypeOf<AuthClient["touch"]>().returns.resolves.toEqualTypeOf<void>();
    // The typed call of any route: its body is required where the route has one.
    expectTypeOf<AuthClient["request"]>().toEqualTypeOf<
      <K extends RouteKey>(key: K, init: CallInit<K>) => Promise<Routes[K]["response"]>
    >();
    const unused = (client: AuthClient) => {
      // @ts-expect-error: POST /login needs its body.
      void client.request("POST /login", {});
      // @ts-expect-error: GET /me has no such route spelled this way.
      void client.request("GET /whoami", {});
    };
    void unused;
  });

  it("errors - `code` is the core's error codes and the client's own", () => {
    expectTypeOf<PortcullisError["code"]>().toEqualTypeOf<
      ErrorCode | "NETWORK_FAILURE" | "UNEXPECTED_RESPONSE"
    >();
    expectTypeOf(new PortcullisError("LOGIN_THROTTLED", "x").fields).toEqualTypeOf<
      readonly { path: string; message: string; code?: string }[]
    >();
  });
});
