import { z } from "zod";
import type { SecurityEvent } from "../events.js";
import type { AccessTokenAllowlist } from "../ports/access-token-allowlist.js";
import type { ActivityStore } from "../ports/activity-store.js";
import type { ApiKeyStore } from "../ports/api-key-store.js";
import type { AuditLogStore } from "../ports/audit-log-store.js";
import type { Clock } from "../ports/clock.js";
import type { CooldownStore } from "../ports/cooldown-store.js";
import type { IdentityStore } from "../ports/identity-store.js";
import type { JointStores } from "../ports/joint-stores.js";
import type { Logger } from "../ports/logger.js";
import type { EmailKind, Mailer } from "../ports/mailer.js";
import type { OrganizationStore } from "../ports/organization-store.js";
import type { PasskeyStore } from "../ports/passkey-store.js";
import type { PasswordHasher } from "../ports/password-hasher.js";
import type { SessionStore } from "../ports/session-store.js";
import type { SingleUseTokenStore } from "../ports/single-use-token-store.js";
import type { StoresTogether } from "../ports/stores-together.js";
import type { UserStore } from "../ports/user-store.js";
import type { WebhookStore } from "../ports/webhook-store.js";
import { isBareHttpUrl } from "../support/http-url.js";
import { apiKeysOptionsSchema } from "./api-key-options.js";
import type { AdminOptions, AuthOptions } from "./auth-options.js";
import { captchaOptionsSchema } from "./captcha-options.js";
import { EMAIL_KINDS } from "./email-kinds.js";
import { identityProvidersSchema } from "./identity-provider-options.js";
import { OAUTH_PROVIDER_NEEDS_ORIGIN, oauthProviderOptionSchema } from "./oauth-provider-options.js";
import { organizationsOptionsSchema } from "./organization-options.js";
import { secretOption } from "./secret-option.js";
import { SSO_NEEDS_ORGANIZATIONS, SSO_NEEDS_ORIGIN, ssoOptionSchema } from "./sso-options.js";
import { resolveWebAuthn, webAuthnOptionsSchema } from "./webauthn-options.js";
import { WEBHOOK_STORE_METHODS, webhookStoreProblems, webhooksOptionsSchema } from "./webhook-options.js";

export type {
  AdminOptions,
  AuthOptionFields,
  AuthOptions,
  AuthStores,
  BreachedPasswordsOptions,
  CookieOptions,
  EmailBrandOptions,
  EmailLinkOptions,
  EmailOffOptions,
  EmailOnOptions,
  EmailOptions,
  EmailSignInOptions,
  IpLimitOptions,
  IpLimitsOptions,
  LoginThrottleOptions,
  OrganizationsOptions,
  PasswordOptions,
  TwoFactorOptions,
  WebAuthnOptions,
} from "./auth-options.js";

const EMAIL_KIND_NAMES = EMAIL_KINDS as [EmailKind, ...EmailKind[]];

const port = <T>(name: string, methods: readonly string[]) =>
  z.custom<T>(
    (value) =>
      typeof value === "object" &&
      value !== null &&
      methods.every((method) => typeof (value as Record<string, unknown>)[method] === "function"),
    {
      message: `must be ${/^[AEIOU]/.test(name) ? "an" : "a"} ${name} with the methods ${methods.join(", ")}`,
    },
  );

/** The names of a port's required methods (the ones a store must have; optional ones are left out). */
export type RequiredMethods<T> = {
  [K in keyof T]-?: undefined extends T[K] ? never : T[K] extends (...args: never[]) => unknown ? K : never;
}[keyof T];

/**
 * The methods each store port must have; `createAuth` checks them at start-up. Each list is
 * checked against its port's type (`options.test.ts` also checks that it names every required method).
 */
