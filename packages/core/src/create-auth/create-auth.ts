import { apiKeysEnabled } from "../api-keys/api-keys.js";
import { createLeases } from "../api-keys/leases.js";
import { createCaptcha } from "../captcha/captcha.js";
import type { AuthContext } from "../context.js";
import { createDeviceTokens } from "../devices/device-token.js";
import { createEmailService } from "../emails/email-service.js";
import { createEmailRenderer, type EmailRenderer } from "../emails/renderer.js";
import { AuthError } from "../errors.js";
import { createArgon2Hasher } from "../hashing/argon2-hasher.js";
import { createTranslator, type Translator } from "../i18n/index.js";
import { createRelyingParties } from "../identity/flow.js";
import { assertOpenIdClientInstalled } from "../identity/relying-party.js";
import { createLimits } from "../limits/limits.js";
import { type Call, isIssuedPrincipal } from "../model.js";
import { type AuthOptions, parseAuthOptions, type ResolvedAuthOptions } from "../options/options.js";
import { resolveWebAuthn } from "../options/webauthn-options.js";
import { can, requirePermission } from "../organizations/membership.js";
import { assertSimpleWebAuthnInstalled } from "../passkeys/ceremony.js";
import { createBreachedPasswords } from "../passwords/breached-passwords.js";
import { systemClock } from "../ports/clock.js";
import { consoleLogger, type Logger } from "../ports/logger.js";
import { asAdmin, asHost } from "../sessions/admin-actor.js";
import { createBackgroundTasks } from "../support/background.js";
import { createAccessTokenCodec } from "../tokens/access-token.js";
import { createKeyedHash, createSigningKeys } from "../tokens/keys.js";
import { randomId, randomToken } from "../tokens/random.js";
import { createSecretBox } from "../two-factor/secret-box.js";
import { createStepUpTokens } from "../two-factor/step-up-token.js";
import { authenticate } from "../use-cases/authenticate.js";
import { authorizeAdmin } from "../use-cases/authorize-admin.js";
import { changePassword } from "../use-cases/change-password.js";
import { completeRequiredPasswordChange } from "../use-cases/complete-required-password-change.js";
import { completeTwoFactorLogin } from "../use-cases/complete-two-factor-login.js";
import { completeTwoFactorStepUp } from "../use-cases/complete-two-factor-step-up.js";
import { confirmEmailChange } from "../use-cases/confirm-email-change.js";
import { confirmTotpSetup } from "../use-cases/confirm-totp-setup.js";
import { createApiKey } from "../use-cases/create-api-key.js";
import { createSession } from "../use-cases/create-session.js";
import { createUser } from "../use-cases/create-user.js";
import { createWebhookEndpoint } from "../use-cases/create-webhook-endpoint.js";
import { deleteAccount } from "../use-cases/delete-account.js";
import { deleteApiKey } from "../use-cases/delete-api-key.js";
import { deletePasskey } from "../use-cases/delete-passkey.js";
import { deleteUser } from "../use-cases/delete-user.js";
import { deleteWebhookEndpoint } from "../use-cases/delete-webhook-endpoint.js";
import { disableTwoFactorMethod } from "../use-cases/disable-two-factor-method.js";
import { enableEmailTwoFactor } from "../use-cases/enable-email-two-factor.js";
import { exportAccountData } from "../use-cases/export-account-data.js";
import { exportAuditLog } from "../use-cases/export-audit-log.js";
import { finishIdentityProviderSignIn } from "../use-cases/finish-identity-provider-sign-in.js";
import { finishPasskeyRegistration } from "../use-cases/finish-passkey-registration.js";
import { finishPasskeySignIn } from "../use-cases/finish-passkey-sign-in.js";
import { finishPasskeyStepUp } from "../use-cases/finish-passkey-step-up.js";
import { forgetTrustedBrowsers } from "../use-cases/forget-trusted-browsers.js";
import { getCurrentUser } from "../use-cases/get-current-user.js";
import { getPasswordResetCooldown } from "../use-cases/get-password-reset-cooldown.js";
import { getTotpSetup } from "../use-cases/get-totp-setup.js";
import { getTwoFactorEmailCooldown } from "../use-cases/get-two-factor-email-cooldown.js";
import { getUser } from "../use-cases/get-user.js";
import { getVerificationCooldown } from "../use-cases/get-verification-cooldown.js";
import { impersonateUser } from "../use-cases/impersonate-user.js";
import { listActivity } from "../use-cases/list-activity.js";
import { listAllOrganizations } from "../use-cases/list-all-organizations.js";
import { listApiKeys } from "../use-cases/list-api-keys.js";
import { listAuditLog } from "../use-cases/list-audit-log.js";
import { listPasskeys } from "../use-cases/list-passkeys.js";
import { listSessions } from "../use-cases/list-sessions.js";
import { listTrustedBrowsers } from "../use-cases/list-trusted-browsers.js";
import { listUserActivity } from "../use-cases/list-user-activity.js";
import { listUsers } from "../use-cases/list-users.js";
import { listWebhookDeliveries } from "../use-cases/list-webhook-deliveries.js";
import { listWebhookEndpoints } from "../use-cases/list-webhook-endpoints.js";
import { lockUser } from "../use-cases/lock-user.js";
import { login } from "../use-cases/login.js";
import { logout } from "../use-cases/logout.js";
import { markEmailVerified } from "../use-cases/mark-email-verified.js";
import { recoverWithRecoveryCode } from "../use-cases/recover-with-recovery-code.js";
import { redeliverWebhook } from "../use-cases/redeliver-webhook.js";
import { refresh } from "../use-cases/refresh.js";
import { register } from "../use-cases/register.js";
import { renamePasskey } from "../use-cases/rename-passkey.js";
import { requestEmailChange } from "../use-cases/request-email-change.js";
import { requestEmailSignIn } from "../use-cases/request-email-sign-in.js";
import { requestPasswordReset } from "../use-cases/request-password-reset.js";
import { requirePasswordChange } from "../use-cases/require-password-change.js";
import { resendVerification } from "../use-cases/resend-verification.js";
import { resetPassword } from "../use-cases/reset-password.js";
import { revokeAllSessions } from "../use-cases/revoke-all-sessions.js";
import { revokeOtherSessions } from "../use-cases/revoke-other-sessions.js";
import { revokeSession } from "../use-cases/revoke-session.js";
import { revokeUserSessions } from "../use-cases/revoke-user-sessions.js";
import { rotateWebhookSecret } from "../use-cases/rotate-webhook-secret.js";
import { sendTwoFactorEmailCode } from "../use-cases/send-two-factor-email-code.js";
import { setPassword } from "../use-cases/set-password.js";
import { setPreferredTwoFactorMethod } from "../use-cases/set-preferred-two-factor-method.js";
import { signInWithEmail } from "../use-cases/sign-in-with-email.js";
import { startIdentityProviderLink } from "../use-cases/start-identity-provider-link.js";
import { startIdentityProviderSignIn } from "../use-cases/start-identity-provider-sign-in.js";
import { startPasskeyRegistration } from "../use-cases/start-passkey-registration.js";
import { startPasskeySignIn } from "../use-cases/start-passkey-sign-in.js";
import { startPasskeyStepUp } from "../use-cases/start-passkey-step-up.js";
import { stepUp } from "../use-cases/step-up.js";
import { unlinkIdentityProvider } from "../use-cases/unlink-identity-provider.js";
import { unlockUser } from "../use-cases/unlock-user.js";
import { updateWebhookEndpoint } from "../use-cases/update-webhook-endpoint.js";
import { verifyAuditLog } from "../use-cases/verify-audit-log.js";
import { verifyEmail } from "../use-cases/verify-email.js";
import type { Auth } from "./auth.js";
import { callerContext } from "./caller-context.js";
import { eventRecorders } from "./event-recorders.js";
import { ORGANIZATION_USE_CASES, SSO_USE_CASES } from "./organization-use-cases.js";
import type { SsoApi } from "./sso-api.js";
import { startUp } from "./start-up.js";
import { webhookApi, webhookWiring } from "./webhook-wiring.js";

