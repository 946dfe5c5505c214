import { describe, expect, expectTypeOf, it } from "vitest";
import type { Call, Principal } from "../model.js";
import { code, createTestAuth, createWebhooksTestAuth } from "../test-support.js";
import type {
  AccountApi,
  ActivityApi,
  AdminApi,
  ApiKeyApi,
  Auth,
  HostApi,
  IdentityProviderApi,
  OrganizationApi,
  PasskeyApi,
  SessionApi,
  SsoApi,
  WebhookApi,
} from "./auth.js";
import {
  ACCOUNT_USE_CASES,
  ACTIVITY_USE_CASES,
  ADMIN_USE_CASES,
  API_KEY_USE_CASES,
  type BoundUseCases,
  HOST_USE_CASES,
  IDENTITY_PROVIDER_USE_CASES,
  ORGANIZATION_USE_CASES,
  PASSKEY_USE_CASES,
  SESSION_USE_CASES,
  SSO_USE_CASES,
  USE_CASES,
  WEBHOOK_USE_CASES,
} from "./create-auth.js";

/** The members of `Auth` that are not use cases. */
type NotUseCases =
  | "options"
  | "translator"
  | "clock"
  | "logger"
  | "ready"
  | "idle"
  | "sessions"
  | "host"
  | "admin"
  | "activity"
  | "identityProviders"
  | "account"
  | "passkeys"
  | "organizations"
  | "apiKeys"
  | "webhooks"
  | "oauthProvider"
  | "sso";

/** Use cases that refuse a call without an issued principal. */
const SIGNED_IN = [
  "getCurrentUser",
  "resendVerification",
  "getVerificationCooldown",
  "stepUp",
  "completeTwoFactorStepUp",
  "getTotpSetup",
  "confirmTotpSetup",
  "disableTwoFactorMethod",
  "enableEmailTwoFactor",
  "setPreferredTwoFactorMethod",
] as const satisfies readonly (keyof typeof USE_CASES)[];

/** Every bound use case of `auth`, by its path (`sessions.list`), called with `call` and an empty object as input. */
function everyUseCase(auth: Auth): [string, (call: Call) => Promise<unknown>][] {
  const group = <T extends object>(prefix: string, api: T, names: readonly (keyof T & string)[]) =>
    names.map((name): [string, (call: Call) => Promise<unknown>] => [
      `${prefix}${name}`,
      (call) => (api[name] as (call: Call, input: object) => Promise<unknown>)(call, {}),
    ]);
  return [
    ...group("", auth, Object.keys(USE_CASES) as (keyof typeof USE_CASES)[]),
    ...group("sessions.", auth.sessions, Object.keys(SESSION_USE_CASES) as (keyof SessionApi)[]),
    ...group("host.", auth.host, Object.keys(HOST_USE_CASES) as (keyof HostApi)[]),
    ...group("admin.", auth.admin, Object.keys(ADMIN_USE_CASES) as (keyof AdminApi)[]),
    ...group("activity.", auth.activity, Object.keys(ACTIVITY_USE_CASES) as (keyof ActivityApi)[]),
    ...group(
      "identityProviders.",
      auth.identityProviders,
      Object.keys(IDENTITY_PROVIDER_USE_CASES) as (keyof typeof IDENTITY_PROVIDER_USE_CASES)[],
    ),
    ...group("account.", auth.account, Object.keys(ACCOUNT_USE_CASES) as (keyof AccountApi)[]),
    ...group(
      "passkeys.",
      auth.passkeys,
      Object.keys(PASSKEY_USE_CASES) as (keyof typeof PASSKEY_USE_CASES)[],
    ),
    ...group(
      "organizations.",
      auth.organizations,
      Object.keys(ORGANIZATION_USE_CASES) as (keyof typeof ORGANIZATION_USE_CASES)[],
    ),
    ...group("apiKeys.", auth.apiKeys, Object.keys(API_KEY_USE_CASES) as (keyof typeof API_KEY_USE_CASES)[]),
    ...group(
      "webhooks.",
      auth.webhooks,
      Object.keys(WEBHOOK_USE_CASES) as (keyof typeof WEBHOOK_USE_CASES)[],
    ),
    ...group("sso.", auth.sso, Object.keys(SSO_USE_CASES) as (keyof typeof SSO_USE_CASES)[]),
  ];
}

