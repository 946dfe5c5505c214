import type { z } from "zod";
import type { AccountExport } from "./account/export.js";
import type { ActivityPage } from "./activity/list.js";
import type { Translator } from "./i18n/index.js";
import type { AuthorizationStart } from "./identity/flow.js";
import type { AdminUser, AdminUserDetail, Call, Principal, SessionInfo, User } from "./model.js";
import type { ResolvedAuthOptions } from "./options.js";
import type { PasskeyView } from "./passkeys/ceremony.js";
import type { Clock } from "./ports/clock.js";
import type { Logger } from "./ports/logger.js";
import type { TwoFactorMethod } from "./ports/user-store.js";
import type { SignedIn } from "./sessions/finish-login.js";
import type { IdentityProviderCallbackResult } from "./use-cases/finish-identity-provider-sign-in.js";
import type { Impersonation } from "./use-cases/impersonate-user.js";
import type { UserPage } from "./use-cases/list-users.js";
import type { LoginResult } from "./use-cases/login.js";
import type { RefreshResult } from "./use-cases/refresh.js";
import type { PasskeySignInStart } from "./use-cases/start-passkey-sign-in.js";
import type { StepUpResult } from "./use-cases/step-up.js";
import type * as schemas from "./validation.js";

// What the host API takes, as a caller writes it (the schemas in validation.ts check it).

/** What `register` takes. */
export type RegisterInput = z.input<typeof schemas.registerInput>;
/** What `login` takes. */
export type LoginInput = z.input<typeof schemas.loginInput>;
/** What `refresh` takes besides the token. */
export type RefreshInput = z.input<typeof schemas.refreshInput>;
/** What `requestPasswordReset` takes. */
export type EmailInput = z.input<typeof schemas.emailInput>;
/** What `resetPassword` takes besides the token. */
export type ResetPasswordInput = z.input<typeof schemas.resetPasswordInput>;
/** What the second-factor use cases take (`rememberMe` only counts where a sign-in ends). */
export type CodeInput = z.input<typeof schemas.signInCodeInput>;
/** What `stepUp` takes. */
export type StepUpInput = z.input<typeof schemas.stepUpInput>;
/** What `confirmTotpSetup` takes. */
export type ConfirmTotpInput = z.input<typeof schemas.confirmTotpInput>;
/** What `setPreferredTwoFactorMethod` takes. */
export type PreferredMethodInput = z.input<typeof schemas.preferredMethodInput>;
/** What `sessions.create` takes. */
export type CreateSessionInput = z.input<typeof schemas.createSessionInput>;
/** What `signInWithEmail` takes: the emailed link's `token`, or `email` and the emailed `code`. */
export type EmailSignInInput = z.input<typeof schemas.emailSignInInput>;
/** What `account.changePassword` takes. */
export type ChangePasswordInput = z.input<typeof schemas.changePasswordInput>;
/** What `account.requestEmailChange` takes. */
export type EmailChangeInput = z.input<typeof schemas.emailChangeInput>;
/** What `admin.createUser` takes. */
export type CreateUserInput = z.input<typeof schemas.createUserInput>;
/** What `completeRequiredPasswordChange` takes. */
export type RequiredPasswordChangeInput = z.input<typeof schemas.requiredPasswordChangeInput>;

/** What a TOTP setup shows the user once: nothing is stored until `confirmTotpSetup`. */
export interface TotpSetup {
  /** Base32, 160 bits. */
  secret: string;
  otpauthUri: string;
  /** Ten one-time codes, `XXXXX-XXXXX`. */
  recoveryCodes: string[];
  setupToken: string;
}

/**
 * Sessions started by the host for a user who proved who they are some other way, and the
 * user's sessions. `create` gives the same tokens a login gives (an adapter's cookie helper sets
 * them), and the principal of the new session.
 */
