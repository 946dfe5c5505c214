// The options a host passes to `createAuth`, as types with their documentation (what an editor
// shows on hover, and what docs/configuration.md is generated from). Their validation and
// defaults are the schema in options.ts.

import type { SecurityEvent } from "../events.js";
import type { LocaleResources } from "../i18n/index.js";
import type { Principal, User } from "../model.js";
import type { Clock } from "../ports/clock.js";
import type { Logger } from "../ports/logger.js";
import type { EmailKind, Mailer } from "../ports/mailer.js";
import type { PasswordHasher } from "../ports/password-hasher.js";
import type { ApiKeysOptions } from "./api-key-options.js";
import type { CaptchaOptions } from "./captcha-options.js";
import type { IdentityProviderOptions } from "./identity-provider-options.js";
import type { OAuthProviderPlugin } from "./oauth-provider-options.js";
import type { SsoPlugin } from "./sso-options.js";
import type { WebhooksOptions } from "./webhook-options.js";

// Published from here (the index exports every type of this file).
export type { WebhooksOptions } from "./webhook-options.js";

/** A secret option as `AuthOptions` types it: any `Uint8Array` (a Node `Buffer` too), which `z.instanceof` would narrow to `Uint8Array<ArrayBuffer>`. */
export type SecretInput = string | Uint8Array | (string | Uint8Array)[];

/** The breached-password check (`breachedPasswords`): where the range API is and how long to wait for it. */
export interface BreachedPasswordsOptions {
  /**
   * The range API's base URL: `GET <rangeUrl>/<first 5 hex of SHA-1>` with `Add-Padding: true`,
   * answered with `SUFFIX:COUNT` lines (the public Pwned Passwords API is
   * `https://api.pwnedpasswords.com/range`). Required.
   */
  rangeUrl: string;
  /** How long one range request may take (headers and body), in milliseconds (50 to 30000). Default 1500. */
  timeoutMs?: number;
  /**
   * When the range API is unreachable, slow, answers an error or more than 1 MiB: false (default) allows the
   * password and logs a warning; true refuses it with 503 `BREACHED_PASSWORD_CHECK_FAILURE`. A
   * login is never refused for it.
   */
  failClosed?: boolean;
  /** How many ranges (5-hex prefixes, about 30 KB each) are remembered, least recently used first out. Default 256; 0 remembers none. */
  cacheEntries?: number;
  /** How long a range is remembered, in seconds. Default 3600. */
  cacheTtlSeconds?: number;
}

import type { AuthStores } from "./auth-stores.js";

export type { AuthStores };

/** Organizations (docs/organizations.md): roles, invitations and the permission checks of the host's routes. */
export interface OrganizationsOptions {
  /** The permissions the host's routes check: `[a-z0-9:_-]{1,64}` each, at most 100, none a built-in management one. */
  permissions: string[];
  /** What the built-in `member` role may do: some of `permissions`. Default none. */
  memberPermissions?: string[];
  /** How many organizations one user may belong to, checked when one is created (1 to 10000). Default 100. */
  maxPerUser?: number;
}

/**
 * Password checks per normalized address (login and step-up share it; unknown addresses alike,
 * so it tells nothing): each is counted before it is checked. `freeAttempts` in `windowSeconds`,
 * then the address is locked for `baseLockSeconds`, and each lock lets one attempt through when it
 * ends, doubling up to `maxLockSeconds`. A right password clears it.
 */
export interface LoginThrottleOptions {
  /** Password checks of an address let through per window. Default 5. */
  freeAttempts?: number;
  /** The first lock after the free attempts, in seconds; each later one doubles. Default 30. */
  baseLockSeconds?: number;
  /** The longest lock, in seconds. Default 900. */
  maxLockSeconds?: number;
  /** The counting window from the first attempt, in seconds. Default 3600. */
  windowSeconds?: number;
}

