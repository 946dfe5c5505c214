// The groups of the `Auth` object (`auth.sessions`, `auth.host`, `auth.admin`, …), each its own
// interface. Re-exported from auth.ts.
import type { AccountExport } from "../account/export.js";
import type { ActivityPage } from "../activity/list.js";
import type { AuditExport, AuditExportFormat } from "../audit/export.js";
import type { AuditFilters } from "../audit/query.js";
import type { AuditPage } from "../audit/read.js";
import type { AuditVerification } from "../audit/verify.js";
import type { TrustedBrowserInfo } from "../devices/trusted-browsers.js";
import type { AuthorizationStart } from "../identity/flow.js";
import type { AdminUser, AdminUserDetail, Call, HostCall, Principal, SessionInfo, User } from "../model.js";
import type { PasskeyView } from "../passkeys/ceremony.js";
import type { SignedIn } from "../sessions/finish-login.js";
import type { IdentityProviderCallbackResult } from "../use-cases/finish-identity-provider-sign-in.js";
import type { Impersonation } from "../use-cases/impersonate-user.js";
import type { OrganizationPageView } from "../use-cases/list-all-organizations.js";
import type { UserPage } from "../use-cases/list-users.js";
import type { PasskeySignInStart } from "../use-cases/start-passkey-sign-in.js";
import type {
  ChangePasswordInput,
  CreateSessionInput,
  CreateUserInput,
  EmailChangeInput,
} from "./auth-inputs.js";

/**
 * Sessions started by the host for a user who proved who they are some other way, and the
 * user's sessions. `create` gives the same tokens a login gives (an adapter's cookie helper sets
 * them), and the principal of the new session.
 */
export interface SessionApi {
  /**
   * Reads `call.request`.
   * @throws `USE_CASE_ERRORS.sessions.create`'s codes (use-case-errors.ts)
   */
  create(call: Call, input: CreateSessionInput): Promise<SignedIn & { principal: Principal }>;
  /**
   * The user's sessions, most recently active first; `current` marks `call.principal`'s.
   * @throws `USE_CASE_ERRORS.sessions.list`'s codes (use-case-errors.ts); `AUTHENTICATION_REQUIRED`: no issued principal
   */
  list(call: Call): Promise<SessionInfo[]>;
  /**
   * Ends one of `call.principal`'s user's sessions.
   * @throws `USE_CASE_ERRORS.sessions.revoke`'s codes (use-case-errors.ts); `NOT_FOUND`: another user's session
   */
  revoke(call: Call, sessionId: string): Promise<{ success: true }>;
  /**
   * Every session of `call.principal`'s user, the caller's included. Reads `call.request` (the
   * activity entry's IP and browser).
   * @throws `USE_CASE_ERRORS.sessions.revokeAll`'s codes (use-case-errors.ts)
   */
  revokeAll(call: Call): Promise<{ success: true; revoked: number }>;
  /**
   * Every session of `call.principal`'s user except `call.principal`'s own ("sign out everywhere
   * else"): their refresh and access tokens are refused at once; the caller stays signed in. Two
   * sessions asking at once may end each other (at most one of the two survives). Reads
   * `call.request` (the activity entry's IP and browser).
   * @throws `USE_CASE_ERRORS.sessions.revokeOthers`'s codes (use-case-errors.ts)
   */
  revokeOthers(call: Call): Promise<{ success: true; revoked: number }>;
  /**
   * The browsers `call.principal`'s user trusted to skip the second factor, most recently used
   * first; `current` marks the one of `call.request.deviceToken`.
   * @throws `USE_CASE_ERRORS.sessions.listTrustedBrowsers`'s codes (use-case-errors.ts)
   */
  listTrustedBrowsers(call: Call): Promise<TrustedBrowserInfo[]>;
  /**
   * Ends the trust in one browser (`id` from the list) or, without `id`, in all of them.
   * @throws `USE_CASE_ERRORS.sessions.forgetTrustedBrowsers`'s codes (use-case-errors.ts)
   */
  forgetTrustedBrowsers(call: Call, id?: string): Promise<{ success: true; forgotten: number }>;
}