export interface SessionApi {
  /**
   * Reads `call.request`.
   * @throws `VALIDATION_FAILED`, `USER_NOT_FOUND`, `DATABASE_FAILURE`
   */
  create(call: Call, input: CreateSessionInput): Promise<SignedIn & { principal: Principal }>;
  /**
   * The user's sessions, most recently active first; `current` marks `call.principal`'s.
   * @throws `AUTHENTICATION_REQUIRED` (no issued principal), `DATABASE_FAILURE`
   */
  list(call: Call): Promise<SessionInfo[]>;
  /**
   * Ends one of `call.principal`'s user's sessions.
   * @throws `AUTHENTICATION_REQUIRED`, `NOT_FOUND` (another user's session), `DATABASE_FAILURE`
   */
  revoke(call: Call, sessionId: string): Promise<{ success: true }>;
  /**
   * Every session of `call.principal`'s user, the caller's included. Reads `call.request` (the
   * activity entry's IP and browser).
   * @throws `AUTHENTICATION_REQUIRED`, `DATABASE_FAILURE`
   */
  revokeAll(call: Call): Promise<{ success: true; revoked: number }>;
  /**
   * Every session of `call.principal`'s user except `call.principal`'s own ("sign out everywhere
   * else"): their refresh and access tokens are refused at once; the caller stays signed in. Two
   * sessions asking at once may end each other (at most one of the two survives). Reads
   * `call.request` (the activity entry's IP and browser).
   * @throws `AUTHENTICATION_REQUIRED`, `DATABASE_FAILURE`
   */
  revokeOthers(call: Call): Promise<{ success: true; revoked: number }>;
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
   * @throws `NOT_FOUND` (no such provider), `VALIDATION_FAILED` (`returnTo` not a path on appOrigin), `AUTHENTICATION_REQUIRED` (a step-up without a principal), `IDENTITY_PROVIDER_MISMATCH`, `IDENTITY_PROVIDER_FAILURE`
   */
  authorize(
    call: Call,
    input: { provider: string; returnTo?: string | undefined; stepUp?: boolean | undefined },
  ): Promise<AuthorizationStart>;
  /**
   * The authorization URL that links the provider to `call.principal`'s account (needs
   * `call.stepUpToken`).
   * @throws `AUTHENTICATION_REQUIRED`, `STEP_UP_REQUIRED`, `NOT_FOUND`, `VALIDATION_FAILED`, `IDENTITY_PROVIDER_ALREADY_LINKED`
   */
  link(call: Call, input: { provider: string; returnTo?: string | undefined }): Promise<AuthorizationStart>;
  /**
   * The provider's redirect back: `query` is the callback's query string, `state` the value of
   * the browser's state cookie. Reads `call.request`.
   * @throws `IDENTITY_PROVIDER_STATE_INVALID`, `IDENTITY_PROVIDER_REJECTED`, `IDENTITY_PROVIDER_EMAIL_NOT_VERIFIED`, `IDENTITY_PROVIDER_ACCOUNT_EXISTS`, `IDENTITY_PROVIDER_ALREADY_LINKED`, `IDENTITY_PROVIDER_MISMATCH`, `IDENTITY_PROVIDER_FAILURE`
   */
  callback(
    call: Call,
    input: { provider: string; query: string; state: string | undefined },
  ): Promise<IdentityProviderCallbackResult>;
  /**
   * Removes the provider from `call.principal`'s account (needs `call.stepUpToken`).
   * @throws `AUTHENTICATION_REQUIRED`, `STEP_UP_REQUIRED`, `NOT_FOUND`, `IDENTITY_PROVIDER_LAST_METHOD`
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
   * @throws `AUTHENTICATION_REQUIRED`, `STEP_UP_REQUIRED`, `NOT_FOUND`
   */
  registrationOptions(call: Call): Promise<Record<string, unknown>>;
  /**
   * Stores the passkey of a `create()` response `{ response, name? }` (needs `call.stepUpToken`).
   * @throws `PASSKEY_CHALLENGE_INVALID`, `PASSKEY_CHALLENGE_EXPIRED`, `PASSKEY_VERIFICATION_FAILED`, `PASSKEY_ALREADY_REGISTERED`, `STEP_UP_REQUIRED`
   */
  register(call: Call, input: unknown): Promise<{ id: string; name: string; createdAt: string }>;
  /** The options of `navigator.credentials.get()` for a sign-in (`{ email? }`), and the browser binding. */
  signInOptions(call: Call, input?: unknown): Promise<PasskeySignInStart>;
  /**
   * Signs in with a `get()` response `{ response, session?, rememberMe? }`; `call.token` is the
   * browser binding of `signInOptions`.
   * @throws `PASSKEY_CHALLENGE_INVALID`, `PASSKEY_CHALLENGE_EXPIRED`, `PASSKEY_UNKNOWN`, `PASSKEY_VERIFICATION_FAILED`
   */
  signIn(call: Call, input: unknown): Promise<SignedIn>;
  /** The options of `navigator.credentials.get()` for a step-up of `call.principal`. */
  stepUpOptions(call: Call): Promise<Record<string, unknown>>;
  /**
   * A step-up token for a `get()` response `{ response }` of the signed-in user.
   * @throws `PASSKEY_CHALLENGE_INVALID`, `PASSKEY_CHALLENGE_EXPIRED`, `PASSKEY_UNKNOWN`, `PASSKEY_VERIFICATION_FAILED`
   */
  stepUp(call: Call, input: unknown): Promise<{ twoFactorRequired: false; stepUpToken: string }>;
  /** The signed-in user's passkeys, oldest first. */
  list(call: Call): Promise<{ passkeys: PasskeyView[] }>;
  /**
   * Renames a passkey (needs `call.stepUpToken`).
   * @throws `STEP_UP_REQUIRED`, `VALIDATION_FAILED`, `NOT_FOUND`
   */
  rename(call: Call, input: { id: string; body: unknown }): Promise<PasskeyView>;
  /**
   * Removes a passkey (needs `call.stepUpToken`).
   * @throws `STEP_UP_REQUIRED`, `NOT_FOUND`, `LAST_SIGN_IN_METHOD`
   */
  delete(call: Call, id: string): Promise<{ success: true }>;
}

