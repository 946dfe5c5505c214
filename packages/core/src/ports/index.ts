export type { AccessTokenAllowlist, AllowedAccessToken, AllowlistEntry } from "./access-token-allowlist.js";
export type {
  ActivityListOptions,
  ActivityPosition,
  ActivityRecord,
  ActivityStore,
} from "./activity-store.js";
export type { ApiKeyOwner, ApiKeyRecord, ApiKeyStore, ApiKeyUse } from "./api-key-store.js";
export type {
  AuditActorType,
  AuditDraft,
  AuditEntry,
  AuditLinks,
  AuditLogStore,
  AuditQuery,
} from "./audit-log-store.js";
export type { Clock } from "./clock.js";
export type { CooldownAcquireResult, CooldownStore } from "./cooldown-store.js";
export type { IdentityRecord, IdentityStore, UnlinkOptions } from "./identity-store.js";
export type { AllowedAccessTokenWithMembership, CooldownKeys, JointStores } from "./joint-stores.js";
export type { Logger } from "./logger.js";
export type { EmailKind, EmailMessage, Mailer } from "./mailer.js";
export type {
  OAuthClientPatch,
  OAuthClientRecord,
  OAuthConsentRecord,
  OAuthDevicePoll,
  OAuthDeviceRecord,
  OAuthGrantRecord,
  OAuthRefreshRotation,
  OAuthStore,
} from "./oauth-store.js";
export type {
  InvitationAcceptance,
  InvitationRecord,
  MembershipRead,
  MembershipRecord,
  OrganizationPage,
  OrganizationRecord,
  OrganizationStore,
  RoleRecord,
} from "./organization-store.js";
export type { PasskeyRecord, PasskeyStore, PasskeyUse } from "./passkey-store.js";
export type { PasswordHasher } from "./password-hasher.js";
export type {
  ScimGroupPatch,
  ScimGroupRecord,
  ScimPageQuery,
  ScimStore,
  ScimUserPatch,
  ScimUserRecord,
} from "./scim-store.js";
export type {
  RotationResult,
  SessionLimits,
  SessionRecord,
  SessionRotation,
  SessionStore,
} from "./session-store.js";
export type { SigningKeyRecord, SigningKeyStore } from "./signing-key-store.js";
export type { SingleUseTokenStore, TokenRecord } from "./single-use-token-store.js";
export type {
  OidcConnectionSettings,
  SamlConnectionSettings,
  SsoConnectionPatch,
  SsoConnectionRecord,
  SsoDomainRecord,
  SsoRoute,
  SsoStore,
} from "./sso-store.js";
export type { ChangeStores, StoresTogether } from "./stores-together.js";
export type {
  EmailChangeResult,
  TwoFactorMethod,
  TwoFactorSettings,
  UserListQuery,
  UserPatch,
  UserRecord,
  UserStore,
} from "./user-store.js";
export type * from "./webhook-store.js";
