/**
 * The error codes each use case can reject with, declared once: keyed by the `Auth` method that
 * runs it (`login`, `sessions.revoke`, `admin.lockUser`, …). The method's TSDoc points here, the
 * HTTP routes' `errors` are read from here (joined with the codes the HTTP layer adds itself:
 * the route's credentials, the body's checks, CSRF), and so is the OpenAPI document, which is
 * built from the routes. `use-case-errors.test.ts` checks the table against the use-case files:
 * every code a use case throws is in its entry, and every entry names a method of `Auth`.
 *
 * It sits in the foundation so that both the HTTP layer (which may not import a use case) and
 * `createAuth`'s docs can read it.
 */
import type { ErrorCode } from "./errors.js";

/** The 500 of a use case that reads or writes the stores. */
const DB = ["DATABASE_FAILURE"] as const;
/** The 500s of a send: the mailer, the templates, and the cooldown store. */
const MAIL = [
  "EMAIL_SEND_FAILURE",
  "EMAIL_AUTHENTICATION_FAILURE",
  "EMAIL_TEMPLATE_FAILURE",
  "EMAIL_COOLDOWN_CACHE_FAILURE",
] as const;
/** An email sent under its cooldown (`sendWithCooldown`): turned off, running, or failing to send. */
const SEND = ["EMAIL_DISABLED", "EMAIL_COOLDOWN_ACTIVE", ...MAIL] as const;
/** A second-factor check: its answers, its counters (in the cooldown store), the sealed TOTP secret. */
const CODE_CHECK = [
  "TWO_FACTOR_CODE_MISSING",
  "WRONG_TWO_FACTOR_CODE",
  "TWO_FACTOR_THROTTLED",
  "TWO_FACTOR_DISABLED",
  "EMAIL_COOLDOWN_CACHE_FAILURE",
  "DATABASE_ENCRYPTION_FAILURE",
] as const;
/** A use case of the signed-in user (`signedIn`) that reads their record. */
const SIGNED_IN = ["AUTHENTICATION_REQUIRED", "USER_NOT_FOUND", ...DB] as const;
/**
 * A security-settings change (`requireStepUp`): signed in, not an impersonation, a live step-up
 * token, the user's record still there.
 */
const SETTING = [
  "AUTHENTICATION_REQUIRED",
  "IMPERSONATION_NOT_ALLOWED",
  "STEP_UP_REQUIRED",
  "USER_NOT_FOUND",
  ...DB,
] as const;
/** Turning a 2FA method on (`checkEnabling`): a settings change, a verified address, then its first code. */
const ENABLING = [...SETTING, "EMAIL_NOT_VERIFIED", ...CODE_CHECK] as const;
/** A new password: the policy and the breach corpus. */
const NEW_PASSWORD = [
  "PASSWORD_POLICY_VIOLATION",
  "PASSWORD_BREACHED",
  "BREACHED_PASSWORD_CHECK_FAILURE",
] as const;
/** A route of one organization: signed in, a member (else 404, as for a missing one), the stores. */
const MEMBER = ["AUTHENTICATION_REQUIRED", "ORGANIZATION_NOT_FOUND", ...DB] as const;
/** A route of one organization that needs a permission of the member's role. */
const PERMISSION = [...MEMBER, "PERMISSION_DENIED"] as const;
/** A read of the audit log: off without its store, bad filters, the store. */
const AUDIT_READ = ["NOT_FOUND", "VALIDATION_FAILED", ...DB] as const;
/** The CAPTCHA check of a route the `captcha` option protects (`requireCaptcha`). */
const CAPTCHA = ["CAPTCHA_REQUIRED", "CAPTCHA_INVALID"] as const;
/** A password checked on the address's login budget (its counters in the cooldown store). */
const PASSWORD_CHECK = ["INVALID_CREDENTIALS", "LOGIN_THROTTLED", "EMAIL_COOLDOWN_CACHE_FAILURE"] as const;
/** A passkey ceremony's answer refused (`NOT_FOUND` also when `webauthn` is not configured). */
const PASSKEY_CHECK = [
  "PASSKEY_CHALLENGE_INVALID",
  "PASSKEY_CHALLENGE_EXPIRED",
  "PASSKEY_VERIFICATION_FAILED",
  "NOT_FOUND",
] as const;
/**
 * The back office's check of the caller (`asAdmin`): signed in, not an impersonation, allowed by
 * `admin.authorize` (a throwing `authorize` is `INTERNAL_ERROR`), a live step-up token.
 */