/**
 * Operations for scripts and back offices; each emits its security event. They need no
 * principal: the host decides who may call them.
 */
export interface AdminApi {
  /**
   * A verified or unverified user, with a password (policy checked) or without (an identity
   * provider account). Sends no email.
   * @throws `VALIDATION_FAILED` (also a taken address), `PASSWORD_POLICY_VIOLATION`, `DATABASE_FAILURE`
   */
  createUser(call: Call, input: CreateUserInput): Promise<User>;
  /**
   * Sets the password; every session and open reset link ends; the address's lock is lifted.
   * @throws `USER_NOT_FOUND`, `PASSWORD_POLICY_VIOLATION`, `PASSWORD_BREACHED`, `BREACHED_PASSWORD_CHECK_FAILURE`, `VALIDATION_FAILED`, `DATABASE_FAILURE`
   */
  setPassword(call: Call, input: { userId: string; password: string }): Promise<User>;
  /** @throws `USER_NOT_FOUND`, `DATABASE_FAILURE` */
  markEmailVerified(call: Call, userId: string): Promise<User>;
  /**
   * Deletes the user with their sessions, single-use tokens, cooldowns and throttle counters.
   * @throws `USER_NOT_FOUND`, `DATABASE_FAILURE`, `EMAIL_COOLDOWN_CACHE_FAILURE`
   */
  deleteUser(call: Call, userId: string): Promise<{ success: true }>;
  /**
   * A page of any user's activity, newest first (`limit` 1 to 100, default 20; `cursor` from the
   * previous page's `nextCursor`). An unknown user has an empty page.
   * @throws `VALIDATION_FAILED` (also a cursor this server did not make), `DATABASE_FAILURE`
   */
  listActivity(
    call: Call,
    input: { userId: string; cursor?: string | undefined; limit?: number | undefined },
  ): Promise<ActivityPage>;
  // The back office (docs/back-office.md). Without `call.principal` the host decides who may call
  // them, and their events name `call.actor` (else "host"); with one (the admin routes), the caller
  // must be an admin (`admin.authorize`, `ADMIN_REQUIRED`) with a live step-up token
  // (`STEP_UP_REQUIRED`), and the events name the admin's user id.
  /**
   * Users by address prefix (`query`), in address order, a page at a time (`limit` 1 to 100,
   * default 20; `cursor` from the previous page's `nextCursor`: stable while users are added).
   * @throws `ADMIN_REQUIRED`, `STEP_UP_REQUIRED`, `VALIDATION_FAILED`, `DATABASE_FAILURE`, `INTERNAL_ERROR` (a users store without `listUsers`)
   */
  listUsers(
    call: Call,
    input?: { query?: string | undefined; cursor?: string | undefined; limit?: number | string | undefined },
  ): Promise<UserPage>;
  /**
   * The user with account state, sessions, identities, second factors and passkeys.
   * @throws `ADMIN_REQUIRED`, `STEP_UP_REQUIRED`, `USER_NOT_FOUND`, `DATABASE_FAILURE`
   */
  getUser(call: Call, userId: string): Promise<AdminUserDetail>;
  /**
   * Locks the account (it signs in by no method: `ACCOUNT_LOCKED`) and ends its sessions at once.
   * @throws `ADMIN_REQUIRED`, `STEP_UP_REQUIRED`, `USER_NOT_FOUND`, `VALIDATION_FAILED`, `DATABASE_FAILURE`
   */
  lockUser(call: Call, input: { userId: string; reason?: string | undefined }): Promise<AdminUser>;
  /** Lifts the lock. @throws `ADMIN_REQUIRED`, `STEP_UP_REQUIRED`, `USER_NOT_FOUND`, `DATABASE_FAILURE` */
  unlockUser(call: Call, userId: string): Promise<AdminUser>;
  /**
   * Ends every session of the user; their access tokens are refused at once.
   * @throws `ADMIN_REQUIRED`, `STEP_UP_REQUIRED`, `USER_NOT_FOUND`, `DATABASE_FAILURE`
   */
  revokeSessions(call: Call, userId: string): Promise<{ success: true; revoked: number }>;
  /**
   * The next password sign-in must set a new password before it gets tokens
   * (`PASSWORD_CHANGE_REQUIRED`); every session ends unless `endSessions: false`.
   * @throws `ADMIN_REQUIRED`, `STEP_UP_REQUIRED`, `USER_NOT_FOUND`, `DATABASE_FAILURE`
   */
  requirePasswordChange(
    call: Call,
    input: { userId: string; endSessions?: boolean | undefined },
  ): Promise<AdminUser>;
  /**
   * A session as the user for at most one hour that cannot step up; `impersonatedBy` in its `/me`;
   * recorded in the user's activity. Reads `call.request`.
   * @throws `ADMIN_REQUIRED`, `STEP_UP_REQUIRED`, `USER_NOT_FOUND`, `ACCOUNT_LOCKED`, `DATABASE_FAILURE`
   */
  impersonate(call: Call, userId: string): Promise<Impersonation>;
}