/**
 * Sign-in with identity providers (the "Identity providers" section of packages/core/README.md). The HTTP layer binds `state` to the browser
 * with an HttpOnly cookie and hands it back to `callback`; a host calling these itself must too.
 */
export interface IdentityProviderApi {
  /** The configured providers, in option order: `name` for routes, `displayName` for buttons. */
  list(): { name: string; displayName: string }[];
  /**
   * The authorization URL (state, nonce, PKCE S256) of a sign-in, or with `stepUp: true` (and the
   * signed-in user's `call.principal`) of a fresh login that gives a step-up token.
   * @throws `USE_CASE_ERRORS.identityProviders.authorize`'s codes (use-case-errors.ts); `NOT_FOUND`: no such provider; `VALIDATION_FAILED`: `returnTo` not a path on appOrigin; `AUTHENTICATION_REQUIRED`: a step-up without a principal
   */
  authorize(
    call: Call,
    input: { provider: string; returnTo?: string | undefined; stepUp?: boolean | undefined },
  ): Promise<AuthorizationStart>;
  /**
   * The authorization URL that links the provider to `call.principal`'s account (needs
   * `call.stepUpToken`).
   * @throws `USE_CASE_ERRORS.identityProviders.link`'s codes (use-case-errors.ts)
   */
  link(call: Call, input: { provider: string; returnTo?: string | undefined }): Promise<AuthorizationStart>;
  /**
   * The provider's redirect back: `query` is the callback's query string, `state` the value of
   * the browser's state cookie. Reads `call.request`.
   * @throws `USE_CASE_ERRORS.identityProviders.callback`'s codes (use-case-errors.ts)
   */
  callback(
    call: Call,
    input: { provider: string; query: string; state: string | undefined },
  ): Promise<IdentityProviderCallbackResult>;
  /**
   * Removes the provider from `call.principal`'s account (needs `call.stepUpToken`).
   * @throws `USE_CASE_ERRORS.identityProviders.unlink`'s codes (use-case-errors.ts)
   */
  unlink(call: Call, provider: string): Promise<User>;
}

/**
 * Passkeys (WebAuthn; the "Passkeys" section of docs/concepts.md). Each method but `enabled`
 * rejects with `NOT_FOUND` when `webauthn` is not configured. The HTTP layer binds a sign-in's
 * challenge to the browser with an HttpOnly cookie (`browserBinding`, handed back to `signIn` as
 * `call.token`); a host calling these itself must too.
 */