describe("createAuth", () => {
  it("createAuth - the bound use-case tables are exactly the documented methods of Auth and its APIs", () => {
    expectTypeOf<keyof typeof USE_CASES>().toEqualTypeOf<Exclude<keyof Auth, NotUseCases>>();
    expectTypeOf<BoundUseCases<typeof USE_CASES>>().toExtend<Omit<Auth, NotUseCases>>();
    expectTypeOf<keyof typeof SESSION_USE_CASES>().toEqualTypeOf<keyof SessionApi>();
    expectTypeOf<BoundUseCases<typeof SESSION_USE_CASES>>().toExtend<SessionApi>();
    expectTypeOf<keyof typeof HOST_USE_CASES>().toEqualTypeOf<keyof HostApi>();
    expectTypeOf<BoundUseCases<typeof HOST_USE_CASES>>().toExtend<HostApi>();
    expectTypeOf<keyof typeof ADMIN_USE_CASES>().toEqualTypeOf<keyof AdminApi>();
    expectTypeOf<BoundUseCases<typeof ADMIN_USE_CASES>>().toExtend<AdminApi>();
    expectTypeOf<keyof typeof ACTIVITY_USE_CASES>().toEqualTypeOf<keyof ActivityApi>();
    expectTypeOf<BoundUseCases<typeof ACTIVITY_USE_CASES>>().toExtend<ActivityApi>();
    expectTypeOf<keyof typeof IDENTITY_PROVIDER_USE_CASES>().toEqualTypeOf<
      Exclude<keyof IdentityProviderApi, "list">
    >();
    expectTypeOf<BoundUseCases<typeof IDENTITY_PROVIDER_USE_CASES>>().toExtend<
      Omit<IdentityProviderApi, "list">
    >();
    expectTypeOf<keyof typeof ACCOUNT_USE_CASES>().toEqualTypeOf<keyof AccountApi>();
    expectTypeOf<BoundUseCases<typeof ACCOUNT_USE_CASES>>().toExtend<AccountApi>();
    expectTypeOf<keyof typeof PASSKEY_USE_CASES>().toEqualTypeOf<Exclude<keyof PasskeyApi, "enabled">>();
    expectTypeOf<BoundUseCases<typeof PASSKEY_USE_CASES>>().toExtend<Omit<PasskeyApi, "enabled">>();
    expectTypeOf<keyof typeof ORGANIZATION_USE_CASES>().toEqualTypeOf<
      Exclude<keyof OrganizationApi, "can" | "require">
    >();
    expectTypeOf<BoundUseCases<typeof ORGANIZATION_USE_CASES>>().toExtend<
      Omit<OrganizationApi, "can" | "require">
    >();
    expectTypeOf<keyof typeof API_KEY_USE_CASES>().toEqualTypeOf<Exclude<keyof ApiKeyApi, "enabled">>();
    expectTypeOf<BoundUseCases<typeof API_KEY_USE_CASES>>().toExtend<Omit<ApiKeyApi, "enabled">>();
    type WebhookRuntime = "enabled" | "deliverNow" | "stop";
    expectTypeOf<keyof typeof WEBHOOK_USE_CASES>().toEqualTypeOf<Exclude<keyof WebhookApi, WebhookRuntime>>();
    expectTypeOf<BoundUseCases<typeof WEBHOOK_USE_CASES>>().toExtend<Omit<WebhookApi, WebhookRuntime>>();
    expectTypeOf<keyof typeof SSO_USE_CASES>().toEqualTypeOf<Exclude<keyof SsoApi, "enabled" | "routes">>();
    expectTypeOf<BoundUseCases<typeof SSO_USE_CASES>>().toExtend<Omit<SsoApi, "enabled" | "routes">>();
  });

  it("createAuth - every use case refuses a call whose principal was not issued, before it runs: AUTHENTICATION_REQUIRED", async () => {
    const { auth } = createTestAuth({ email: { enabled: false } });
    const invented = { userId: "u1", sessionId: "s1" } as unknown as Principal;
    const answers = await Promise.all(
      everyUseCase(auth).map(async ([name, run]) => [name, await code(run({ principal: invented }))]),
    );
    expect(answers.filter(([, answer]) => answer !== "AUTHENTICATION_REQUIRED")).toEqual([]);
    expect(answers.length).toBe(
      [
        USE_CASES,
        SESSION_USE_CASES,
        HOST_USE_CASES,
        ADMIN_USE_CASES,
        IDENTITY_PROVIDER_USE_CASES,
        ACTIVITY_USE_CASES,
        ACCOUNT_USE_CASES,
        PASSKEY_USE_CASES,
        ORGANIZATION_USE_CASES,
        API_KEY_USE_CASES,
        WEBHOOK_USE_CASES,
        SSO_USE_CASES,
      ].reduce((sum, table) => sum + Object.keys(table).length, 0),
    );
  });

  it("createAuth - a use case of the signed-in user refuses a call without a principal: AUTHENTICATION_REQUIRED", async () => {
    const { auth } = createTestAuth({ email: { enabled: false } });
    const signedIn = new Set<string>([
      ...SIGNED_IN,
      "sessions.list",
      "sessions.revoke",
      "sessions.revokeAll",
      "activity.list",
      "identityProviders.link",
      "identityProviders.unlink",
      "account.changePassword",
      "account.requestEmailChange",
      "account.delete",
      "account.export",
    ]);
    const answers = await Promise.all(
      everyUseCase(auth)
        .filter(([name]) => signedIn.has(name))
        .map(async ([name, run]) => [name, await code(run({}))]),
    );
    expect(answers.length).toBe(signedIn.size);
    expect(answers.filter(([, answer]) => answer !== "AUTHENTICATION_REQUIRED")).toEqual([]);
  });

  it("admin.authorize - the admin's id for an admin with a step-up; the back office's refusals otherwise", async () => {
    const { auth, user } = createWebhooksTestAuth();
    const admin = await user("admin@example.test");
    const ada = await user("ada@example.test");
    expect(await auth.admin.authorize(admin)).toEqual({ adminId: admin.principal.userId });
    expect(await code(auth.admin.authorize({ principal: admin.principal }))).toBe("STEP_UP_REQUIRED");
    expect(await code(auth.admin.authorize(ada))).toBe("ADMIN_REQUIRED");
    expect(await code(auth.admin.authorize({ stepUpToken: admin.stepUpToken }))).toBe(
      "AUTHENTICATION_REQUIRED",
    );
    const { accessToken } = await auth.admin.impersonate(admin, admin.principal.userId);
    const impersonation = await auth.authenticate({ token: accessToken });
    expect(
      await code(auth.admin.authorize({ principal: impersonation, stepUpToken: admin.stepUpToken })),
    ).toBe("IMPERSONATION_NOT_ALLOWED");
    // Another user's step-up token is no step-up of this session.
    const foreign = { principal: admin.principal, stepUpToken: ada.stepUpToken };
    expect(await code(auth.admin.authorize(foreign))).toBe("STEP_UP_REQUIRED");
  });
});