export const STORE_METHODS = {
  users: [
    "findById",
    "findByEmail",
    "create",
    "update",
    "delete",
  ] as const satisfies readonly RequiredMethods<UserStore>[],
  cooldowns: [
    "acquire",
    "remainingMs",
    "release",
    "hit",
    "refundHit",
    "clearHits",
  ] as const satisfies readonly RequiredMethods<CooldownStore>[],
  sessions: [
    "createSession",
    "getSession",
    "listSessions",
    "rotateRefreshToken",
    "deleteSession",
    "deleteUserSessions",
  ] as const satisfies readonly RequiredMethods<SessionStore>[],
  allowlist: [
    "allowAccessToken",
    "findAllowedAccessToken",
    "revokeAccessTokens",
  ] as const satisfies readonly RequiredMethods<AccessTokenAllowlist>[],
  singleUseTokens: [
    "saveToken",
    "consumeToken",
    "deleteUserTokens",
  ] as const satisfies readonly RequiredMethods<SingleUseTokenStore>[],
  identities: [
    "link",
    "findBySubject",
    "listByUser",
    "unlink",
  ] as const satisfies readonly RequiredMethods<IdentityStore>[],
  together: ["run"] as const satisfies readonly RequiredMethods<StoresTogether>[],
  joint: [] as const satisfies readonly RequiredMethods<JointStores>[],
  activity: [
    "record",
    "list",
    "deleteUserActivity",
    "sweepActivity",
  ] as const satisfies readonly RequiredMethods<ActivityStore>[],
  passkeys: [
    "create",
    "findById",
    "listByUser",
    "recordUse",
    "rename",
    "delete",
    "deleteAllForUser",
  ] as const satisfies readonly RequiredMethods<PasskeyStore>[],
  organizations: [
    "createOrganization",
    "findOrganization",
    "updateOrganization",
    "deleteOrganization",
    "listOrganizations",
    "findMembership",
    "listMembershipsOfUser",
    "listMembers",
    "changeMemberRole",
    "removeMember",
    "removeUser",
    "listRoles",
    "createRole",
    "updateRole",
    "deleteRole",
    "createInvitation",
    "findInvitationByTokenHash",
    "listInvitations",
    "listInvitationsForEmail",
    "revokeInvitation",
    "declineInvitation",
    "acceptInvitation",
  ] as const satisfies readonly RequiredMethods<OrganizationStore>[],
  apiKeys: [
    "createApiKey",
    "findApiKeyByLookupId",
    "useApiKey",
    "returnApiKeyUses",
    "findApiKey",
    "listApiKeys",
    "deleteApiKey",
    "touchApiKey",
    "deleteUserApiKeys",
    "deleteOrganizationApiKeys",
  ] as const satisfies readonly RequiredMethods<ApiKeyStore>[],
  auditLog: ["append", "list", "sweepAudit"] as const satisfies readonly RequiredMethods<AuditLogStore>[],
  webhooks: WEBHOOK_STORE_METHODS,
};

/** The methods of `JointStores`, each optional (`stores.joint`). */
const JOINT_METHODS = [
  "findAllowedAccessTokenWithUser",
  "findAllowedAccessTokenWithMembership",
  "allowAccessTokenWithSession",
  "allowAccessTokenWithSessionAndRecordSignIn",
  "rotateRefreshTokenWithAccessToken",
] as const satisfies readonly (keyof JointStores)[];

/** The longest idle timeout or absolute lifetime of a session: 400 days, the cap browsers put on a cookie's Max-Age. */
const MAX_SESSION_SECONDS = 400 * 24 * 3600;

const seconds = (fallback: number) =>
  z
    .number()
    .int()
    .positive()
    .max(10 * 365 * 24 * 3600)
    .default(fallback);

/** A session's idle timeout or lifetime: 1 second to `MAX_SESSION_SECONDS`. */
const sessionSeconds = (fallback: number) =>
  z.number().int().min(1).max(MAX_SESSION_SECONDS).default(fallback);

/** A per-IP limit: at most `max` in `windowSeconds`. */
const ipLimit = (max: number, windowSeconds: number) =>
  z
    .object({
      max: z.number().int().min(1).max(1_000_000).default(max),
      windowSeconds: seconds(windowSeconds),
    })
    .prefault({});