export interface PasskeyApi {
  /** True when `webauthn` is configured. */
  readonly enabled: boolean;
  /**
   * The options of `navigator.credentials.create()` for a new passkey (needs `call.stepUpToken`).
   * @throws `USE_CASE_ERRORS.passkeys.registrationOptions`'s codes (use-case-errors.ts)
   */
  registrationOptions(call: Call): Promise<Record<string, unknown>>;
  /**
   * Stores the passkey of a `create()` response `{ response, name? }` (needs `call.stepUpToken`).
   * @throws `USE_CASE_ERRORS.passkeys.register`'s codes (use-case-errors.ts)
   */
  register(call: Call, input: unknown): Promise<{ id: string; name: string; createdAt: string }>;
  /**
   * The options of `navigator.credentials.get()` for a sign-in (`{ email? }`), and the browser binding.
   * @throws `USE_CASE_ERRORS.passkeys.signInOptions`'s codes (use-case-errors.ts)
   */
  signInOptions(call: Call, input?: unknown): Promise<PasskeySignInStart>;
  /**
   * Signs in with a `get()` response `{ response, session?, rememberMe? }`; `call.token` is the
   * browser binding of `signInOptions`.
   * @throws `USE_CASE_ERRORS.passkeys.signIn`'s codes (use-case-errors.ts)
   */
  signIn(call: Call, input: unknown): Promise<SignedIn>;
  /**
   * The options of `navigator.credentials.get()` for a step-up of `call.principal`.
   * @throws `USE_CASE_ERRORS.passkeys.stepUpOptions`'s codes (use-case-errors.ts)
   */
  stepUpOptions(call: Call): Promise<Record<string, unknown>>;
  /**
   * A step-up token for a `get()` response `{ response }` of the signed-in user.
   * @throws `USE_CASE_ERRORS.passkeys.stepUp`'s codes (use-case-errors.ts)
   */
  stepUp(call: Call, input: unknown): Promise<{ twoFactorRequired: false; stepUpToken: string }>;
  /**
   * The signed-in user's passkeys, oldest first.
   * @throws `USE_CASE_ERRORS.passkeys.list`'s codes (use-case-errors.ts)
   */
  list(call: Call): Promise<{ passkeys: PasskeyView[] }>;
  /**
   * Renames a passkey (needs `call.stepUpToken`).
   * @throws `USE_CASE_ERRORS.passkeys.rename`'s codes (use-case-errors.ts)
   */
  rename(call: Call, input: { id: string; body: unknown }): Promise<PasskeyView>;
  /**
   * Removes a passkey (needs `call.stepUpToken`).
   * @throws `USE_CASE_ERRORS.passkeys.delete`'s codes (use-case-errors.ts)
   */
  delete(call: Call, id: string): Promise<{ success: true }>;
}

/**
 * Trusted host operations, for scripts and the host's own server code: none checks a caller, the
 * host's code decided who may run it. Never forward a request's principal here (the types refuse
 * one, and so does the run time, with a `TypeError`): a request's caller goes to the back office,
 * `auth.admin`, which checks it. `call.actor` names who acts in the events of those that name one
 * (default `"host"`); `call.request` is the request the host acts for, if any. Each emits its
 * security event.
 *
 * @example
 * ```ts
 * // A seed script: an account that signs in at once, then a support lock named in the events.
 * const user = await auth.host.createUser({}, {
 *   email: "ada@example.com",
 *   password: "a long passphrase of hers",
 *   emailVerified: true,
 * });
 * await auth.host.lockUser({ actor: "script:chargebacks" }, { userId: user.id, reason: "chargeback" });
 * ```
 */