export type { AccountExport } from "../account/export.js";
export type { AuthorizationStart } from "../identity/flow.js";
export type { PasskeyView } from "../passkeys/ceremony.js";
export type { SignedIn } from "../sessions/finish-login.js";
export type { TwoFactorChallenge } from "../two-factor/challenge.js";
export type { IdentityProviderCallbackResult } from "../use-cases/finish-identity-provider-sign-in.js";
export type { Impersonation } from "../use-cases/impersonate-user.js";
export type { UserPage } from "../use-cases/list-users.js";
export type { LoginResult } from "../use-cases/login.js";
export type { RefreshResult } from "../use-cases/refresh.js";
export type { PasskeySignInStart } from "../use-cases/start-passkey-sign-in.js";
export type { StepUpResult } from "../use-cases/step-up.js";
export type {
  AccountApi,
  AdminApi,
  Auth,
  HostApi,
  IdentityProviderApi,
  SessionApi,
  TotpSetup,
} from "./auth.js";
export { ORGANIZATION_USE_CASES, SSO_USE_CASES } from "./organization-use-cases.js";

/**
 * Validates the options (throwing a `TypeError` on a bad one, or on a configuration that cannot
 * work, such as identity providers without `openid-client` installed, naming the option), builds
 * the context of ports and services, and binds the use-case tables below to it.
 *
 * @example
 * ```ts
 * import { createAuth } from "@portcullis/core";
 * import { createMemoryStores } from "@portcullis/store-memory";
 *
 * const auth = createAuth({
 *   secret: process.env.AUTH_SECRET ?? "",
 *   stores: createMemoryStores(),
 *   appOrigin: "https://app.example.com",
 *   email: { enabled: false }, // or a `mailer`, e.g. createSmtpMailer(…)
 *   admin: { authorize: (_principal, user) => user.email === "ops@example.com" },
 * });
 *
 * // Your own code, no caller to check: the trusted host operations.
 * await auth.host.createUser({}, { email: "ops@example.com", emailVerified: true });
 *
 * // A request's caller: the back office checks the principal and its step-up token.
 * async function usersFor(accessToken: string, stepUpToken: string) {
 *   const principal = await auth.authenticate({ token: accessToken });
 *   return auth.admin.listUsers({ principal, stepUpToken }, { query: "ada" });
 * }
 * ```
 */
