export type { AccountExport } from "./account/export.js";
export type { ActivityItem, ActivityPage } from "./activity/list.js";
export type { ApiKeyView } from "./api-keys/views.js";
export { auditDraftOf, auditEntryOf } from "./audit/records.js";
export type * from "./create-auth/auth.js";
export {
  type AuthorizationStart,
  createAuth,
  type IdentityProviderCallbackResult,
  type Impersonation,
  type LoginResult,
  type PasskeySignInStart,
  type PasskeyView,
  type RefreshResult,
  type SignedIn,
  type StepUpResult,
  type TwoFactorChallenge,
  type UserPage,
} from "./create-auth/create-auth.js";
export type { TrustedBrowserInfo } from "./devices/trusted-browsers.js";
export { createOutboxMailer, type OutboxEntry, type OutboxMailer } from "./emails/outbox-mailer.js";
export {
  createEmailRenderer,
  type EmailRenderer,
  type EmailValues,
  escapeHtml,
  type RenderedEmail,
} from "./emails/renderer.js";
export { createSmtpMailer, type SmtpMailerOptions, type SmtpTransportOptions } from "./emails/smtp-mailer.js";
export { type Brand, defaultTemplate } from "./emails/templates.js";
export type {
  CooldownCode,
  ErrorClassByCode,
  ErrorCode,
  PortcullisError,
  ValidationCode,
  ValidationIssue,
} from "./errors.js";
export {
  AuthError,
  CooldownError,
  ERROR_CODES,
  isAuthError,
  PasswordChangeRequiredError,
  ValidationError,
} from "./errors.js";
export { SECURITY_EVENT_TYPES, type SecurityEvent, type SecurityEventType } from "./events.js";
export { type Argon2Options, createArgon2Hasher } from "./hashing/argon2-hasher.js";
export {
  type HashProblem,
  MAX_ARGON2_MEMORY_KIB,
  MAX_ARGON2_PARALLELISM,
  MAX_ARGON2_TIME_COST,
  passwordHashProblem,
} from "./hashing/imported-hashes.js";
export { fromFetchRequest, toFetchResponse } from "./http/fetch.js";
export {
  createGuardHook,
  type GuardTarget,
  guardOAuthRequest,
  guardRequest,
  type OAuthGuardTarget,
} from "./http/guard.js";
export { type HttpHandler, httpHandlerFor, type OrganizationAccess } from "./http/handler.js";
export {
  answerMalformedPaths,
  fromNodeRequest,
  hasMalformedPath,
  type NodeRequestLike,
  type NodeResponseLike,
  nodeRequestBody,
  writeNodeResponse,
} from "./http/node.js";
export { authenticateOAuth, type OAuthTokenCheck } from "./http/oauth-guard.js";
export { isEncryptedSocket, type ResponseWriter, writeResponse } from "./http/response-writer.js";
export type {
  Credentials,
  RequestInput,
  Route,
  RouteAuth,
  RouteInput,
  RouteOf,
  RouteSpec,
} from "./http/route.js";
export type { SsoRouteKit } from "./http/sso-routes.js";
export { STATUS_BY_CODE, statusForCode } from "./http/status.js";
export type { HttpRequest, HttpResponse, RequestBody, SessionCookieTokens } from "./http/types.js";
export { createTranslator, type LocaleResources, type Translator } from "./i18n/index.js";
export {
  createGuardedFetch,
  GuardedFetchError,
  type GuardedFetchOptions,
  type GuardedRequestInit,
} from "./identity/guarded-fetch.js";
export {
  createRelyingParty,
  type PendingAuthorization,
  type ProviderIdentity,
  type RelyingParty,
} from "./identity/relying-party.js";
export { ipBucket } from "./limits/client-ip.js";
export type {
  AdminSessionInfo,
  AdminUser,
  AdminUserDetail,
  Call,
  HostCall,
  Principal,
  PrincipalApiKey,
  RequestContext,
  SessionInfo,
  User,
  UserAccount,
} from "./model.js";
export type { ApiKeysOptions } from "./options/api-key-options.js";
export type * from "./options/auth-options.js";
export {
  CAPTCHA_PROVIDERS,
  type CaptchaOptions,
  type CaptchaProviderName,
  type CaptchaRoutesOptions,
  type CaptchaVerifier,
  SITEVERIFY_URLS,
} from "./options/captcha-options.js";
export { EMAIL_KINDS } from "./options/email-kinds.js";
export {
  DEFAULT_OIDC_SCOPES,
  type IdentityProviderOptions,
  type ResolvedIdentityProvider,
} from "./options/identity-provider-options.js";
export type * from "./options/oauth-provider-options.js";
export type { ResolvedAuthOptions } from "./options/options.js";
export { MANAGEMENT_PERMISSIONS } from "./options/organization-options.js";
export type { SsoPlugin } from "./options/sso-options.js";
export type { PermissionGrant } from "./organizations/membership.js";
export type {
  InvitationView,
  OrganizationMembershipView,
  OrganizationView,
  RoleView,
} from "./organizations/views.js";
export { systemClock } from "./ports/clock.js";
export type * from "./ports/index.js";
export { consoleLogger, silentLogger } from "./ports/logger.js";
export { oauthTombstone } from "./ports/oauth-store.js";
export { applyRotation, isPastLimits, REMEMBERED_REFRESH_TOKEN_HASHES } from "./ports/session-store.js";
export type { SessionTokens } from "./sessions/start-session.js";
export { createCountBatch } from "./support/count-batch.js";
export { isValidEmail, normalizeEmail } from "./support/email-address.js";
export { createReadBatch } from "./support/read-batch.js";
export { withTimeout } from "./support/with-timeout.js";
export { TOKEN_CLAIM_LEASE_MS } from "./tokens/purposes.js";
export { createSealer, type Sealer } from "./tokens/sealer.js";
export {
  createTwoFactorImporter,
  type ImportedTwoFactor,
  importedTotpSecretProblem,
  type TwoFactorImporter,
} from "./two-factor/imported.js";
export type { Activation } from "./use-cases/activate-organization.js";
export type { OrganizationPageView } from "./use-cases/list-all-organizations.js";
export type { MemberView } from "./use-cases/list-members.js";
export type { ReceivedInvitation } from "./use-cases/list-my-invitations.js";
export {
  type NewWebhookDelivery,
  pendingWebhookDelivery,
  webhookAttemptOf,
  webhookDeliveryOf,
  webhookEndpointOf,
} from "./webhooks/records.js";