/** Two-factor authentication: encryption key, authenticator issuer name, code budget, emailed-code lifetime. */
export interface TwoFactorOptions {
  /**
   * Key material for encrypting TOTP secrets and keying recovery-code hashes (32+ bytes, or
   * a list: the first seals, every one opens). Default: `secret`, which then cannot be
   * rotated away without losing 2FA; set it explicitly in production.
   */
  encryptionKey?: SecretInput;
  /** The issuer shown in authenticator apps; default: the email brand name. */
  issuer?: string;
  /** Codes checked per account (counted before checking) before 2FA locks for `lockoutSeconds`. Default 5. */
  maxFailedAttempts?: number;
  /** How long 2FA stays locked once the code budget is spent, in seconds (also the counting window). Default 900. */
  lockoutSeconds?: number;
  /** Lifetime of an emailed 2FA code, in seconds (60 to 3600). Default 600. */
  emailCodeTtlSeconds?: number;
  /**
   * How long a browser stays trusted after a second-factor step with `trustBrowser: true`, in days
   * (0 to 400; 0 turns trusted browsers off). A password sign-in from a trusted browser skips the
   * second factor. Default 30.
   */
  trustBrowserDays?: number;
}

/** Password length in code points after NFKC. */
export interface PasswordOptions {
  /** The shortest password, in code points after NFKC. Default 8 (15 recommended without 2FA). */
  minLength?: number;
  /** The longest password, in code points after NFKC (64 to 4096). Default 256. */
  maxLength?: number;
}

/** The look of every email. */
export interface EmailBrandOptions {
  /** The product name in subjects and bodies (and the default authenticator issuer). Default `Portcullis`. */
  name?: string;
  /** Buttons and links, as a hex colour. Default `#4f46e5`. */
  primaryColor?: string;
  /** Body text, as a hex colour. Default `#111827`. */
  textColor?: string;
  /** The page around the message, as a hex colour. Default `#f3f4f6`. */
  backgroundColor?: string;
  /** An http(s) URL of a logo shown at the top; null (default): the name instead. */
  logoUrl?: string | null;
}

/** Frontend pages that email links open, as paths below `appOrigin`. */
export interface EmailLinkOptions {
  /** Where the verification link goes (with `?token=`). Default `/verify-email`. */
  verifyEmail?: string;
  /** Where the reset link goes (with `?token=`). Default `/reset-password`. */
  resetPassword?: string;
  /** The "forgot password" page. Default `/forgot-password`. */
  forgotPassword?: string;
  /** The sign-in page. Default `/login`. */
  signIn?: string;
  /** The sign-up page. Default `/signup`. */
  signUp?: string;
  /** The security settings page, linked from login alerts and security notices. Default `/settings/security`. */
  securitySettings?: string;
  /**
   * The page of an emailed sign-in link (with `?token=`; `emailSignIn`). It must sign in with a
   * POST of the token from a button, never on a GET (mail scanners open links). Default `/sign-in/email`.
   */
  emailSignIn?: string;
  /** Where the link that confirms a new address goes (with `?token=`). Default `/confirm-email-change`. */
  confirmEmailChange?: string;
  /** Where an organization invitation's link goes (with `?token=`). Default `/invitations/accept`. */
  acceptInvitation?: string;
}

/** Email behaviour: on or off, cooldown, login alerts, send timeout, brand, link pages, template overrides. */
export interface EmailOptions {
  /** `false` turns email off: reset and verification answer 503 `EMAIL_DISABLED`, side-effect emails are skipped. Default true. */
  enabled?: boolean;
  /** Cooldown per normalized address and kind after each email, in seconds. Default 60. */
  cooldownSeconds?: number;
  /**
   * An email after each sign-in from a browser the account does not know: one whose device token
   * does not name it (any sign-in method: password, second factor, identity provider,
   * `sessions.create`; a registration makes its browser known). Default true.
   */
  loginAlerts?: boolean;
  /** How long a send may take before it counts as failed (`EMAIL_SEND_FAILURE`), in milliseconds. Default 15000. */
  sendTimeoutMs?: number;
  /** Brand name, colours and logo of every email. */
  brand?: EmailBrandOptions;
  /** Frontend pages that email links open, as paths below `appOrigin`. */
  links?: EmailLinkOptions;
  /** MJML sources replacing shipped templates, by email kind; same `{{slot}}` placeholders. */
  templates?: Partial<Record<EmailKind, string>>;
}