const ADMIN_CHECK = [
  "AUTHENTICATION_REQUIRED",
  "IMPERSONATION_NOT_ALLOWED",
  "ADMIN_REQUIRED",
  "STEP_UP_REQUIRED",
  "INTERNAL_ERROR",
  ...DB,
] as const;

/**
 * Managing webhook endpoints (docs/webhooks.md): off without `webhooks`, or an endpoint that is not
 * the scope's (`NOT_FOUND`); the input; an organization's member with `webhook:manage`, or the
 * back office's check for the deployment's endpoints.
 */
const WEBHOOK = ["NOT_FOUND", "VALIDATION_FAILED", ...PERMISSION, ...ADMIN_CHECK] as const;
/** A webhook change that shows a new secret: an organization's needs a step-up; the secret is sealed. */
const WEBHOOK_SECRET = [...WEBHOOK, "USER_NOT_FOUND", "DATABASE_ENCRYPTION_FAILURE"] as const;

/** The host's and the back office's operations on a user, before the check of `asAdmin`. */
const ON_USER = {
  listUsers: ["VALIDATION_FAILED", "INTERNAL_ERROR", ...DB],
  getUser: ["USER_NOT_FOUND", ...DB],
  lockUser: ["USER_NOT_FOUND", "VALIDATION_FAILED", ...DB],
  unlockUser: ["USER_NOT_FOUND", ...DB],
  revokeSessions: ["USER_NOT_FOUND", ...DB],
  requirePasswordChange: ["USER_NOT_FOUND", ...DB],
  impersonate: ["USER_NOT_FOUND", "ACCOUNT_LOCKED", ...DB],
} as const;

/** The table with each entry's codes once (joined groups may share one), each entry frozen, then the table. */
function frozen<T extends Record<string, readonly ErrorCode[]>>(
  table: T,
): { readonly [K in keyof T]: readonly T[K][number][] } {
  const entries = Object.entries(table).map(([name, codes]) => [name, Object.freeze([...new Set(codes)])]);
  return Object.freeze(Object.fromEntries(entries)) as { readonly [K in keyof T]: readonly T[K][number][] };
}