const hexColor = z.string().regex(/^#[0-9a-fA-F]{3}([0-9a-fA-F]{3})?$/, "must be a hex colour like #4f46e5");
const pagePath = z.string().regex(/^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/, "must be a path starting with /");

/** A base URL as configured: `https://acme.test` or `https://acme.test/app` (no query, fragment or credentials). */
const originSchema = z.string().refine(isBareHttpUrl, {
  message: "must be an http(s) URL like https://app.example.com, without query, fragment or credentials",
});

/**
 * The validation of `AuthOptions`, with the defaults. The options' documentation is on the
 * `AuthOptionFields` interface (auth-options.ts; what an editor shows on hover); options.test.ts checks that
 * the interface and this schema's input type agree both ways. The refinements below are the rules
 * the `AuthOptions` type states too (`mailer` and `appOrigin` while email is on), and those a type
 * cannot state.
 */
export const authOptionsSchema = z
  .object({
    secret: secretOption,
    issuer: z.string().min(1).default("portcullis"),
    audience: z.string().min(1).default("portcullis"),
    basePath: z
      .string()
      .regex(/^\/[A-Za-z0-9._~\-/]*[A-Za-z0-9._~-]$/, "must start with / and not end with /")
      .default("/api/auth"),
    stores: z.object({
      users: port<UserStore>("UserStore", STORE_METHODS.users),
      cooldowns: port<CooldownStore>("CooldownStore", STORE_METHODS.cooldowns),
      sessions: port<SessionStore>("SessionStore", STORE_METHODS.sessions),
      allowlist: port<AccessTokenAllowlist>("AccessTokenAllowlist", STORE_METHODS.allowlist),
      singleUseTokens: port<SingleUseTokenStore>("SingleUseTokenStore", STORE_METHODS.singleUseTokens),
      identities: port<IdentityStore>("IdentityStore", STORE_METHODS.identities).optional(),
      together: port<StoresTogether>("StoresTogether", STORE_METHODS.together).optional(),
      joint: z
        .custom<JointStores>(
          (value) =>
            typeof value === "object" &&
            value !== null &&
            JOINT_METHODS.every((method) =>
              ["undefined", "function"].includes(typeof (value as Record<string, unknown>)[method]),
            ),
          {
            message: `must be a JointStores: an object whose ${JOINT_METHODS.join(" and ")}, when present, are functions`,
          },
        )
        .optional(),
      activity: port<ActivityStore>("ActivityStore", STORE_METHODS.activity).optional(),
      passkeys: port<PasskeyStore>("PasskeyStore", STORE_METHODS.passkeys).optional(),
      organizations: port<OrganizationStore>("OrganizationStore", STORE_METHODS.organizations).optional(),
      apiKeys: port<ApiKeyStore>("ApiKeyStore", STORE_METHODS.apiKeys).optional(),
      auditLog: port<AuditLogStore>("AuditLogStore", STORE_METHODS.auditLog).optional(),
      webhooks: port<WebhookStore>("WebhookStore", STORE_METHODS.webhooks).optional(),
    }),
    mailer: port<Mailer>("Mailer", ["send"]).optional(),
    generateId: z
      .custom<() => string>((value) => typeof value === "function", { message: "must be a function" })
      .optional(),
    passwordHasher: port<PasswordHasher>("PasswordHasher", ["hash", "verify", "needsRehash"]).optional(),
    clock: port<Clock>("Clock", ["now"]).optional(),
    logger: port<Logger>("Logger", ["debug", "info", "warn", "error"]).optional(),
    accessTokenTtlSeconds: seconds(900),
    refreshTokenTtlSeconds: seconds(30 * 24 * 3600),
    refreshReuseIntervalSeconds: z.number().int().min(0).max(300).default(10),
    activityRetentionDays: z.number().int().min(1).max(3650).default(90),
    auditRetentionDays: z.number().int().min(1).max(3650).default(365),
    idleTimeoutSeconds: sessionSeconds(7 * 24 * 3600),
    absoluteLifetimeSeconds: sessionSeconds(30 * 24 * 3600),
    loginThrottle: z
      .object({
        freeAttempts: z.number().int().min(1).max(100).default(5),
        baseLockSeconds: seconds(30),
        maxLockSeconds: seconds(15 * 60),
        windowSeconds: seconds(3600),
      })
      .prefault({}),
    twoFactorTokenTtlSeconds: z.number().int().min(30).max(300).default(300),
    stepUpTokenTtlSeconds: z.number().int().min(30).max(3600).default(300),
    twoFactor: z
      .object({
        encryptionKey: secretOption.optional(),
        issuer: z.string().min(1).max(100).optional(),
        maxFailedAttempts: z.number().int().min(1).max(100).default(5),
        lockoutSeconds: seconds(15 * 60),
        emailCodeTtlSeconds: z.number().int().min(60).max(3600).default(600),
        trustBrowserDays: z.number().int().min(0).max(400).default(30),
      })
      .prefault({}),
    passwordResetTokenTtlSeconds: seconds(30 * 60),
    emailVerificationTokenTtlSeconds: seconds(24 * 3600),
    password: z
      .object({
        minLength: z.number().int().min(1).max(256).default(8),
        maxLength: z.number().int().min(64).max(4096).default(256),
      })
      .prefault({})
      .refine((p) => p.minLength <= p.maxLength, { message: "minLength must not exceed maxLength" }),
    email: z
      .object({
        enabled: z.boolean().default(true),
        cooldownSeconds: seconds(60),
        loginAlerts: z.boolean().default(true),
        sendTimeoutMs: z.number().int().min(100).max(120_000).default(15_000),
        brand: z
          .object({
            name: z.string().min(1).max(100).default("Portcullis"),
            primaryColor: hexColor.default("#4f46e5"),
            textColor: hexColor.default("#111827"),
            backgroundColor: hexColor.default("#f3f4f6"),
            logoUrl: z
              .url({ protocol: /^https?$/ })
              .nullable()
              .default(null),
          })
          .prefault({}),
        links: z
          .object({
            verifyEmail: pagePath.default("/verify-email"),
            resetPassword: pagePath.default("/reset-password"),
            forgotPassword: pagePath.default("/forgot-password"),
            signIn: pagePath.default("/login"),
            signUp: pagePath.default("/signup"),
            securitySettings: pagePath.default("/settings/security"),
            emailSignIn: pagePath.default("/sign-in/email"),
            confirmEmailChange: pagePath.default("/confirm-email-change"),
            acceptInvitation: pagePath.default("/invitations/accept"),
          })
          .prefault({}),
        templates: z.partialRecord(z.enum(EMAIL_KIND_NAMES), z.string().min(1)).optional(),
      })
      .prefault({}),
    appOrigin: originSchema.optional(),
    apiOrigin: originSchema.optional(),
    identityProviders: identityProvidersSchema,
    trustedOrigins: z.array(originSchema).optional(),
    cookies: z
      .object({
        secure: z.boolean().default(false),
        sameSite: z.enum(["strict", "lax", "none"]).default("strict"),
        hostPrefix: z.boolean().default(false),
      })
      .prefault({})
      .refine((c) => !c.hostPrefix || c.secure, {
        message: "hostPrefix requires secure: true",
        path: ["hostPrefix"],
      })
      .refine((c) => c.sameSite !== "none" || c.secure, {
        message: "sameSite 'none' requires secure: true",
        path: ["sameSite"],
      }),
    trustProxy: z.number().int().min(0).max(10).default(0),
    ipLimits: z
      .object({
        enabled: z.boolean().default(true),
        failedLogins: ipLimit(100, 15 * 60),
        wrongTwoFactorCodes: ipLimit(50, 15 * 60),
        registrations: ipLimit(20, 3600),
        passwordResetRequests: ipLimit(20, 3600),
        verificationSends: ipLimit(20, 3600),
        invalidTokens: ipLimit(50, 15 * 60),
        emailSignInRequests: ipLimit(20, 3600),
        passkeySignInStarts: ipLimit(100, 15 * 60),
        ssoSignInStarts: ipLimit(100, 15 * 60),
      })
      .prefault({}),
    onEvent: z
      .custom<(event: SecurityEvent) => unknown>((value) => typeof value === "function", {
        message: "must be a function",
      })
      .optional(),
    allowHeaderAuthentication: z.boolean().default(true),
    preferHeaderAuthentication: z.boolean().default(true),
    bodyLimitBytes: z
      .number()
      .int()
      .min(1024)
      .max(1024 * 1024)
      .default(16 * 1024),
    defaultLocale: z.string().min(2).default("en"),
    locales: z.record(z.string().min(2), z.record(z.string(), z.unknown())).optional(),
    breachedPasswords: z
      .object({
        rangeUrl: z
          .url({ protocol: /^https?$/ })
          .refine((url) => !/[?#]/.test(url), { message: "must have no query or fragment" })
          .transform((url) => url.replace(/\/+$/, "")),
        timeoutMs: z.number().int().min(50).max(30_000).default(1500),
        failClosed: z.boolean().default(false),
        cacheEntries: z.number().int().min(0).max(10_000).default(256),
        cacheTtlSeconds: z
          .number()
          .int()
          .min(0)
          .max(7 * 24 * 3600)
          .default(3600),
      })
      .optional(),
    emailSignIn: z
      .object({
        enabled: z.boolean().default(false),
        ttlSeconds: z.number().int().min(60).max(3600).default(600),
        maxWrongCodes: z.number().int().min(1).max(20).default(5),
      })
      .prefault({}),
    admin: z
      .object({
        authorize: z
          .custom<AdminOptions["authorize"]>((value) => typeof value === "function", {
            message: "must be a function",
          })
          .optional(),
      })
      .prefault({}),
    webauthn: webAuthnOptionsSchema,
    organizations: organizationsOptionsSchema,
    captcha: captchaOptionsSchema,
    apiKeys: apiKeysOptionsSchema,
    webhooks: webhooksOptionsSchema,
    oauthProvider: oauthProviderOptionSchema,
    sso: ssoOptionSchema,
  })
  .refine((o) => o.idleTimeoutSeconds <= o.absoluteLifetimeSeconds, {
    message:
      "must not exceed absoluteLifetimeSeconds (set idleTimeoutSeconds too when you shorten the lifetime)",
    path: ["idleTimeoutSeconds"],
  })
  .refine((o) => !o.email.enabled || o.mailer !== undefined, {
    message: "is required while email.enabled is true (or set email.enabled: false)",
    path: ["mailer"],
  })
  .refine((o) => !o.email.enabled || o.appOrigin !== undefined, {
    message: "is required while email.enabled is true: email links are built from it, never from requests",
    path: ["appOrigin"],
  })
  .refine((o) => o.identityProviders.length === 0 || o.stores.identities !== undefined, {
    message: "is required while identityProviders are configured (an IdentityStore keeps the links)",
    path: ["stores", "identities"],
  })
  .refine((o) => o.identityProviders.length === 0 || o.appOrigin !== undefined, {
    message:
      "is required while identityProviders are configured: redirects go to it, never to request headers",
    path: ["appOrigin"],
  })
  .refine((o) => o.webauthn === undefined || o.stores.passkeys !== undefined, {
    message: "is required while webauthn is configured (a PasskeyStore keeps the passkeys)",
    path: ["stores", "passkeys"],
  })
  .refine((o) => o.oauthProvider === undefined || o.appOrigin !== undefined, OAUTH_PROVIDER_NEEDS_ORIGIN)
  .refine((o) => o.sso === undefined || o.appOrigin !== undefined, SSO_NEEDS_ORIGIN)
  .refine((o) => o.sso === undefined || o.organizations !== undefined, SSO_NEEDS_ORGANIZATIONS)
  .refine((o) => o.sso === undefined || o.stores.identities !== undefined, {
    message: "is required while sso is set (an IdentityStore keeps each connection's links)",
    path: ["stores", "identities"],
  })
  .refine((o) => o.apiKeys === undefined || o.stores.apiKeys !== undefined, {
    message: "is required while apiKeys is configured (an ApiKeyStore keeps the keys)",
    path: ["stores", "apiKeys"],
  })
  .refine((o) => o.organizations === undefined || o.stores.organizations !== undefined, {
    message: "is required while organizations are configured (an OrganizationStore keeps them)",
    path: ["stores", "organizations"],
  })
  .refine(
    (o) => o.organizations === undefined || typeof o.stores.sessions.setActiveOrganization === "function",
    {
      message:
        "must have setActiveOrganization while organizations are configured (sessions keep the active organization)",
      path: ["stores", "sessions", "setActiveOrganization"],
    },
  )
  .superRefine((o, ctx) => {
    for (const problem of resolveWebAuthn(o.webauthn, o.appOrigin, o.email.brand.name).problems)
      ctx.addIssue({ code: "custom", message: problem.message, path: problem.path.split(".") });
    for (const problem of webhookStoreProblems(o)) ctx.addIssue({ code: "custom", ...problem });
  });

/** The options after validation, with every default filled in. */
export type ResolvedAuthOptions = z.output<typeof authOptionsSchema>;

/** Validates options once at start-up; a bad option throws naming the option. */
export function parseAuthOptions(options: AuthOptions): ResolvedAuthOptions {
  const result = authOptionsSchema.safeParse(options);
  if (result.success) return result.data;
  // A developer reads these: zod's own words (and an option's refinement message) say the most.
  const details = result.error.issues
    .slice(0, 20)
    .map((issue) => `"${issue.path.map(String).join(".") || "(options)"}" ${issue.message}`);
  throw new TypeError(`Invalid Portcullis option ${details.join("; ")}`);
}
