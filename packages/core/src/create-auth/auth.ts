import type { Translator } from "../i18n/index.js";
import type { Call, Principal, User } from "../model.js";
import type { OAuthProviderInstance } from "../options/oauth-provider-options.js";
import type { ResolvedAuthOptions } from "../options/options.js";
import type { Clock } from "../ports/clock.js";
import type { Logger } from "../ports/logger.js";
import type { TwoFactorMethod } from "../ports/user-store.js";
import type { SignedIn } from "../sessions/finish-login.js";
import type { LoginResult } from "../use-cases/login.js";
import type { RefreshResult } from "../use-cases/refresh.js";
import type { StepUpResult } from "../use-cases/step-up.js";
import type { ApiKeyApi } from "./api-key-api.js";
import type {
  AccountApi,
  ActivityApi,
  AdminApi,
  HostApi,
  IdentityProviderApi,
  PasskeyApi,
  SessionApi,
} from "./auth-apis.js";
import type * as inputs from "./auth-inputs.js";
import type { OrganizationApi } from "./organization-api.js";
import type { SsoApi } from "./sso-api.js";
import type { WebhookApi } from "./webhook-api.js";

export type * from "./api-key-api.js";
export type * from "./auth-apis.js";
export type * from "./auth-inputs.js";
export type * from "./organization-api.js";
export type * from "./sso-api.js";
export type * from "./webhook-api.js";

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
   * @throws `USE_CASE_ERRORS.register`'s codes (use-case-errors.ts)
   */
  register(call: Call, input: inputs.RegisterInput): Promise<{ success: true; deviceToken: string }>;
  /**
   * Email and password: signed in, or a second factor is required. Reads `call.request`.
   * @throws `USE_CASE_ERRORS.login`'s codes (use-case-errors.ts)
   */
  login(call: Call, input: inputs.LoginInput): Promise<LoginResult>;
  /**
   * Rotates the refresh token `call.token` (a rotated one presented again revokes its session).
   * Reads `call.request`.
   * @throws `USE_CASE_ERRORS.refresh`'s codes (use-case-errors.ts)
   */
  refresh(call: Call, input?: inputs.RefreshInput): Promise<RefreshResult>;
  /**
   * Ends the session of the access token (or else of the refresh token), checked only enough to
   * name a session.
   * @throws `USE_CASE_ERRORS.logout`'s codes (use-case-errors.ts)
   */
  logout(
    call: Call,
    tokens: { accessToken?: string | undefined; refreshToken?: string | undefined },
  ): Promise<{ success: true }>;
  /**
   * The access token `call.token` → principal: one JWT verify and one allowlist lookup. While
   * `apiKeys` is configured, an API key (`pc_…`) in `call.token` → its principal (`Principal.apiKey`).
   * @throws `USE_CASE_ERRORS.authenticate`'s codes (use-case-errors.ts)
   */
  authenticate(call: Call): Promise<Principal>;
  /**
   * `call.principal`'s user.
   * @throws `USE_CASE_ERRORS.getCurrentUser`'s codes (use-case-errors.ts)
   */
  getCurrentUser(call: Call): Promise<User>;
  /**
   * Mails a reset link (or a No Principal Information email): the same answer for any address.
   * Reads `call.request`.
   * @throws `USE_CASE_ERRORS.requestPasswordReset`'s codes (use-case-errors.ts)
   */
  requestPasswordReset(call: Call, input: inputs.EmailInput): Promise<{ cooldown: number }>;
  /**
   * Seconds until another reset email to `email` can be sent (0 when none is cooling).
   * @throws `USE_CASE_ERRORS.getPasswordResetCooldown`'s codes (use-case-errors.ts)
   */
  getPasswordResetCooldown(call: Call, email: string | undefined): Promise<{ remaining: number }>;
  /**
   * Sets a new password with the reset token `call.token`; revokes every session; nobody is
   * signed in. Reads `call.request`.
   * @throws `USE_CASE_ERRORS.resetPassword`'s codes (use-case-errors.ts)
   */
  resetPassword(call: Call, input: inputs.ResetPasswordInput): Promise<{ success: true }>;
  /**
   * Mails `call.principal`'s user a verification link. Reads `call.request`.
   * @throws `USE_CASE_ERRORS.resendVerification`'s codes (use-case-errors.ts)
   */
  resendVerification(call: Call): Promise<{ cooldown: number }>;
  /**
   * Seconds until another verification email to `call.principal`'s user can be sent.
   * @throws `USE_CASE_ERRORS.getVerificationCooldown`'s codes (use-case-errors.ts)
   */
  getVerificationCooldown(call: Call): Promise<{ remaining: number }>;
  /**
   * Verifies the address the link token `call.token` was sent to. Reads `call.request`.
   * @throws `USE_CASE_ERRORS.verifyEmail`'s codes (use-case-errors.ts)
   */
  verifyEmail(call: Call): Promise<User>;
  /**
   * Finishes a login with a code and the login's 2FA token `call.token`. Reads `call.request`.
   * @throws `USE_CASE_ERRORS.completeTwoFactorLogin`'s codes (use-case-errors.ts)
   */
  completeTwoFactorLogin(call: Call, input: inputs.CodeInput): Promise<SignedIn>;
  /**
   * Finishes a login with a recovery code and the login's 2FA token `call.token`. Reads `call.request`.
   * @throws `USE_CASE_ERRORS.recoverWithRecoveryCode`'s codes (use-case-errors.ts)
   */
  recoverWithRecoveryCode(call: Call, input: inputs.CodeInput): Promise<SignedIn>;
  /**
   * Confirms `call.principal`'s password before a settings change (the address's login budget
   * applies). Reads `call.request`.
   * @throws `USE_CASE_ERRORS.stepUp`'s codes (use-case-errors.ts)
   */
  stepUp(call: Call, input: inputs.StepUpInput): Promise<StepUpResult>;
  /**
   * The second factor of a step-up: `call.token` is the 2FA token `stepUp` gave in
   * `call.principal`'s session. Reads `call.request`.
   * @throws `USE_CASE_ERRORS.completeTwoFactorStepUp`'s codes (use-case-errors.ts)
   */
  completeTwoFactorStepUp(
    call: Call,
    input: inputs.CodeInput,
  ): Promise<{ twoFactorRequired: false; stepUpToken: string }>;
  /**
   * Starts TOTP setup for `call.principal` (needs `call.stepUpToken`).
   * @throws `USE_CASE_ERRORS.getTotpSetup`'s codes (use-case-errors.ts)
   */
  getTotpSetup(call: Call): Promise<inputs.TotpSetup>;
  /**
   * Turns TOTP on (needs `call.stepUpToken`). Reads `call.request`.
   * @throws `USE_CASE_ERRORS.confirmTotpSetup`'s codes (use-case-errors.ts)
   */
  confirmTotpSetup(call: Call, input: inputs.ConfirmTotpInput): Promise<User>;
  /**
   * Turns a method off (needs `call.stepUpToken`). Reads `call.request`.
   * @throws `USE_CASE_ERRORS.disableTwoFactorMethod`'s codes (use-case-errors.ts)
   */
  disableTwoFactorMethod(call: Call, method: TwoFactorMethod): Promise<User>;
  /**
   * Mails a 2FA code: for the signed-in user (`call.principal`), or, without a principal, with a
   * login's 2FA token (`call.token`) to resend its code. Reads `call.request`.
   * @throws `USE_CASE_ERRORS.sendTwoFactorEmailCode`'s codes (use-case-errors.ts)
   */
  sendTwoFactorEmailCode(call: Call): Promise<{ cooldown: number }>;
  /**
   * Seconds until another 2FA code can be mailed: to the user of a login's 2FA token
   * (`call.token`, judged on its own) or else the signed-in user's.
   * @throws `USE_CASE_ERRORS.getTwoFactorEmailCooldown`'s codes (use-case-errors.ts)
   */
  getTwoFactorEmailCooldown(call: Call): Promise<{ remaining: number }>;
  /**
   * Turns email 2FA on with a mailed code (needs `call.stepUpToken`). Reads `call.request`.
   * @throws `USE_CASE_ERRORS.enableEmailTwoFactor`'s codes (use-case-errors.ts)
   */
  enableEmailTwoFactor(call: Call, input: inputs.CodeInput): Promise<User>;
  /**
   * Chooses the method login offers first (needs `call.stepUpToken`).
   * @throws `USE_CASE_ERRORS.setPreferredTwoFactorMethod`'s codes (use-case-errors.ts)
   */
  setPreferredTwoFactorMethod(call: Call, input: inputs.PreferredMethodInput): Promise<User>;
  /**
   * Sign-in by email (`emailSignIn.enabled`), first step: mails a known address a code and a link
   * (an unknown one a No Principal Information email); the same answer for any address. Reads
   * `call.request`.
   * @throws `USE_CASE_ERRORS.requestEmailSignIn`'s codes (use-case-errors.ts); `NOT_FOUND`: turned off
   */
  requestEmailSignIn(call: Call, input: inputs.EmailInput): Promise<{ cooldown: number }>;
  /**
   * Sign-in by email, second step: `{ token }` (the emailed link's) or `{ email, code }`; signs in,
   * or answers the 2FA step (without the email method). Reads `call.request`.
   * @throws `USE_CASE_ERRORS.signInWithEmail`'s codes (use-case-errors.ts); `NOT_FOUND`: turned off
   */
  signInWithEmail(call: Call, input: inputs.EmailSignInInput): Promise<LoginResult>;
  /**
   * The second half of a password sign-in that answered `PASSWORD_CHANGE_REQUIRED`: the login's
   * `passwordChangeToken` and a new password; then signed in, or the second factor is required.
   * Reads `call.request`.
   * @throws `USE_CASE_ERRORS.completeRequiredPasswordChange`'s codes (use-case-errors.ts)
   */
  completeRequiredPasswordChange(call: Call, input: inputs.RequiredPasswordChangeInput): Promise<LoginResult>;
  /** Host-started sessions and the user's sessions: the only way to them. */
  readonly sessions: SessionApi;
  /**
   * Trusted operations for scripts and the host's own server code: no caller check, so never a
   * request's principal (see `HostApi`).
   */
  readonly host: HostApi;
  /** The back office: every method checks the caller's principal and refuses without one. */
  readonly admin: AdminApi;
  /** The signed-in user's security events. */
  readonly activity: ActivityApi;
  /** Sign-in with identity providers, linking and unlinking them. */
  readonly identityProviders: IdentityProviderApi;
  /** The signed-in user's own account: password and address changes, deletion, export. */
  readonly account: AccountApi;
  /** Passkeys: registration, sign-in, step-up, listing, renaming and removal. */
  readonly passkeys: PasskeyApi;
  /** Organizations, members, roles, invitations, and the permission checks of the host's routes. */
  readonly organizations: OrganizationApi;
  /** API keys of users and organizations (docs/api-keys.md). */
  readonly apiKeys: ApiKeyApi;
  /** Webhook endpoints of organizations and of the deployment, and this instance's delivery worker (docs/webhooks.md). */
  readonly webhooks: WebhookApi;
  /**
   * The OAuth 2.1 / OpenID provider (docs/oauth-provider.md) while the `oauthProvider` option is
   * set: `verifyAccessToken` for the host's resource servers; undefined otherwise.
   */
  readonly oauthProvider: OAuthProviderInstance | undefined;
  /** Enterprise sign-in per organization (docs/sso.md), while the `sso` option is set. */
  readonly sso: SsoApi;
}
