import type { EmailService } from "./emails/email-service.js";
import type { SecurityEvents } from "./events.js";
import type { Translator } from "./i18n/index.js";
import type { Limits } from "./limits/limits.js";
import type { ResolvedAuthOptions } from "./options.js";
import type { Clock } from "./ports/clock.js";
import type { CooldownStore } from "./ports/cooldown-store.js";
import type { Logger } from "./ports/logger.js";
import type { Mailer } from "./ports/mailer.js";
import type { PasswordHasher } from "./ports/password-hasher.js";
import type { SessionStore } from "./ports/session-store.js";
import type { TwoFactorMethod, UserRecord, UserStore } from "./ports/user-store.js";
import type { AccessTokenCodec } from "./tokens/access-token.js";
import type { KeyedHash } from "./tokens/keys.js";
import type { SecretBox } from "./two-factor/secret-box.js";
import type { StepUpTokens } from "./two-factor/step-up-token.js";

/** Everything a use case may touch: validated options and the ports. Built once by `createAuth`. */
export interface AuthContext {
  options: ResolvedAuthOptions;
  users: UserStore;
  cooldowns: CooldownStore;
  sessions: SessionStore;
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
  /** The keyed hash recovery codes are stored under. */
  recoveryCodes: KeyedHash;
  /** A hash of a random password with the current parameters, for the dummy verify of unknown users. */
  dummyHash(): Promise<string>;
}

/** What the caller knows about the request a use case runs for; all optional. */
export interface RequestContext {
  ip?: string | undefined;
  userAgent?: string | undefined;
  /** A resolved locale (see `Translator.resolveLocale`); the default locale when absent. */
  locale?: string | undefined;
}

/** The authenticated caller of a request. */
export interface Principal {
  userId: string;
  sessionId: string;
}

/** A user as clients see it: never a password hash, TOTP secret or token. */
export interface User {
  id: string;
  email: string;
  emailVerified: boolean;
  name: string | null;
  hasPassword: boolean;
  identityProviders: string[];
  twoFactorMethods: TwoFactorMethod[];
  preferredTwoFactorMethod: TwoFactorMethod | null;
  /** ISO 8601. */
  createdAt: string;
}

export function toUser(record: UserRecord): User {
  return {
    id: record.id,
    email: record.email,
    emailVerified: record.emailVerified,
    name: record.name,
    hasPassword: record.passwordHash !== null,
    identityProviders: [...record.identityProviders],
    twoFactorMethods: [...record.twoFactor.methods],
    preferredTwoFactorMethod: record.twoFactor.preferredMethod,
    createdAt: new Date(record.createdAt).toISOString(),
  };
}

/** A session as its user sees it in the sessions list. */
export interface SessionInfo {
  id: string;
  browser: string | null;
  os: string | null;
  ip: string | null;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  lastActiveAt: string;
  /** True for the session of the access token that asked. */
  current: boolean;
}