export function createAuth(input: AuthOptions): Auth {
  const options = parseAuthOptions(input);
  if (options.identityProviders.length > 0) assertOpenIdClientInstalled();
  if (options.webauthn) assertSimpleWebAuthnInstalled();
  const translator = createTranslator(options.defaultLocale, input.locales);
  const renderer = createEmailRenderer({
    brand: options.email.brand,
    translator,
    templates: options.email.templates,
  });
  const webhooks = webhookWiring();
  const ctx = createContext(options, translator, renderer, webhooks.wake);
  const startup = startUp(ctx, renderer);
  const webhookEngine = webhooks.start(ctx);
  const auth: Auth = {
    options,
    translator: ctx.translator,
    clock: ctx.clock,
    logger: ctx.logger,
    ready: () => startup,
    idle: () => ctx.background.idle(),
    ...bindUseCases(ctx, USE_CASES),
    sessions: bindUseCases(ctx, SESSION_USE_CASES),
    host: bindUseCases(ctx, HOST_USE_CASES),
    admin: bindUseCases(ctx, ADMIN_USE_CASES),
    activity: bindUseCases(ctx, ACTIVITY_USE_CASES),
    identityProviders: {
      list: () => [...ctx.relyingParties.values()].map(({ name, displayName }) => ({ name, displayName })),
      ...bindUseCases(ctx, IDENTITY_PROVIDER_USE_CASES),
    },
    account: bindUseCases(ctx, ACCOUNT_USE_CASES),
    passkeys: {
      enabled: ctx.webauthn !== undefined,
      ...bindUseCases(ctx, PASSKEY_USE_CASES),
    },
    organizations: {
      // On the host's every guarded request: no activity scope (they emit nothing).
      can: (principal, permission) => can(ctx, principal, permission),
      require: (principal, permission) => requirePermission(ctx, principal, permission),
      ...bindUseCases(ctx, ORGANIZATION_USE_CASES),
    },
    apiKeys: {
      enabled: apiKeysEnabled(ctx),
      ...bindUseCases(ctx, API_KEY_USE_CASES),
    },
    webhooks: webhookApi(webhookEngine, bindUseCases(ctx, WEBHOOK_USE_CASES)),
    oauthProvider: undefined,
    sso: { enabled: options.sso !== undefined, ...bindUseCases(ctx, SSO_USE_CASES), routes: () => [] },
  };
  // The plugins get the finished `Auth` (their routes read sessions and users through it).
  if (options.oauthProvider !== undefined)
    (auth as { oauthProvider: Auth["oauthProvider"] }).oauthProvider = options.oauthProvider.setUp(
      auth as never,
    );
  const sso = options.sso?.setUp(auth as never);
  if (sso) (auth.sso as { routes: SsoApi["routes"] }).routes = (kit) => sso.routes(kit);
  return auth;
}