export interface HostApi {
  /**
   * A verified or unverified user, with a password (policy checked), with a `passwordHash`
   * imported from another system (stored as given: a kind the default hasher verifies, within its
   * bounds, else `VALIDATION_FAILED` on `passwordHash`; docs/importing-users.md) or without either
   * (an identity provider account). Sends no email.
   * @throws `USE_CASE_ERRORS.host.createUser`'s codes (use-case-errors.ts); `VALIDATION_FAILED`: also a taken address
   */
  createUser(call: HostCall, input: CreateUserInput): Promise<User>;
  /**
   * Sets the password; every session and open reset link ends; the address's lock is lifted.
   * @throws `USE_CASE_ERRORS.host.setPassword`'s codes (use-case-errors.ts)
   */
  setPassword(call: HostCall, input: { userId: string; password: string }): Promise<User>;
  /**
   * Marks the user's address verified.
   * @throws `USE_CASE_ERRORS.host.markEmailVerified`'s codes (use-case-errors.ts)
   */
  markEmailVerified(call: HostCall, userId: string): Promise<User>;
  /**
   * Deletes the user with their sessions, single-use tokens, cooldowns and throttle counters.
   * @throws `USE_CASE_ERRORS.host.deleteUser`'s codes (use-case-errors.ts)
   */
  deleteUser(call: HostCall, userId: string): Promise<{ success: true }>;
  /**
   * A page of any user's activity, newest first (`limit` 1 to 100, default 20; `cursor` from the
   * previous page's `nextCursor`). An unknown user has an empty page.
   * @throws `USE_CASE_ERRORS.host.listActivity`'s codes (use-case-errors.ts); `VALIDATION_FAILED`: also a cursor this server did not make
   */
  listActivity(
    call: HostCall,
    input: { userId: string; cursor?: string | undefined; limit?: number | undefined },
  ): Promise<ActivityPage>;
  /**
   * Users by address prefix, as `admin.listUsers` lists them, without a caller check.
   * @throws `USE_CASE_ERRORS.host.listUsers`'s codes (use-case-errors.ts); `INTERNAL_ERROR`: a users store without `listUsers`
   */
  listUsers(
    call: HostCall,
    input?: { query?: string | undefined; cursor?: string | undefined; limit?: number | string | undefined },
  ): Promise<UserPage>;
  /**
   * The user with account state, sessions, identities, second factors and passkeys.
   * @throws `USE_CASE_ERRORS.host.getUser`'s codes (use-case-errors.ts)
   */
  getUser(call: HostCall, userId: string): Promise<AdminUserDetail>;
  /**
   * Locks the account (it signs in by no method: `ACCOUNT_LOCKED`) and ends its sessions at once;
   * `lockedBy` is `call.actor` (else `"host"`).
   * @throws `USE_CASE_ERRORS.host.lockUser`'s codes (use-case-errors.ts)
   */
  lockUser(call: HostCall, input: { userId: string; reason?: string | undefined }): Promise<AdminUser>;
  /**
   * Lifts the lock.
   * @throws `USE_CASE_ERRORS.host.unlockUser`'s codes (use-case-errors.ts)
   */
  unlockUser(call: HostCall, userId: string): Promise<AdminUser>;
  /**
   * Ends every session of the user; their access tokens are refused at once.
   * @throws `USE_CASE_ERRORS.host.revokeSessions`'s codes (use-case-errors.ts)
   */
  revokeSessions(call: HostCall, userId: string): Promise<{ success: true; revoked: number }>;
  /**
   * The next password sign-in must set a new password before it gets tokens
   * (`PASSWORD_CHANGE_REQUIRED`); every session ends unless `endSessions: false`.
   * @throws `USE_CASE_ERRORS.host.requirePasswordChange`'s codes (use-case-errors.ts)
   */
  requirePasswordChange(
    call: HostCall,
    input: { userId: string; endSessions?: boolean | undefined },
  ): Promise<AdminUser>;
  /**
   * A session as the user for at most one hour that cannot step up; its `/me` says
   * `impersonatedBy: call.actor` (else `"host"`); recorded in the user's activity.
   * @throws `USE_CASE_ERRORS.host.impersonate`'s codes (use-case-errors.ts)
   */
  impersonate(call: HostCall, userId: string): Promise<Impersonation>;
  /**
   * A page of the deployment's audit log, newest first, filtered by `organizationId`, `type`,
   * `actor` (an `actorId`), `from` and `to` (ISO 8601 or epoch ms; `to` excluded); `limit` 1 to
   * 200 (default 50), `cursor` the previous page's `nextCursor` (docs/audit-log.md).
   * @throws `USE_CASE_ERRORS.host.listAuditLog`'s codes (use-case-errors.ts); `NOT_FOUND`: no `stores.auditLog`
   */
  listAuditLog(call: HostCall, input?: AuditListInput): Promise<AuditPage>;
  /**
   * The audit log as NDJSON or CSV (`format`), oldest first, with `listAuditLog`'s filters: its
   * `chunks` read the store a page at a time as they are consumed.
   * @throws `USE_CASE_ERRORS.host.exportAuditLog`'s codes (use-case-errors.ts)
   */
  exportAuditLog(call: HostCall, input: AuditExportInput): Promise<AuditExport>;
  /**
   * Walks the deployment's chain (or `organizationId`'s) oldest to newest and names the first
   * broken entry: `{ ok: true, checked }` or `{ ok: false, checked, broken: { id, seq, reason } }`.
   * @throws `USE_CASE_ERRORS.host.verifyAuditLog`'s codes (use-case-errors.ts)
   */
  verifyAuditLog(call: HostCall, input?: { organizationId?: string | undefined }): Promise<AuditVerification>;
}