/** Cookie attributes of the auth cookies. */
export interface CookieOptions {
  /** The `Secure` attribute; turn it on in production (HTTPS). Default false. */
  secure?: boolean;
  /** The `SameSite` attribute of the auth cookies. Default `strict`. */
  sameSite?: "strict" | "lax" | "none";
  /** Name cookies `__Host-…` (refresh: `__Secure-…`, as it is scoped to `basePath`). Requires `secure`. */
  hostPrefix?: boolean;
}

/** A per-IP limit: at most `max` in `windowSeconds`. */
export interface IpLimitOptions {
  /** How many in one window. */
  max?: number;
  /** The window, in seconds. */
  windowSeconds?: number;
}

/**
 * Limits per client IP (local loopback clients are exempt): failed logins (`LOGIN_THROTTLED`), wrong
 * 2FA codes (`TWO_FACTOR_THROTTLED`), registrations, reset requests, verification sends,
 * invalid reset/verification tokens, email sign-in requests and passkey sign-in starts (`RATE_LIMITED`).
 */
export interface IpLimitsOptions {
  /** `false` turns every per-IP limit off. Default true. */
  enabled?: boolean;
  /** Failed password checks per IP. Default 100 in 900 seconds. */
  failedLogins?: IpLimitOptions;
  /** Wrong 2FA codes per IP. Default 50 in 900 seconds. */
  wrongTwoFactorCodes?: IpLimitOptions;
  /** Registrations per IP. Default 20 in 3600 seconds. */
  registrations?: IpLimitOptions;
  /** Password reset requests per IP. Default 20 in 3600 seconds. */
  passwordResetRequests?: IpLimitOptions;
  /** Verification emails sent per IP. Default 20 in 3600 seconds. */
  verificationSends?: IpLimitOptions;
  /** Invalid reset and verification tokens, and wrong or unknown email sign-in links and codes, per IP. Default 50 in 900 seconds. */
  invalidTokens?: IpLimitOptions;
  /** Email sign-in requests (`POST /email-sign-in/request`) per IP. Default 20 in 3600 seconds. */
  emailSignInRequests?: IpLimitOptions;
  /**
   * Passkey sign-ins started (`POST /passkeys/login/options`: each stores a challenge for 5
   * minutes; a sign-in page with autofill starts one per visit) per IP. Default 100 in 900 seconds.
   */
  passkeySignInStarts?: IpLimitOptions;
  /**
   * Enterprise sign-ins started (`POST /sso/start` of `@portcullis/sso`: each stores the request
   * for the identity provider's answer) per IP. Default 100 in 900 seconds.
   */
  ssoSignInStarts?: IpLimitOptions;
}

/**
 * Sign-in by an emailed link or code (`POST /email-sign-in/request`, `POST /email-sign-in`;
 * docs/concepts.md, "Sign-in by email"). Off unless turned on; needs email.
 */
export interface EmailSignInOptions {
  /** `true` turns the routes on; off, they answer 404 `NOT_FOUND`. Default false. */
  enabled?: boolean;
  /** How long an emailed link and code work, in seconds (60 to 3600). Default 600. */
  ttlSeconds?: number;
  /**
   * Wrong codes per request (per normalized address, counted before checking; a newer request
   * starts again) before every code is refused with 429 `EMAIL_SIGN_IN_THROTTLED`. Default 5.
   */
  maxWrongCodes?: number;
}

/** Passkeys (WebAuthn): who the relying party is, and where the browser may run the ceremonies. */
export interface WebAuthnOptions {
  /**
   * The relying party id: `appOrigin`'s host or a registrable suffix of it (`example.com` for
   * `https://app.example.com`). Passkeys are bound to it: changing it later strands every
   * registered passkey. Default: `appOrigin`'s host.
   */
  rpId?: string;
  /** The name the browser shows while registering a passkey. Default: the email brand name. */
  rpName?: string;
  /**
   * The origins whose pages may run the ceremonies (the `origin` in a response's client data);
   * each an https origin (http only on `localhost`) whose host is `rpId` or below it, and one of
   * them `appOrigin`'s. Default: `[appOrigin's origin]`.
   */
  origins?: string[];
  /**
   * How many passkey sign-ins may start (`POST /passkeys/login/options`, each storing a challenge
   * kept 15 minutes) in 15 minutes, from all clients together: past it, 429 `RATE_LIMITED` until
   * the window ends, so at most twice this many sign-in challenges are ever kept in the store,
   * whatever the clients' addresses. Default: 10000.
   */
  maxOutstandingChallenges?: number;
}