/** What `Auth` calls by name: each of its methods is the use case bound to the context. */
export const USE_CASES = {
  register,
  login,
  refresh,
  logout,
  authenticate,
  getCurrentUser,
  requestPasswordReset,
  getPasswordResetCooldown,
  resetPassword,
  resendVerification,
  getVerificationCooldown,
  verifyEmail,
  completeTwoFactorLogin,
  recoverWithRecoveryCode,
  stepUp,
  completeTwoFactorStepUp,
  getTotpSetup,
  confirmTotpSetup,
  disableTwoFactorMethod,
  sendTwoFactorEmailCode,
  getTwoFactorEmailCooldown,
  enableEmailTwoFactor,
  setPreferredTwoFactorMethod,
  requestEmailSignIn,
  signInWithEmail,
  completeRequiredPasswordChange,
} as const;

/** `auth.sessions`. */
export const SESSION_USE_CASES = {
  create: createSession,
  list: listSessions,
  revoke: revokeSession,
  revokeAll: revokeAllSessions,
  revokeOthers: revokeOtherSessions,
  listTrustedBrowsers,
  forgetTrustedBrowsers,
} as const;

/**
 * `auth.host`: trusted operations for the host's own code, which check no caller (`asHost`: a
 * principal is refused, the actor is `call.actor` or `"host"`).
 */
export const HOST_USE_CASES = {
  createUser: asHost(createUser),
  setPassword: asHost(setPassword),
  markEmailVerified: asHost(markEmailVerified),
  deleteUser: asHost(deleteUser),
  listActivity: asHost(listUserActivity),
  listUsers: asHost(listUsers),
  getUser: asHost(getUser),
  lockUser: asHost(lockUser),
  unlockUser: asHost(unlockUser),
  revokeSessions: asHost(revokeUserSessions),
  requirePasswordChange: asHost(requirePasswordChange),
  impersonate: asHost(impersonateUser),
  listAuditLog: asHost(listAuditLog),
  exportAuditLog: asHost(exportAuditLog),
  verifyAuditLog: asHost(verifyAuditLog),
} as const;

/**
 * `auth.admin`: the back office, for a request's caller. Each checks the principal first
 * (`asAdmin`: signed in, no impersonation, `admin.authorize`, a live step-up token).
 */
export const ADMIN_USE_CASES = {
  listUsers: asAdmin(listUsers),
  getUser: asAdmin(getUser),
  lockUser: asAdmin(lockUser),
  unlockUser: asAdmin(unlockUser),
  revokeSessions: asAdmin(revokeUserSessions),
  requirePasswordChange: asAdmin(requirePasswordChange),
  impersonate: asAdmin(impersonateUser),
  listOrganizations: asAdmin(listAllOrganizations),
  listAuditLog: asAdmin(listAuditLog),
  exportAuditLog: asAdmin(exportAuditLog),
  verifyAuditLog: asAdmin(verifyAuditLog),
  authorize: asAdmin(authorizeAdmin),
} as const;