/**
 * The back office (docs/back-office.md), for a request's caller: what the admin routes call.
 * Every method checks `call.principal` before anything else and fails closed: without one,
 * `AUTHENTICATION_REQUIRED` (whatever `call.actor` says); an impersonation,
 * `IMPERSONATION_NOT_ALLOWED`; a caller `admin.authorize` does not allow (or no `authorize` at
 * all), `ADMIN_REQUIRED`; then a live step-up token of the caller's session (`call.stepUpToken`,
 * else `STEP_UP_REQUIRED`). The events name the admin's user id. The host's own code, with no
 * caller to check, uses `auth.host`.
 */
export interface AdminApi {
  /**
   * Users by address prefix (`query`), in address order, a page at a time (`limit` 1 to 100,
   * default 20; `cursor` from the previous page's `nextCursor`: stable while users are added).
   * @throws `USE_CASE_ERRORS.admin.listUsers`'s codes (use-case-errors.ts); `INTERNAL_ERROR`: a users store without `listUsers`
   */
  listUsers(
    call: Call,
    input?: { query?: string | undefined; cursor?: string | undefined; limit?: number | string | undefined },
  ): Promise<UserPage>;
  /**
   * The user with account state, sessions, identities, second factors and passkeys.
   * @throws `USE_CASE_ERRORS.admin.getUser`'s codes (use-case-errors.ts)
   */
  getUser(call: Call, userId: string): Promise<AdminUserDetail>;
  /**
   * Locks the account (it signs in by no method: `ACCOUNT_LOCKED`) and ends its sessions at once.
   * @throws `USE_CASE_ERRORS.admin.lockUser`'s codes (use-case-errors.ts)
   */
  lockUser(call: Call, input: { userId: string; reason?: string | undefined }): Promise<AdminUser>;
  /**
   * Lifts the lock.
   * @throws `USE_CASE_ERRORS.admin.unlockUser`'s codes (use-case-errors.ts)
   */
  unlockUser(call: Call, userId: string): Promise<AdminUser>;
  /**
   * Ends every session of the user; their access tokens are refused at once.
   * @throws `USE_CASE_ERRORS.admin.revokeSessions`'s codes (use-case-errors.ts)
   */
  revokeSessions(call: Call, userId: string): Promise<{ success: true; revoked: number }>;
  /**
   * The next password sign-in must set a new password before it gets tokens
   * (`PASSWORD_CHANGE_REQUIRED`); every session ends unless `endSessions: false`.
   * @throws `USE_CASE_ERRORS.admin.requirePasswordChange`'s codes (use-case-errors.ts)
   */
  requirePasswordChange(
    call: Call,
    input: { userId: string; endSessions?: boolean | undefined },
  ): Promise<AdminUser>;
  /**
   * A session as the user for at most one hour that cannot step up; `impersonatedBy` (the
   * admin's user id) in its `/me`; recorded in the user's activity. Reads `call.request`.
   * @throws `USE_CASE_ERRORS.admin.impersonate`'s codes (use-case-errors.ts)
   */
  impersonate(call: Call, userId: string): Promise<Impersonation>;
  /**
   * Every organization whose slug or name starts with `query`, by id, a page at a time (`limit`
   * 1 to 100, default 20; `cursor` from the previous page's `nextCursor`).
   * @throws `USE_CASE_ERRORS.admin.listOrganizations`'s codes (use-case-errors.ts); `NOT_FOUND`: organizations off
   */
  listOrganizations(
    call: Call,
    input?: { query?: string | undefined; cursor?: string | undefined; limit?: number | string | undefined },
  ): Promise<OrganizationPageView>;
  /**
   * A page of the deployment's audit log, as `auth.host.listAuditLog` gives it.
   * @throws `USE_CASE_ERRORS.admin.listAuditLog`'s codes (use-case-errors.ts)
   */
  listAuditLog(call: Call, input?: AuditListInput): Promise<AuditPage>;
  /**
   * The audit log as NDJSON or CSV, as `auth.host.exportAuditLog` gives it.
   * @throws `USE_CASE_ERRORS.admin.exportAuditLog`'s codes (use-case-errors.ts)
   */
  exportAuditLog(call: Call, input: AuditExportInput): Promise<AuditExport>;
  /**
   * Verifies the deployment's chain or `organizationId`'s, as `auth.host.verifyAuditLog` does.
   * @throws `USE_CASE_ERRORS.admin.verifyAuditLog`'s codes (use-case-errors.ts)
   */
  verifyAuditLog(call: Call, input?: { organizationId?: string | undefined }): Promise<AuditVerification>;
  /**
   * The check every method above makes, alone: resolves with the admin's user id when the caller
   * may use the back office, for an admin route of a plugin (the OAuth provider's clients) or of
   * the host. Changes nothing, emits no event.
   * @throws `USE_CASE_ERRORS.admin.authorize`'s codes (use-case-errors.ts)
   */
  authorize(call: Call): Promise<{ adminId: string }>;
}