/**
 * What `createAuth` accepts, checked once at start-up (a bad option, or a combination that cannot
 * work, throws a `TypeError` naming it). Email is on unless `email: { enabled: false }`; while it
 * is on, `mailer` and `appOrigin` are required.
 */
export type AuthOptions = AuthOptionFields & (EmailOffOptions | EmailOnOptions);

/** Email on (the default, or an `email.enabled` that may be true): its mailer and its links' origin are required. */
export interface EmailOnOptions {
  mailer: Mailer;
  appOrigin: string;
}

/** Email off (`email: { enabled: false }`): no mailer; reset and verification answer 503 `EMAIL_DISABLED`. */
export interface EmailOffOptions {
  email: EmailOptions & { enabled: false };
}

/** Every option of `createAuth`, each as validated alone; a helper that fills in some takes `Partial<AuthOptionFields>`. */
export interface AuthOptionFields {
  /**
   * The HMAC secret that signs access and step-up tokens: at least 32 bytes and more than 128
   * bits of estimated entropy (no placeholder, repeat, sequence or keyboard walk: generate it
   * with `openssl rand -base64 48`). A list rotates keys: the first signs, every one verifies
   * (tokens carry `kid`).
   */
  secret: SecretInput;
  /** The JWT `iss` of access and step-up tokens (checked on every verify). Default `portcullis`. */
  issuer?: string;
  /** The JWT `aud` of access and step-up tokens (checked on every verify). Default `portcullis`. */
  audience?: string;
  /** Where the adapters mount the routes. Default `/api/auth`. */
  basePath?: string;
  /** The ports: `createMemoryStores()`, `createRedisStores()` (with your users), `createSqlStores()` or your own. */
  stores: AuthStores;
  /** Sends rendered emails: `createSmtpMailer()`, `createOutboxMailer()` or your own. Required while `email.enabled`. */
  mailer?: Mailer;
  /**
   * Makes the id of a new user (register, `host.createUser`, identity-provider sign-ups); for
   * hosts whose users table has its own key format (a UUID, a number as text). Default: 128
   * random bits, base64url. Must return a string unique across users.
   */
  generateId?: () => string;
  /** Default: argon2id with m=19456 KiB, t=2, p=1 (`createArgon2Hasher()`). */
  passwordHasher?: PasswordHasher;
  /** Default: the system clock. Tests pass a fake one. */
  clock?: Clock;
  /** A pino-compatible logger. Default: warnings and errors as JSON lines on stderr. */
  logger?: Logger;
  /** Lifetime of an access token and its cookie, in seconds. Default 900. */
  accessTokenTtlSeconds?: number;
  /**
   * How long the store keeps a session after each refresh, in seconds (and the refresh cookie's
   * Max-Age). Default 30 days. Sessions end earlier by `idleTimeoutSeconds` and
   * `absoluteLifetimeSeconds`; the record stays (unusable, unlisted) long enough for a late
   * refresh to read `SESSION_EXPIRED`, but never longer than this after the last refresh.
   */
  refreshTokenTtlSeconds?: number;
  /**
   * The refresh reuse interval, in seconds (0 to 300; 0 turns it off). The refresh token that a
   * session's latest rotation replaced, presented again within this long after that rotation,
   * answers the session's current refresh token and a working access token instead of revoking
   * the session, so two tabs (or retries) refreshing at once stay signed in. An older token, or
   * that one later, still revokes the session. Default 10.
   */
  refreshReuseIntervalSeconds?: number;
  /**
   * How long each user's activity (`GET /activity`) is kept, in days (1 to 3650): older entries
   * are never listed and the store forgets them. Default 90.
   */
  activityRetentionDays?: number;
  /**
   * How long the audit log keeps an entry, in days (1 to 3650): each instance sweeps older ones at
   * most once an hour, after a write (docs/audit-log.md, "Retention"). Default 365.
   */
  auditRetentionDays?: number;
  /**
   * A session ends when it was not refreshed for this long, in seconds (1 to 400 days; at most
   * `absoluteLifetimeSeconds`). A refresh after it answers 401 `SESSION_EXPIRED`. Default 7 days
   * (docs/concepts.md, "Session lifetimes", says why). `refreshTokenTtlSeconds` is how long the store keeps the
   * record after each refresh, so the shorter of the two is the inactivity that ends a session.
   */
  idleTimeoutSeconds?: number;
  /**
   * A session ends this long after it was created, in seconds (1 to 400 days), however often it
   * is refreshed: the user signs in again. A refresh after it answers 401 `SESSION_EXPIRED`.
   * Default 30 days (the reauthentication interval NIST SP 800-63B-4 sets for AAL1).
   */
  absoluteLifetimeSeconds?: number;
  /**
   * Password checks per normalized address (login and step-up share it; unknown addresses
   * alike, so it tells nothing): each is counted before it is checked. `freeAttempts` in
   * `windowSeconds`, then the address is locked for `baseLockSeconds`, and each lock lets one
   * attempt through when it ends, doubling up to `maxLockSeconds`. A right password clears it.
   */
  loginThrottle?: LoginThrottleOptions;
  /** Lifetime of the 2FA token between the password step and the second factor, in seconds (30 to 300). Default 300. */
  twoFactorTokenTtlSeconds?: number;
  /** Lifetime of a step-up token (and its cookie), in seconds (30 to 3600). Default 300. */
  stepUpTokenTtlSeconds?: number;
  /** Two-factor authentication: encryption key, authenticator issuer name, code budget, emailed-code lifetime. */
  twoFactor?: TwoFactorOptions;
  /** Lifetime of a reset link, in seconds. Default 1800. */
  passwordResetTokenTtlSeconds?: number;
  /** Lifetime of a verification link, in seconds. Default 86400. */
  emailVerificationTokenTtlSeconds?: number;
  /** Password length in code points after NFKC: default 8 to 256 (15 is recommended for password-only accounts). */
  password?: PasswordOptions;
  /** Email behaviour: on or off, cooldown, login alerts, send timeout, brand, link pages, template overrides. */
  email?: EmailOptions;
  /** The frontend's base URL: every link in an email starts with it. Required while `email.enabled`, and with `identityProviders` or `webauthn`. */
  appOrigin?: string;
  /**
   * Where the API is served when it is not on `appOrigin`: the redirect URI registered at an
   * identity provider is `<apiOrigin or appOrigin><basePath>/oauth/<name>/callback`.
   */
  apiOrigin?: string;
  /**
   * Sign-in with identity providers (OpenID Connect by discovery, or the `google`, `entra`
   * and `github` presets); needs `stores.identities`, `appOrigin` and the `openid-client` package
   * (`createAuth` throws when it cannot be found, or when an issuer is not a usable URL).
   */
  identityProviders?: IdentityProviderOptions[];
  /**
   * Origins besides the request's own that may make state changes (POST, PUT, PATCH, DELETE)
   * under the prefix, whatever carries the credentials; defaults to `appOrigin`.
   */
  trustedOrigins?: string[];
  /** Cookie attributes: `secure` (default false), `sameSite` (default strict), `hostPrefix` (needs secure). */
  cookies?: CookieOptions;
  /**
   * How many reverse proxies in front of the app are trusted: the client IP is then read that
   * many entries from the right of `X-Forwarded-For`, and the scheme from `X-Forwarded-Proto`.
   * 0 (default): the socket's address and the adapter's scheme; a loopback request that carries
   * `X-Forwarded-For`, `Forwarded` or `X-Real-IP` is then taken for a proxy on this host (limited
   * per IP by the loopback address, and a warning naming `trustProxy` is logged once).
   */
  trustProxy?: number;
  /**
   * Limits per client IP (local loopback clients are exempt): failed logins (`LOGIN_THROTTLED`), wrong
   * 2FA codes (`TWO_FACTOR_THROTTLED`), registrations, reset requests, verification sends and
   * invalid reset/verification tokens (`RATE_LIMITED`).
   */
  ipLimits?: IpLimitsOptions;
  /**
   * Called with every security event (sign-ins, failures, throttling, resets, token reuse,
   * revocations); never with a secret. Not awaited, and whatever it returns is ignored (so
   * `(e) => events.push(e)` is fine); a throw or a rejected promise is logged, never fails a request.
   */
  onEvent?: (event: SecurityEvent) => unknown;
  /** Accept tokens in headers (`Authorization`, `X-Two-Factor-Authentication-Token`, `X-Step-Up-Token`) and return them in bodies. Default true. */
  allowHeaderAuthentication?: boolean;
  /** When a header and a cookie both carry a token, the header alone decides. Default true. */
  preferHeaderAuthentication?: boolean;
  /** Larger request bodies are 413 `PAYLOAD_TOO_LARGE`. Default 16 KiB. */
  bodyLimitBytes?: number;
  /** The locale of emails and messages when a request names none we have. Default `en`. */
  defaultLocale?: string;
  /** More locales, or string overrides of shipped ones: `{ fr: { errors: { … } } }`. */
  locales?: LocaleResources;
  /**
   * Passkeys (WebAuthn): sign-in, step-up and registration under `<basePath>/passkeys`; needs
   * `appOrigin`, `stores.passkeys` and the `@simplewebauthn/server` package. `createAuth`
   * throws when `rpId` and `origins` cannot work with `appOrigin`.
   */
  webauthn?: WebAuthnOptions;
  /**
   * Checks new passwords against a breach corpus by k-anonymity: only the first 5 hex characters
   * of the password's SHA-1 leave the process. Off unless set. A found password is refused at
   * registration, reset, `POST /password/change` and `setPassword` (400 `PASSWORD_BREACHED`) and
   * signs in with `passwordBreached: true` at login.
   */
  breachedPasswords?: BreachedPasswordsOptions;
  /**
   * Sign-in by an emailed link or code: `enabled` (default false), how long they work
   * (`ttlSeconds`, default 600) and the wrong codes per request (`maxWrongCodes`, default 5).
   */
  emailSignIn?: EmailSignInOptions;
  /** The back office (docs/back-office.md): who may use the admin routes under `<prefix>/admin`. */
  admin?: AdminOptions;
  /**
   * Organizations with roles, invitations and permission checks (docs/organizations.md); off
   * unless set (its routes then answer 404). Needs `stores.organizations`.
   */
  organizations?: OrganizationsOptions;
  /** A CAPTCHA on the routes bots push (docs/captcha.md); off unless set. */
  captcha?: CaptchaOptions;
  /** API keys of users and organizations for the host's routes (docs/api-keys.md); off unless set. Needs `stores.apiKeys`. */
  apiKeys?: ApiKeysOptions;
  /**
   * Webhooks (docs/webhooks.md): endpoints per organization and for the whole deployment that
   * receive the audit log's events, signed per the Standard Webhooks specification; off unless
   * set. Needs `stores.webhooks` and `stores.auditLog`.
   */
  webhooks?: WebhooksOptions;
  /**
   * Portcullis as an OAuth 2.1 / OpenID Connect provider for the host's other apps, CLIs and
   * agents (docs/oauth-provider.md): `createOAuthProvider(…)` of `@portcullis/oauth-provider`. Its
   * routes are mounted under `<prefix>/oauth2/`; off unless set.
   */
  oauthProvider?: OAuthProviderPlugin;
  /**
   * Enterprise sign-in per organization (docs/sso.md): `createSso(…)` of `@portcullis/sso`, SAML
   * connections, verified domains and SCIM. Needs `appOrigin`, `organizations` and
   * `stores.identities`; off unless set.
   */
  sso?: SsoPlugin;
}

/** The back office's options (docs/back-office.md). */
export interface AdminOptions {
  /**
   * Whether the signed-in caller may use the back office: given the principal (an impersonation's
   * never gets here) and its user, true to allow. Without it the admin routes are not mounted
   * (404) and `auth.admin.*` refuses every caller; with it, each admin route and `auth.admin.*`
   * method needs a principal and a step-up token of a caller it allows (403 `ADMIN_REQUIRED`
   * otherwise). A throw or rejection refuses, logged as a 500. The trusted host operations
   * (`auth.host.*`) take no principal and do not ask it.
   */
  authorize?: (principal: Principal, user: User) => boolean | Promise<boolean>;
}