/** `auth.apiKeys` (docs/api-keys.md). */
export const API_KEY_USE_CASES = { create: createApiKey, list: listApiKeys, delete: deleteApiKey } as const;

/** `auth.webhooks`, besides `enabled`, `deliverNow` and `stop` (docs/webhooks.md). */
export const WEBHOOK_USE_CASES = {
  create: createWebhookEndpoint,
  list: listWebhookEndpoints,
  update: updateWebhookEndpoint,
  delete: deleteWebhookEndpoint,
  rotateSecret: rotateWebhookSecret,
  listDeliveries: listWebhookDeliveries,
  redeliver: redeliverWebhook,
} as const;

/** `auth.activity`. */
export const ACTIVITY_USE_CASES = { list: listActivity } as const;

/** `auth.identityProviders`, besides the synchronous `list`. */
export const IDENTITY_PROVIDER_USE_CASES = {
  authorize: startIdentityProviderSignIn,
  link: startIdentityProviderLink,
  callback: finishIdentityProviderSignIn,
  unlink: unlinkIdentityProvider,
} as const;

/** `auth.account`: the signed-in user's own account (docs/concepts.md, "Account self-service"). */
export const ACCOUNT_USE_CASES = {
  changePassword,
  requestEmailChange,
  confirmEmailChange,
  delete: deleteAccount,
  export: exportAccountData,
} as const;

/** `auth.passkeys`, besides `enabled`. */
export const PASSKEY_USE_CASES = {
  registrationOptions: startPasskeyRegistration,
  register: finishPasskeyRegistration,
  signInOptions: startPasskeySignIn,
  signIn: finishPasskeySignIn,
  stepUpOptions: startPasskeyStepUp,
  stepUp: finishPasskeyStepUp,
  list: listPasskeys,
  rename: renamePasskey,
  delete: deletePasskey,
} as const;

/** A use case: the context, who calls and how, and its input when it has one. */
type UseCase = (ctx: AuthContext, call: Call, input: never) => Promise<unknown>;

/** The use cases of `table` as `Auth` methods: the context bound, `(call, input)` left. */
export type BoundUseCases<T> = {
  [K in keyof T]: T[K] extends (ctx: AuthContext, call: Call, ...input: infer I) => infer R
    ? (call: Call, ...input: I) => R
    : never;
};

/**
 * Use cases that record no activity, run without an activity scope: `authenticate` runs on every
 * request and emits nothing.
 */
const WITHOUT_ACTIVITY: ReadonlySet<UseCase> = new Set<UseCase>([authenticate]);

/**
 * Binds each use case of `table` to the context. A call's principal, when it has one, must be
 * one `authenticate` or `sessions.create` issued: anything else rejects with
 * `AUTHENTICATION_REQUIRED` before the use case runs (use cases that need one also refuse a call
 * without, through `signedIn`). Not `async`: `authenticate` runs on every request, and this adds
 * one property read to it (a paired loop measured no difference). Every other use case runs in
 * an activity scope: the activity writes its events start run alongside it, and its promise
 * settles only once they are written (`activity/activity.ts`). The calls of an API key's or an
 * impersonated session's principal name it as the actor of their events (`callerContext`).
 */
function bindUseCases<T extends Record<string, UseCase>>(ctx: AuthContext, table: T): BoundUseCases<T> {
  const bound: Record<string, (call: Call, input: never) => Promise<unknown>> = {};
  for (const [name, useCase] of Object.entries(table)) {
    const run: UseCase = WITHOUT_ACTIVITY.has(useCase)
      ? useCase
      : (context, call, input) =>
          ctx.activity.within(() => useCase(callerContext(context, call), call, input));
    bound[name] = (call, input) =>
      call.principal === undefined || isIssuedPrincipal(call.principal)
        ? run(ctx, call, input)
        : Promise.reject(new AuthError("AUTHENTICATION_REQUIRED"));
  }
  return bound as BoundUseCases<T>;
}

