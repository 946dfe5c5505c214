import type { ActivityRecorder } from "./activity/activity.js";
import type { Leases } from "./api-keys/leases.js";
import type { AuditLog } from "./audit/recorder.js";
import type { Captcha } from "./captcha/captcha.js";
import type { DeviceTokens } from "./devices/device-token.js";
import type { EmailService } from "./emails/email-service.js";
import type { SecurityEvents } from "./events.js";
import type { Translator } from "./i18n/index.js";
import type { RelyingParties } from "./identity/flow.js";
import type { Limits } from "./limits/limits.js";
import type { ResolvedAuthOptions } from "./options/options.js";
import type { ResolvedWebAuthn } from "./options/webauthn-options.js";
import type { BreachedPasswords } from "./passwords/breached-passwords.js";
import type { AccessTokenAllowlist } from "./ports/access-token-allowlist.js";
import type { ApiKeyStore } from "./ports/api-key-store.js";
import type { Clock } from "./ports/clock.js";
import type { CooldownStore } from "./ports/cooldown-store.js";
import type { IdentityStore } from "./ports/identity-store.js";
import type { JointStores } from "./ports/joint-stores.js";
import type { Logger } from "./ports/logger.js";
import type { Mailer } from "./ports/mailer.js";
import type { OrganizationStore } from "./ports/organization-store.js";
import type { PasskeyStore } from "./ports/passkey-store.js";
import type { PasswordHasher } from "./ports/password-hasher.js";
import type { SessionStore } from "./ports/session-store.js";
import type { SingleUseTokenStore } from "./ports/single-use-token-store.js";
import type { SsoStore } from "./ports/sso-store.js";
import type { StoresTogether } from "./ports/stores-together.js";
import type { UserStore } from "./ports/user-store.js";
import type { BackgroundTasks } from "./support/background.js";
import type { AccessTokenCodec } from "./tokens/access-token.js";
import type { KeyedHash } from "./tokens/keys.js";
import type { SecretBox } from "./two-factor/secret-box.js";
import type { StepUpTokens } from "./two-factor/step-up-token.js";

/**
 * Everything a use case may touch: validated options, the ports and the mechanisms built on
 * them. Built once by `createAuth`; only use cases see it whole (the mechanisms below them take
 * the narrow part they need).
 */
export interface AuthContext {
  options: ResolvedAuthOptions;
  users: UserStore;
  cooldowns: CooldownStore;
  /** Sessions and their refresh-token rotation (started, rotated and ended through `sessions/session-lifecycle.ts`). */
  sessions: SessionStore;
  /** The access-token allowlist (`accessTokens` is the JWT codec). */
  allowlist: AccessTokenAllowlist;
  singleUseTokens: SingleUseTokenStore;
  /**
   * `stores.together`, as given: multi-step changes then write to users, sessions, allowlist and
   * single-use tokens in one transaction (`stores-together.ts`).
   */
  together: StoresTogether | undefined;
  /** `stores.joint`: an access token's entry read with its user, a new session written with its entry. */
  joint: JointStores | undefined;
  /** Links to identity providers; present whenever `identityProviders` are configured. */
  identities: IdentityStore | undefined;
  /** The configured identity providers by name (empty without `identityProviders`). */
  relyingParties: RelyingParties;
  mailer: Mailer | undefined;
  hasher: PasswordHasher;
  clock: Clock;
  logger: Logger;
  translator: Translator;
  accessTokens: AccessTokenCodec;
  emails: EmailService;
  secretBox: SecretBox;
  stepUpTokens: StepUpTokens;
  /** Throttles: password checks per address, 2FA codes per account, per-IP limits. */
  limits: Limits;
  events: SecurityEvents;
  /** Each user's activity: recorded from `events`, listed by `listActivity`. */
  activity: ActivityRecorder;
  /** The audit log: every event, recorded from `events` when `stores.auditLog` is set (docs/audit-log.md). */
  audit: AuditLog;
  /** Work requests start without waiting for it (side-effect emails); `Auth.idle()` awaits it. */
  background: BackgroundTasks;
  /** The keyed hash recovery codes are stored under. */
  recoveryCodes: KeyedHash;
  /** The keyed hash a refresh token's successor is derived with (`successorRefreshToken`). */
  refreshTokenSuccessors: KeyedHash;
  /** The signed device tokens of known browsers (docs/security.md). */
  devices: DeviceTokens;
  /** A new user id (the `generateId` option, or 128 random bits). */
  generateId(): string;
  /** A hash of a random password with the current parameters, for the dummy verify of unknown users. */
  dummyHash(): Promise<string>;
  /** The breached-password range client; undefined when `breachedPasswords` is not set. */
  breachedPasswords: BreachedPasswords | undefined;
  /** The CAPTCHA check; undefined when `captcha` is not set. */
  captcha: Captcha | undefined;
  /** Passkeys; present whenever `webauthn` is configured. */
  passkeys: PasskeyStore | undefined;
  /** The `webauthn` option with its defaults filled in; undefined when passkeys are off. */
  webauthn: ResolvedWebAuthn | undefined;
  /** The keyed hash that makes the stand-in credential ids of an email-first passkey sign-in. */
  passkeyDecoys: KeyedHash;
  /** Organizations, members, roles and invitations; present whenever `organizations` is configured. */
  organizations: OrganizationStore | undefined;
  /** API keys; present whenever `apiKeys` is configured. */
  apiKeys: ApiKeyStore | undefined;
  /** Enterprise sign-in's connections and domains (the `sso` option's store); undefined without it. */
  sso: SsoStore | undefined;
  /** The keyed hash API keys are stored under (docs/api-keys.md). */
  apiKeyHash: KeyedHash;
  /** The counts of keys' request windows this instance holds (docs/api-keys.md, "Counted in blocks"). */
  apiKeyLeases: Leases;
}