/** The signed-in user's activity: their security events. */
export interface ActivityApi {
  /**
   * A page of `call.principal`'s activity, newest first: `{ cursor?, limit? }` (`limit` 1 to 100,
   * default 20, also as text; `cursor` from the previous page's `nextCursor`).
   * @throws `AUTHENTICATION_REQUIRED`, `VALIDATION_FAILED` (also a cursor this server did not make), `DATABASE_FAILURE`
   */
  list(
    call: Call,
    input?: { cursor?: string | undefined; limit?: number | string | undefined },
  ): Promise<ActivityPage>;
}

/**
 * The signed-in user's own account (CONTRACT §11): password, address, deletion, export. Each
 * reads `call.principal`; those marked so need `call.stepUpToken` too.
 */
export interface AccountApi {
  /**
   * Changes the password: `currentPassword` is counted on the address's login budget before it is
   * checked; every other session ends (the caller's stays); the "password changed" email goes out.
   * Reads `call.request`.
   * @throws `AUTHENTICATION_REQUIRED`, `VALIDATION_FAILED`, `PASSWORD_POLICY_VIOLATION`, `PASSWORD_NOT_SET`, `INVALID_CREDENTIALS`, `LOGIN_THROTTLED`, `USER_NOT_FOUND`, `DATABASE_FAILURE`, `EMAIL_COOLDOWN_CACHE_FAILURE`
   */
  changePassword(call: Call, input: ChangePasswordInput): Promise<{ success: true }>;
  /**
   * Mails a confirmation link to `newEmail` (needs `call.stepUpToken`), or the registration-attempt
   * email when the address is taken: the same `{ cooldown }` either way. Reads `call.request`.
   * @throws `AUTHENTICATION_REQUIRED`, `STEP_UP_REQUIRED`, `EMAIL_DISABLED`, `VALIDATION_FAILED`, `EMAIL_COOLDOWN_ACTIVE`, `USER_NOT_FOUND`, `EMAIL_SEND_FAILURE`, `DATABASE_FAILURE`
   */
  requestEmailChange(call: Call, input: EmailChangeInput): Promise<{ cooldown: number }>;
  /**
   * Moves the account to the new address, verified, with the link token `call.token` (no
   * principal needed). Reads `call.request`.
   * @throws `EMAIL_CHANGE_TOKEN_INVALID`, `EMAIL_ADDRESS_TAKEN`, `RATE_LIMITED`, `DATABASE_FAILURE`
   */
  confirmEmailChange(call: Call): Promise<User>;
  /**
   * Deletes the account and everything stored about it (needs `call.stepUpToken`); the old
   * address gets an email. Reads `call.request`.
   * @throws `AUTHENTICATION_REQUIRED`, `STEP_UP_REQUIRED`, `USER_NOT_FOUND`, `DATABASE_FAILURE`, `EMAIL_COOLDOWN_CACHE_FAILURE`
   */
  delete(call: Call): Promise<{ success: true }>;
  /**
   * What is stored about the user, without hashes, secrets or tokens (needs `call.stepUpToken`).
   * @throws `AUTHENTICATION_REQUIRED`, `STEP_UP_REQUIRED`, `USER_NOT_FOUND`, `DATABASE_FAILURE`
   */
  export(call: Call): Promise<AccountExport>;
}