/** The input of an audit-log page: the filters, `cursor` and `limit` (also as text). */
export type AuditListInput = AuditFilters & {
  cursor?: string | undefined;
  limit?: number | string | undefined;
};

/** The input of an audit-log export: the filters and the format. */
export type AuditExportInput = AuditFilters & { format: AuditExportFormat };

/** The signed-in user's activity: their security events. */
export interface ActivityApi {
  /**
   * A page of `call.principal`'s activity, newest first: `{ cursor?, limit? }` (`limit` 1 to 100,
   * default 20, also as text; `cursor` from the previous page's `nextCursor`).
   * @throws `USE_CASE_ERRORS.activity.list`'s codes (use-case-errors.ts); `VALIDATION_FAILED`: also a cursor this server did not make
   */
  list(
    call: Call,
    input?: { cursor?: string | undefined; limit?: number | string | undefined },
  ): Promise<ActivityPage>;
}

/**
 * The signed-in user's own account (docs/concepts.md, "Account self-service"): password, address, deletion, export. Each
 * reads `call.principal`; those marked so need `call.stepUpToken` too.
 */
export interface AccountApi {
  /**
   * Changes the password: `currentPassword` is counted on the address's login budget before it is
   * checked; every other session ends (the caller's stays); the "password changed" email goes out.
   * Reads `call.request`.
   * @throws `USE_CASE_ERRORS.account.changePassword`'s codes (use-case-errors.ts)
   */
  changePassword(call: Call, input: ChangePasswordInput): Promise<{ success: true }>;
  /**
   * Mails a confirmation link to `newEmail` (needs `call.stepUpToken`), or the registration-attempt
   * email when the address is taken: the same `{ cooldown }` either way. Reads `call.request`.
   * @throws `USE_CASE_ERRORS.account.requestEmailChange`'s codes (use-case-errors.ts)
   */
  requestEmailChange(call: Call, input: EmailChangeInput): Promise<{ cooldown: number }>;
  /**
   * Moves the account to the new address, verified, with the link token `call.token` (no
   * principal needed). Reads `call.request`.
   * @throws `USE_CASE_ERRORS.account.confirmEmailChange`'s codes (use-case-errors.ts)
   */
  confirmEmailChange(call: Call): Promise<User>;
  /**
   * Deletes the account and everything stored about it (needs `call.stepUpToken`); the old
   * address gets an email. Reads `call.request`.
   * @throws `USE_CASE_ERRORS.account.delete`'s codes (use-case-errors.ts)
   */
  delete(call: Call): Promise<{ success: true }>;
  /**
   * What is stored about the user, without hashes, secrets or tokens (needs `call.stepUpToken`).
   * @throws `USE_CASE_ERRORS.account.export`'s codes (use-case-errors.ts)
   */
  export(call: Call): Promise<AccountExport>;
}