/** The error codes of each `Auth` method, by its path on `Auth` (`login`, `sessions.revoke`). */
export const USE_CASE_ERRORS = frozen({
  register: [
    "VALIDATION_FAILED",
    ...CAPTCHA,
    ...NEW_PASSWORD,
    "RATE_LIMITED",
    "EMAIL_COOLDOWN_CACHE_FAILURE",
    ...DB,
  ],
  login: [
    "SSO_REQUIRED",
    "VALIDATION_FAILED",
    ...CAPTCHA,
    ...PASSWORD_CHECK,
    "ACCOUNT_LOCKED",
    "PASSWORD_CHANGE_REQUIRED",
    ...DB,
  ],
  refresh: ["REFRESH_TOKEN_INVALID", "SESSION_EXPIRED", "ACCOUNT_LOCKED", "VALIDATION_FAILED", ...DB],
  logout: [...DB],
  authenticate: [
    "AUTHENTICATION_REQUIRED",
    "ACCESS_TOKEN_INVALID",
    "ACCESS_TOKEN_EXPIRED",
    "ACCESS_TOKEN_ALLOWLIST_READING_FAILURE",
    // An API key (`pc_…`) while `apiKeys` is configured: its store, and its counter in the cooldown store.
    "API_KEY_INVALID",
    "API_KEY_RATE_LIMITED",
    ...DB,
    "EMAIL_COOLDOWN_CACHE_FAILURE",
  ],
  getCurrentUser: [...SIGNED_IN],
  requestPasswordReset: ["VALIDATION_FAILED", ...CAPTCHA, ...SEND, "RATE_LIMITED", ...DB],
  getPasswordResetCooldown: ["VALIDATION_FAILED", "EMAIL_COOLDOWN_CACHE_FAILURE"],
  resetPassword: [
    "PASSWORD_RESET_TOKEN_INVALID",
    "PASSWORD_RESET_TOKEN_EXPIRED",
    ...NEW_PASSWORD,
    "RATE_LIMITED",
    "EMAIL_COOLDOWN_CACHE_FAILURE",
    ...DB,
  ],
  resendVerification: [
    ...SIGNED_IN,
    ...CAPTCHA,
    "EMAIL_ALREADY_VERIFIED",
    "RATE_LIMITED",
    "EMAIL_VERIFICATION_TOKEN_CREATION_FAILURE",
    ...SEND,
  ],
  getVerificationCooldown: [...SIGNED_IN, "EMAIL_COOLDOWN_CACHE_FAILURE"],
  verifyEmail: [
    "EMAIL_VERIFICATION_TOKEN_INVALID",
    "EMAIL_VERIFICATION_TOKEN_EXPIRED",
    "EMAIL_ALREADY_VERIFIED",
    "RATE_LIMITED",
    "USER_NOT_FOUND",
    "EMAIL_COOLDOWN_CACHE_FAILURE",
    ...DB,
  ],
  completeTwoFactorLogin: ["TWO_FACTOR_TOKEN_INVALID", ...CODE_CHECK, "ACCOUNT_LOCKED", ...DB],
  recoverWithRecoveryCode: [
    "TWO_FACTOR_TOKEN_INVALID",
    "TWO_FACTOR_CODE_MISSING",
    "WRONG_TWO_FACTOR_CODE",
    "TWO_FACTOR_THROTTLED",
    "EMAIL_COOLDOWN_CACHE_FAILURE",
    "ACCOUNT_LOCKED",
    ...DB,
  ],
  stepUp: [...PASSWORD_CHECK, "IMPERSONATION_NOT_ALLOWED", ...SIGNED_IN],
  completeTwoFactorStepUp: [
    "AUTHENTICATION_REQUIRED",
    "TWO_FACTOR_TOKEN_INVALID",
    ...CODE_CHECK,
    "IMPERSONATION_NOT_ALLOWED",
    ...DB,
  ],
  getTotpSetup: [...SETTING, "EMAIL_NOT_VERIFIED", "DATABASE_ENCRYPTION_FAILURE"],
  // The setup token of `getTotpSetup` is refused like a 2FA token.
  confirmTotpSetup: ["TWO_FACTOR_TOKEN_INVALID", ...ENABLING],
  disableTwoFactorMethod: ["TWO_FACTOR_DISABLED", ...SETTING],
  sendTwoFactorEmailCode: [
    "AUTHENTICATION_REQUIRED",
    "TWO_FACTOR_TOKEN_INVALID",
    "EMAIL_NOT_VERIFIED",
    "TWO_FACTOR_DISABLED",
    "USER_NOT_FOUND",
    ...SEND,
    ...DB,
  ],
  getTwoFactorEmailCooldown: [
    "AUTHENTICATION_REQUIRED",
    "TWO_FACTOR_TOKEN_INVALID",
    "EMAIL_COOLDOWN_CACHE_FAILURE",
    "USER_NOT_FOUND",
    ...DB,
  ],
  enableEmailTwoFactor: [...ENABLING],
  setPreferredTwoFactorMethod: ["TWO_FACTOR_DISABLED", ...SETTING],
  // `NOT_FOUND`: sign-in by email is turned off.
  requestEmailSignIn: ["NOT_FOUND", "VALIDATION_FAILED", ...CAPTCHA, ...SEND, "RATE_LIMITED", ...DB],
  signInWithEmail: [
    "SSO_REQUIRED",
    "NOT_FOUND",
    "VALIDATION_FAILED",
    "EMAIL_SIGN_IN_INVALID",
    "EMAIL_SIGN_IN_THROTTLED",
    "RATE_LIMITED",
    "TWO_FACTOR_DISABLED",
    "EMAIL_COOLDOWN_CACHE_FAILURE",
    ...DB,
  ],
  completeRequiredPasswordChange: [
    "PASSWORD_CHANGE_TOKEN_INVALID",
    "PASSWORD_POLICY_VIOLATION",
    "ACCOUNT_LOCKED",
    "VALIDATION_FAILED",
    "EMAIL_COOLDOWN_CACHE_FAILURE",
    ...DB,
  ],
  "sessions.create": ["VALIDATION_FAILED", "USER_NOT_FOUND", ...DB],
  "sessions.list": ["AUTHENTICATION_REQUIRED", ...DB],
  "sessions.revoke": ["AUTHENTICATION_REQUIRED", "IMPERSONATION_NOT_ALLOWED", "NOT_FOUND", ...DB],
  "sessions.revokeAll": ["AUTHENTICATION_REQUIRED", "IMPERSONATION_NOT_ALLOWED", ...DB],
  "sessions.listTrustedBrowsers": SIGNED_IN,
  "sessions.forgetTrustedBrowsers": [
    "AUTHENTICATION_REQUIRED",
    "IMPERSONATION_NOT_ALLOWED",
    "NOT_FOUND",
    ...DB,
  ],
  "sessions.revokeOthers": ["AUTHENTICATION_REQUIRED", "IMPERSONATION_NOT_ALLOWED", ...DB],
  "host.createUser": ["VALIDATION_FAILED", "PASSWORD_POLICY_VIOLATION", ...DB],
  "host.setPassword": ["USER_NOT_FOUND", ...NEW_PASSWORD, "VALIDATION_FAILED", ...DB],
  "host.markEmailVerified": ["USER_NOT_FOUND", ...DB],
  "host.deleteUser": ["USER_NOT_FOUND", "EMAIL_COOLDOWN_CACHE_FAILURE", "LAST_OWNER", ...DB],
  "host.listActivity": ["VALIDATION_FAILED", ...DB],
  "host.listUsers": ON_USER.listUsers,
  "host.getUser": ON_USER.getUser,
  "host.lockUser": ON_USER.lockUser,
  "host.unlockUser": ON_USER.unlockUser,
  "host.revokeSessions": ON_USER.revokeSessions,
  "host.requirePasswordChange": ON_USER.requirePasswordChange,
  "host.impersonate": ON_USER.impersonate,
  "admin.listUsers": [...ON_USER.listUsers, ...ADMIN_CHECK],
  "admin.getUser": [...ON_USER.getUser, ...ADMIN_CHECK],
  "admin.lockUser": [...ON_USER.lockUser, ...ADMIN_CHECK],
  "admin.unlockUser": [...ON_USER.unlockUser, ...ADMIN_CHECK],
  "admin.revokeSessions": [...ON_USER.revokeSessions, ...ADMIN_CHECK],
  "admin.requirePasswordChange": [...ON_USER.requirePasswordChange, ...ADMIN_CHECK],
  "admin.impersonate": [...ON_USER.impersonate, ...ADMIN_CHECK],
  "activity.list": ["AUTHENTICATION_REQUIRED", "VALIDATION_FAILED", ...DB],
  // `NOT_FOUND`: no such provider; `VALIDATION_FAILED`: `returnTo` is not a path on `appOrigin`.
  "identityProviders.authorize": [
    "NOT_FOUND",
    "VALIDATION_FAILED",
    "AUTHENTICATION_REQUIRED",
    "IMPERSONATION_NOT_ALLOWED",
    "IDENTITY_PROVIDER_MISMATCH",
    "IDENTITY_PROVIDER_FAILURE",
    "USER_NOT_FOUND",
    ...DB,
  ],
  "identityProviders.link": [
    "NOT_FOUND",
    "VALIDATION_FAILED",
    "IDENTITY_PROVIDER_ALREADY_LINKED",
    "IDENTITY_PROVIDER_FAILURE",
    ...SETTING,
  ],
  "identityProviders.callback": [
    "SSO_REQUIRED",
    "IDENTITY_PROVIDER_STATE_INVALID",
    "IDENTITY_PROVIDER_REJECTED",
    "IDENTITY_PROVIDER_EMAIL_NOT_VERIFIED",
    "IDENTITY_PROVIDER_ACCOUNT_EXISTS",
    "IDENTITY_PROVIDER_ALREADY_LINKED",
    "IDENTITY_PROVIDER_MISMATCH",
    "IDENTITY_PROVIDER_FAILURE",
    "AUTHENTICATION_REQUIRED",
    "USER_NOT_FOUND",
    "ACCOUNT_LOCKED",
    "INTERNAL_ERROR",
    ...DB,
  ],
  "identityProviders.unlink": ["NOT_FOUND", "IDENTITY_PROVIDER_LAST_METHOD", ...SETTING],
  "account.changePassword": [
    "AUTHENTICATION_REQUIRED",
    "IMPERSONATION_NOT_ALLOWED",
    "VALIDATION_FAILED",
    "PASSWORD_NOT_SET",
    ...PASSWORD_CHECK,
    ...NEW_PASSWORD,
    "USER_NOT_FOUND",
    ...DB,
  ],
  "account.requestEmailChange": ["VALIDATION_FAILED", ...SEND, ...SETTING],
  "account.confirmEmailChange": [
    "EMAIL_CHANGE_TOKEN_INVALID",
    "EMAIL_ADDRESS_TAKEN",
    "RATE_LIMITED",
    "EMAIL_COOLDOWN_CACHE_FAILURE",
    ...DB,
  ],
  "account.delete": ["EMAIL_COOLDOWN_CACHE_FAILURE", "LAST_OWNER", ...SETTING],
  "account.export": [...SETTING],
  // Each passkey method: `NOT_FOUND` when `webauthn` is not configured.
  "passkeys.registrationOptions": ["NOT_FOUND", ...SETTING],
  "passkeys.register": [...PASSKEY_CHECK, "PASSKEY_ALREADY_REGISTERED", ...SETTING],
  "passkeys.signInOptions": ["NOT_FOUND", "RATE_LIMITED", "EMAIL_COOLDOWN_CACHE_FAILURE", ...DB],
  "passkeys.signIn": [
    "SSO_REQUIRED",
    ...PASSKEY_CHECK,
    "PASSKEY_UNKNOWN",
    "LOGIN_THROTTLED",
    "EMAIL_COOLDOWN_CACHE_FAILURE",
    ...DB,
  ],
  "passkeys.stepUpOptions": ["NOT_FOUND", ...SIGNED_IN],
  "passkeys.stepUp": [...PASSKEY_CHECK, "PASSKEY_UNKNOWN", ...SIGNED_IN],
  "passkeys.list": ["NOT_FOUND", "AUTHENTICATION_REQUIRED", ...DB],
  "passkeys.rename": ["NOT_FOUND", "VALIDATION_FAILED", ...SETTING],
  "passkeys.delete": ["NOT_FOUND", "LAST_SIGN_IN_METHOD", ...SETTING],
  // Organizations (docs/organizations.md): a non-member's answer is 404, like a missing organization.
  "organizations.create": [
    "AUTHENTICATION_REQUIRED",
    "VALIDATION_FAILED",
    "ORGANIZATION_SLUG_TAKEN",
    "ORGANIZATION_LIMIT_REACHED",
    ...DB,
  ],
  "organizations.list": ["AUTHENTICATION_REQUIRED", ...DB],
  "organizations.get": MEMBER,
  "organizations.update": [...PERMISSION, "VALIDATION_FAILED", "ORGANIZATION_SLUG_TAKEN"],
  "organizations.delete": [...PERMISSION, "IMPERSONATION_NOT_ALLOWED", "STEP_UP_REQUIRED", "USER_NOT_FOUND"],
  "organizations.activate": [...MEMBER, "USER_NOT_FOUND"],
  "organizations.listMembers": [...MEMBER, "VALIDATION_FAILED"],
  "organizations.changeMemberRole": [...PERMISSION, "VALIDATION_FAILED", "LAST_OWNER"],
  "organizations.removeMember": [...PERMISSION, "LAST_OWNER"],
  "organizations.invite": [...PERMISSION, "VALIDATION_FAILED", "ALREADY_MEMBER", "USER_NOT_FOUND", ...SEND],
  "organizations.listInvitations": PERMISSION,
  "organizations.revokeInvitation": [...PERMISSION, "NOT_FOUND"],
  "organizations.receivedInvitations": ["AUTHENTICATION_REQUIRED", "USER_NOT_FOUND", ...DB],
  "organizations.acceptInvitation": [
    "AUTHENTICATION_REQUIRED",
    "VALIDATION_FAILED",
    "INVITATION_INVALID",
    "INVITATION_EMAIL_MISMATCH",
    "EMAIL_NOT_VERIFIED",
    "ALREADY_MEMBER",
    "USER_NOT_FOUND",
    "ORGANIZATION_NOT_FOUND",
    ...DB,
  ],
  "organizations.declineInvitation": [
    "AUTHENTICATION_REQUIRED",
    "VALIDATION_FAILED",
    "INVITATION_INVALID",
    "INVITATION_EMAIL_MISMATCH",
    "USER_NOT_FOUND",
    ...DB,
  ],
  "organizations.listRoles": PERMISSION,
  "organizations.createRole": [...PERMISSION, "VALIDATION_FAILED"],
  "organizations.updateRole": [...PERMISSION, "VALIDATION_FAILED", "NOT_FOUND"],
  "organizations.deleteRole": [...PERMISSION, "NOT_FOUND", "ROLE_IN_USE"],
  "admin.listOrganizations": ["VALIDATION_FAILED", ...ADMIN_CHECK, ...DB],
  // The audit log (docs/audit-log.md): `NOT_FOUND` without `stores.auditLog`.
  "host.listAuditLog": AUDIT_READ,
  "host.exportAuditLog": AUDIT_READ,
  "host.verifyAuditLog": AUDIT_READ,
  "admin.listAuditLog": [...AUDIT_READ, ...ADMIN_CHECK],
  "admin.exportAuditLog": [...AUDIT_READ, ...ADMIN_CHECK],
  "admin.verifyAuditLog": [...AUDIT_READ, ...ADMIN_CHECK],
  // The check alone, for a plugin's admin routes (the OAuth provider's clients).
  "admin.authorize": ADMIN_CHECK,
  "organizations.listAuditLog": [...AUDIT_READ, ...PERMISSION],
  "organizations.exportAuditLog": [...AUDIT_READ, ...PERMISSION],
  // API keys (docs/api-keys.md): `NOT_FOUND` when `apiKeys` is not configured.
  "apiKeys.create": [
    "NOT_FOUND",
    "VALIDATION_FAILED",
    "API_KEY_LIMIT_REACHED",
    ...SETTING,
    "ORGANIZATION_NOT_FOUND",
    "PERMISSION_DENIED",
  ],
  "apiKeys.list": ["NOT_FOUND", ...MEMBER, "PERMISSION_DENIED"],
  "apiKeys.delete": ["NOT_FOUND", "AUTHENTICATION_REQUIRED", ...DB],
  // Webhooks (docs/webhooks.md): `NOT_FOUND` when `webhooks` is not configured.
  "webhooks.create": [...WEBHOOK_SECRET, "WEBHOOK_LIMIT_REACHED"],
  "webhooks.list": WEBHOOK,
  "webhooks.update": WEBHOOK,
  "webhooks.delete": WEBHOOK,
  "webhooks.rotateSecret": WEBHOOK_SECRET,
  "webhooks.listDeliveries": WEBHOOK,
  "webhooks.redeliver": WEBHOOK,
  // Enterprise sign-in (docs/sso.md): `NOT_FOUND` when `sso` is not configured.
  "sso.authorize": [
    "NOT_FOUND",
    "VALIDATION_FAILED",
    ...MEMBER,
    "PERMISSION_DENIED",
    "STEP_UP_REQUIRED",
    "ADMIN_REQUIRED",
    "IMPERSONATION_NOT_ALLOWED",
    "USER_NOT_FOUND",
    "INTERNAL_ERROR",
  ],
  "sso.countStart": ["NOT_FOUND", "RATE_LIMITED", "EMAIL_COOLDOWN_CACHE_FAILURE", ...DB],
  "sso.signIn": [
    "NOT_FOUND",
    "SSO_DOMAIN_NOT_VERIFIED",
    "IDENTITY_PROVIDER_ACCOUNT_EXISTS",
    "IDENTITY_PROVIDER_ALREADY_LINKED",
    "ACCOUNT_LOCKED",
    "ORGANIZATION_NOT_FOUND",
    "USER_NOT_FOUND",
    ...MAIL,
    ...DB,
  ],
  "sso.stepUp": [
    "NOT_FOUND",
    "IDENTITY_PROVIDER_MISMATCH",
    "AUTHENTICATION_REQUIRED",
    "ACCOUNT_LOCKED",
    "USER_NOT_FOUND",
    ...MAIL,
    ...DB,
  ],
  "sso.provisionAccount": ["NOT_FOUND", "SSO_DOMAIN_NOT_VERIFIED", "IDENTITY_PROVIDER_ACCOUNT_EXISTS", ...DB],
  "sso.setMemberRole": ["NOT_FOUND", "USER_NOT_FOUND", "ORGANIZATION_NOT_FOUND", ...DB],
  "sso.suspendMember": ["NOT_FOUND", ...DB],
} as const satisfies Record<string, readonly ErrorCode[]>);

/** An `Auth` method's path, as `USE_CASE_ERRORS` keys it. */
export type UseCaseName = keyof typeof USE_CASE_ERRORS;

/** The codes of the use cases `names` (a route that runs two joins both), each once. */
export function errorsOf(...names: UseCaseName[]): readonly ErrorCode[] {
  return [...new Set(names.flatMap((name): readonly ErrorCode[] => USE_CASE_ERRORS[name]))];
}