/** The stores of the options, as the context names them. */
function contextStores(options: ResolvedAuthOptions) {
  const { stores } = options;
  return {
    users: stores.users,
    cooldowns: stores.cooldowns,
    sessions: stores.sessions,
    allowlist: stores.allowlist,
    singleUseTokens: stores.singleUseTokens,
    together: stores.together,
    joint: stores.joint,
    identities: stores.identities,
    passkeys: stores.passkeys,
    organizations: stores.organizations,
    apiKeys: stores.apiKeys,
    sso: options.sso?.store,
  };
}

/** The keys of TOTP secrets and recovery codes: `twoFactor.encryptionKey`, else `secret` (warned). */
function encryptionKeysOf(options: ResolvedAuthOptions, logger: Logger) {
  if (!options.twoFactor.encryptionKey && !["development", "test"].includes(process.env.NODE_ENV ?? "")) {
    logger.warn(
      { event: "config.encryption_key_missing" },
      "twoFactor.encryptionKey is not set: TOTP secrets and recovery codes are keyed by `secret`, which then cannot be rotated away",
    );
  }
  return options.twoFactor.encryptionKey ?? options.secret;
}

function createContext(
  options: ResolvedAuthOptions,
  translator: Translator,
  renderer: EmailRenderer,
  onAuditAppended: () => void,
): AuthContext {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? consoleLogger;
  const hasher = options.passwordHasher ?? createArgon2Hasher({ logger });
  let dummyHash: Promise<string> | undefined;
  const signingKeys = createSigningKeys(options.secret, "ACCESS_TOKEN_INVALID");
  const encryptionKeys = encryptionKeysOf(options, logger);
  const background = createBackgroundTasks(logger);
  const { activity, audit, events } = eventRecorders(options, clock, logger, background, onAuditAppended);
  return {
    options,
    ...contextStores(options),
    relyingParties: createRelyingParties(options.identityProviders, { clock }),
    mailer: options.mailer,
    hasher,
    clock,
    logger,
    translator,
    accessTokens: createAccessTokenCodec({
      keys: signingKeys,
      issuer: options.issuer,
      audience: options.audience,
      ttlSeconds: options.accessTokenTtlSeconds,
      clock,
    }),
    secretBox: createSecretBox(encryptionKeys),
    recoveryCodes: createKeyedHash(encryptionKeys, "recovery codes v1"),
    refreshTokenSuccessors: createKeyedHash(options.secret, "refresh token successor v1"),
    devices: createDeviceTokens(options.secret),
    limits: createLimits(options, options.stores.cooldowns, events),
    events,
    activity,
    audit,
    background,
    stepUpTokens: createStepUpTokens({
      keys: signingKeys,
      issuer: options.issuer,
      audience: options.audience,
      ttlSeconds: options.stepUpTokenTtlSeconds,
      clock,
    }),
    emails: createEmailService({
      enabled: options.email.enabled,
      mailer: options.mailer,
      renderer,
      appOrigin: options.appOrigin,
      links: options.email.links,
      sendTimeoutMs: options.email.sendTimeoutMs,
      logger,
      background,
    }),
    breachedPasswords:
      options.breachedPasswords === undefined
        ? undefined
        : createBreachedPasswords({ ...options.breachedPasswords, clock, logger }),
    captcha: options.captcha === undefined ? undefined : createCaptcha(options.captcha, logger),
    generateId: options.generateId ?? randomId,
    webauthn: resolveWebAuthn(options.webauthn, options.appOrigin, options.email.brand.name).value,
    passkeyDecoys: createKeyedHash(options.secret, "passkey decoy v1"),
    apiKeyHash: createKeyedHash(options.secret, "api key v1"),
    apiKeyLeases: createLeases(options.apiKeys?.requestsPerMinute ?? 0),
    dummyHash() {
      dummyHash ??= hasher.hash(randomToken(24)).catch((error: unknown) => {
        dummyHash = undefined;
        throw error;
      });
      return dummyHash;
    },
  };
}