/**
 * The use cases of one configured Portcullis instance; each is a plain async method taking a
 * `Call` (who calls and how: `principal`, `stepUpToken`, `token`, `request`) and, when it has
 * one, its input. Each method's TSDoc names what it reads of the call. Expected failures reject
 * with a `PortcullisError` (`isAuthError(e)` narrows by `e.code`); a store that fails rejects with
 * its 500 code (`DATABASE_FAILURE`, `EMAIL_COOLDOWN_CACHE_FAILURE`, …). Inputs are typed and
 * validated again at run time (`VALIDATION_FAILED` for anything else). A call's `principal` must
 * be one `authenticate` or `sessions.create` made (`AUTHENTICATION_REQUIRED` otherwise).
 */
export interface Auth {
  /** The options after validation, every default filled in. */
  readonly options: ResolvedAuthOptions;
  readonly translator: Translator;
  readonly clock: Clock;
  readonly logger: Logger;
  /**
   * Resolves once start-up work is done (email templates compiled, the dummy password hash made),
   * so the first requests wait for nothing. Never rejects: failures are logged.
   */
  ready(): Promise<void>;
  /** Resolves once background work (login alerts, notices) has settled. For tests and shutdown. */
  idle(): Promise<void>;
  /**
   * Creates a password account; the same answer whether or not the address is taken. Reads
   * `call.request` (its `deviceToken` too); `deviceToken` is the browser's new device token.
   * @throws `VALIDATION_FAILED`, `PASSWORD_POLICY_VIOLATION`, `PASSWORD_BREACHED`, `BREACHED_PASSWORD_CHECK_FAILURE`, `RATE_LIMITED`, `DATABASE_FAILURE`
   */
  register(call: Call, input: RegisterInput): Promise<{ success: true; deviceToken: string }>;
  /**
   * Email and password: signed in, or a second factor is required. Reads `call.request`.
   * @throws `INVALID_CREDENTIALS`, `LOGIN_THROTTLED`, `VALIDATION_FAILED`, `DATABASE_FAILURE`, `EMAIL_COOLDOWN_CACHE_FAILURE`
   */
  login(call: Call, input: LoginInput): Promise<LoginResult>;
  /**
   * Rotates the refresh token `call.token` (a rotated one presented again revokes its session).
   * Reads `call.request`.
   * @throws `REFRESH_TOKEN_INVALID`, `VALIDATION_FAILED`, `DATABASE_FAILURE`
   */
  refresh(call: Call, input?: RefreshInput): Promise<RefreshResult>;
  /**
   * Ends the session of the access token (or else of the refresh token), checked only enough to
   * name a session. @throws `DATABASE_FAILURE`
   */
  logout(
    call: Call,
    tokens: { accessToken?: string | undefined; refreshToken?: string | undefined },
  ): Promise<{ success: true }>;
  /**
   * The access token `call.token` → principal: one JWT verify and one allowlist lookup.
   * @throws `AUTHENTICATION_REQUIRED`, `ACCESS_TOKEN_INVALID`, `ACCESS_TOKEN_EXPIRED`, `ACCESS_TOKEN_ALLOWLIST_READING_FAILURE`
   */
  authenticate(call: Call): Promise<Principal>;
  /** `call.principal`'s user. @throws `AUTHENTICATION_REQUIRED`, `USER_NOT_FOUND`, `DATABASE_FAILURE` */
  getCurrentUser(call: Call): Promise<User>;
  /**
   * Mails a reset link (or a No Principal Information email): the same answer for any address.
   * Reads `call.request`.
   * @throws `EMAIL_DISABLED`, `VALIDATION_FAILED`, `EMAIL_COOLDOWN_ACTIVE`, `RATE_LIMITED`, `EMAIL_SEND_FAILURE`
   */
  requestPasswordReset(call: Call, input: EmailInput): Promise<{ cooldown: number }>;
  /** @throws `VALIDATION_FAILED`, `EMAIL_COOLDOWN_CACHE_FAILURE` */
  getPasswordResetCooldown(call: Call, email: string | undefined): Promise<{ remaining: number }>;
  /**
   * Sets a new password with the reset token `call.token`; revokes every session; nobody is
   * signed in. Reads `call.request`.
   * @throws `PASSWORD_RESET_TOKEN_INVALID`, `PASSWORD_RESET_TOKEN_EXPIRED`, `PASSWORD_POLICY_VIOLATION`, `PASSWORD_BREACHED`, `BREACHED_PASSWORD_CHECK_FAILURE`, `RATE_LIMITED`
   */
  resetPassword(call: Call, input: ResetPasswordInput): Promise<{ success: true }>;
  /**
   * Mails `call.principal`'s user a verification link. Reads `call.request`.
   * @throws `AUTHENTICATION_REQUIRED`, `EMAIL_DISABLED`, `USER_NOT_FOUND`, `EMAIL_ALREADY_VERIFIED`, `EMAIL_COOLDOWN_ACTIVE`, `RATE_LIMITED`
   */
  resendVerification(call: Call): Promise<{ cooldown: number }>;
  /** @throws `AUTHENTICATION_REQUIRED`, `USER_NOT_FOUND` */
  getVerificationCooldown(call: Call): Promise<{ remaining: number }>;
  /**
   * Verifies the address the link token `call.token` was sent to. Reads `call.request`.
   * @throws `EMAIL_VERIFICATION_TOKEN_INVALID`, `EMAIL_VERIFICATION_TOKEN_EXPIRED`, `EMAIL_ALREADY_VERIFIED`, `RATE_LIMITED`
   */
  verifyEmail(call: Call): Promise<User>;
  /**
   * Finishes a login with a code and the login's 2FA token `call.token`. Reads `call.request`.
   * @throws `TWO_FACTOR_TOKEN_INVALID`, `TWO_FACTOR_CODE_MISSING`, `WRONG_TWO_FACTOR_CODE`, `TWO_FACTOR_THROTTLED`, `TWO_FACTOR_DISABLED`
   */
  completeTwoFactorLogin(call: Call, input: CodeInput): Promise<SignedIn>;
  /**
   * Finishes a login with a recovery code and the login's 2FA token `call.token`. Reads `call.request`.
   * @throws `TWO_FACTOR_TOKEN_INVALID`, `TWO_FACTOR_CODE_MISSING`, `WRONG_TWO_FACTOR_CODE`, `TWO_FACTOR_THROTTLED`
   */
  recoverWithRecoveryCode(call: Call, input: CodeInput): Promise<SignedIn>;
  /**
   * Confirms `call.principal`'s password before a settings change (the address's login budget
   * applies). Reads `call.request`.
   * @throws `AUTHENTICATION_REQUIRED`, `INVALID_CREDENTIALS`, `LOGIN_THROTTLED`, `USER_NOT_FOUND`
   */
  stepUp(call: Call, input: StepUpInput): Promise<StepUpResult>;
  /**
   * The second factor of a step-up: `call.token` is the 2FA token `stepUp` gave in
   * `call.principal`'s session. Reads `call.request`.
   * @throws `AUTHENTICATION_REQUIRED`, `TWO_FACTOR_TOKEN_INVALID`, `WRONG_TWO_FACTOR_CODE`, `TWO_FACTOR_THROTTLED`
   */
  completeTwoFactorStepUp(
    call: Call,
    input: CodeInput,
  ): Promise<{ twoFactorRequired: false; stepUpToken: string }>;
  /**
   * Starts TOTP setup for `call.principal` (needs `call.stepUpToken`).
   * @throws `AUTHENTICATION_REQUIRED`, `STEP_UP_REQUIRED`, `EMAIL_NOT_VERIFIED`
   */
  getTotpSetup(call: Call): Promise<TotpSetup>;
  /**
   * Turns TOTP on (needs `call.stepUpToken`). Reads `call.request`.
   * @throws `AUTHENTICATION_REQUIRED`, `STEP_UP_REQUIRED`, `EMAIL_NOT_VERIFIED`, `TWO_FACTOR_TOKEN_INVALID`, `WRONG_TWO_FACTOR_CODE`
   */
  confirmTotpSetup(call: Call, input: ConfirmTotpInput): Promise<User>;
  /**
   * Turns a method off (needs `call.stepUpToken`). Reads `call.request`.
   * @throws `AUTHENTICATION_REQUIRED`, `STEP_UP_REQUIRED`, `TWO_FACTOR_DISABLED`
   */
  disableTwoFactorMethod(call: Call, method: TwoFactorMethod): Promise<User>;
  /**
   * Mails a 2FA code: for the signed-in user (`call.principal`), or, without a principal, with a
   * login's 2FA token (`call.token`) to resend its code. Reads `call.request`.
   * @throws `EMAIL_DISABLED`, `AUTHENTICATION_REQUIRED`, `TWO_FACTOR_TOKEN_INVALID`, `EMAIL_NOT_VERIFIED`, `EMAIL_COOLDOWN_ACTIVE`
   */
  sendTwoFactorEmailCode(call: Call): Promise<{ cooldown: number }>;
  /**
   * Seconds until another 2FA code can be mailed: to the user of a login's 2FA token
   * (`call.token`, judged on its own) or else the signed-in user's.
   * @throws `AUTHENTICATION_REQUIRED`, `TWO_FACTOR_TOKEN_INVALID`, `USER_NOT_FOUND`
   */
  getTwoFactorEmailCooldown(call: Call): Promise<{ remaining: number }>;
  /**
   * Turns email 2FA on with a mailed code (needs `call.stepUpToken`). Reads `call.request`.
   * @throws `AUTHENTICATION_REQUIRED`, `STEP_UP_REQUIRED`, `EMAIL_NOT_VERIFIED`, `WRONG_TWO_FACTOR_CODE`
   */
  enableEmailTwoFactor(call: Call, input: CodeInput): Promise<User>;
  /**
   * Chooses the method login offers first (needs `call.stepUpToken`).
   * @throws `AUTHENTICATION_REQUIRED`, `STEP_UP_REQUIRED`, `TWO_FACTOR_DISABLED`
   */
  setPreferredTwoFactorMethod(call: Call, input: PreferredMethodInput): Promise<User>;
  /**
   * Sign-in by email (`emailSignIn.enabled`), first step: mails a known address a code and a link
   * (an unknown one a No Principal Information email); the same answer for any address. Reads
   * `call.request`.
   * @throws `NOT_FOUND` (turned off), `EMAIL_DISABLED`, `VALIDATION_FAILED`, `EMAIL_COOLDOWN_ACTIVE`, `RATE_LIMITED`, `EMAIL_SEND_FAILURE`
   */
  requestEmailSignIn(call: Call, input: EmailInput): Promise<{ cooldown: number }>;
  /**
   * Sign-in by email, second step: `{ token }` (the emailed link's) or `{ email, code }`; signs in,
   * or answers the 2FA step (without the email method). Reads `call.request`.
   * @throws `NOT_FOUND` (turned off), `VALIDATION_FAILED`, `EMAIL_SIGN_IN_INVALID`, `EMAIL_SIGN_IN_THROTTLED`, `RATE_LIMITED`, `TWO_FACTOR_DISABLED`
   */
  signInWithEmail(call: Call, input: EmailSignInInput): Promise<LoginResult>;
  /**
   * The second half of a password sign-in that answered `PASSWORD_CHANGE_REQUIRED`: the login's
   * `passwordChangeToken` and a new password; then signed in, or the second factor is required.
   * Reads `call.request`.
   * @throws `PASSWORD_CHANGE_TOKEN_INVALID`, `PASSWORD_POLICY_VIOLATION`, `ACCOUNT_LOCKED`, `VALIDATION_FAILED`, `DATABASE_FAILURE`
   */
  completeRequiredPasswordChange(call: Call, input: RequiredPasswordChangeInput): Promise<LoginResult>;
  /** Host-started sessions and the user's sessions: the only way to them. */
  readonly sessions: SessionApi;
  /** Operations for scripts and back offices. */
  readonly admin: AdminApi;
  /** The signed-in user's security events. */
  readonly activity: ActivityApi;
  /** Sign-in with identity providers, linking and unlinking them. */
  readonly identityProviders: IdentityProviderApi;
  /** The signed-in user's own account: password and address changes, deletion, export. */
  readonly account: AccountApi;
  /** Passkeys: registration, sign-in, step-up, listing, renaming and removal. */
  readonly passkeys: PasskeyApi;
}
