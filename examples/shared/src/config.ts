import { randomBytes } from "node:crypto";
import { isValidEmail, normalizeEmail } from "@portcullis/core";

/** The example servers' settings, from the environment table of docs/examples.md. */
export interface ExampleConfig {
  port: number;
  host: string;
  appOrigin: string;
  secret: string;
  smtpUrl: string | undefined;
  /** Cooldowns and sessions on Redis (shared by every instance) instead of memory. */
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  /** `sqlite:<file>` or `postgres://…`: users (and without Redis, sessions and cooldowns) in SQL. */
  databaseUrl: string | undefined;
  emailFrom: string;
  emailEnabled: boolean;
  emailCooldownSeconds: number;
  /** An access token's (and its cookie's) lifetime (`accessTokenTtlSeconds`, ACCESS_TOKEN_TTL_SECONDS). */
  accessTokenTtlSeconds: number;
  /** The refresh reuse interval (`refreshReuseIntervalSeconds`, REFRESH_REUSE_SECONDS); 0 turns it off. */
  refreshReuseSeconds: number;
  /** A session's idle timeout (`idleTimeoutSeconds`, SESSION_IDLE_SECONDS); unset: the library's default. */
  sessionIdleSeconds: number | undefined;
  /** A session's absolute lifetime (`absoluteLifetimeSeconds`, SESSION_MAX_SECONDS); unset: the library's default. */
  sessionMaxSeconds: number | undefined;
  loginAlerts: boolean;
  allowHeaderAuth: boolean;
  preferHeaderAuth: boolean;
  cookieSecure: boolean;
  seedFile: string | undefined;
  /** Reverse proxies in front whose `X-Forwarded-For` / `X-Forwarded-Proto` are trusted (docs/limits.md). */
  trustProxy: number;
  production: boolean;
  /** One OpenID Connect provider, named `oidc` (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET); unset: none. */
  oidc: { issuer: string; clientId: string; clientSecret: string } | undefined;
  /** The dev outbox exists only without SMTP and outside production. */
  devOutbox: boolean;
  /** The breached-password range API (`breachedPasswords.rangeUrl`, BREACHED_PASSWORDS_URL); unset: no check. */
  breachedPasswordsUrl: string | undefined;
  /** Refuse passwords while the range API cannot answer (`breachedPasswords.failClosed`, BREACHED_PASSWORDS_FAIL_CLOSED). */
  breachedPasswordsFailClosed: boolean;
  /** Sign-in by an emailed link or code (`emailSignIn.enabled`, EMAIL_SIGN_IN); on by default in the examples. */
  emailSignIn: boolean;
  /** Normalized addresses whose verified accounts may use the back office (ADMIN_EMAILS); empty: none. */
  adminEmails: string[];
  /**
   * Passkeys (`webauthn`, PASSKEYS): the RP ID is APP_ORIGIN's host name and the one allowed
   * origin is APP_ORIGIN's; undefined when off (PASSKEYS=false, or an origin WebAuthn refuses).
   */
  passkeys: { rpId: string; origin: string } | undefined;
  /**
   * Organizations (`organizations`, ORGANIZATIONS, default on): the host's permissions
   * (ORGANIZATION_PERMISSIONS) and a plain member's (ORGANIZATION_MEMBER_PERMISSIONS); undefined when off.
   */
  organizations: { permissions: string[]; memberPermissions: string[] } | undefined;
  /** API keys of users and organizations (`apiKeys`, API_KEYS, default on). */
  apiKeys: boolean;
  /**
   * Enterprise sign-in per organization (`createSso` of `@portcullis/sso`, SSO, on by default while
   * organizations are): OpenID Connect issuers on http and private addresses (SSO_ALLOW_PRIVATE,
   * default off, refused in production); undefined when off.
   */
  sso: ExampleSso | undefined;
  /**
   * Webhooks of organizations and of the deployment (`webhooks`, WEBHOOKS, default on): endpoints
   * on private and loopback addresses over http (WEBHOOKS_ALLOW_PRIVATE, default off) and a factor
   * on every retry wait (WEBHOOK_RETRY_SCALE, default 1); undefined when off.
   */
  webhooks: ExampleWebhooks | undefined;
  /**
   * A CAPTCHA (`captcha`; CAPTCHA_PROVIDER turnstile, hcaptcha or recaptcha, CAPTCHA_SECRET,
   * CAPTCHA_SITE_KEY for the pages' widget, CAPTCHA_VERIFY_URL to override siteverify); unset: none.
   */
  captcha: ExampleCaptcha | undefined;
  /**
   * The OAuth 2.1 / OpenID provider (`oauthProvider`, OAUTH_PROVIDER, default off): the JSON file
   * of clients seeded at start (OAUTH_CLIENTS_FILE) and RFC 7591 registration
   * (OAUTH_DYNAMIC_REGISTRATION, default off); undefined when off.
   */
  oauthProvider: ExampleOAuthProvider | undefined;
}

/** The OAuth provider settings of the examples (`readConfig`). */
export interface ExampleOAuthProvider {
  /** OAUTH_CLIENTS_FILE: a JSON array of clients (`readOAuthClientsFile`); unset: none seeded. */
  clientsFile: string | undefined;
  /** OAUTH_DYNAMIC_REGISTRATION: `allowDynamicRegistration`. */
  allowDynamicRegistration: boolean;
}

/** The enterprise sign-in settings of the examples (`readConfig`), as `createSso` takes them. */
export interface ExampleSso {
  allowPrivateNetworks: boolean;
}

/** The CAPTCHA settings of the examples (`readConfig`). */
export interface ExampleCaptcha {
  provider: "turnstile" | "hcaptcha" | "recaptcha";
  secret: string;
  /** The public key the pages' widget is drawn with; unset: no widget (API clients send tokens themselves). */
  siteKey: string | undefined;
  verifyUrl: string | undefined;
}

/** The webhook settings of the examples (`readConfig`), as createAuth's `webhooks` option takes them. */
export interface ExampleWebhooks {
  allowPrivateNetworks: boolean;
  retryScale: number;
}

/** A setting that cannot be used; the server prints it and exits with status 1. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

const flag = (env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean => {
  const value = env[name]?.trim().toLowerCase();
  if (value === undefined || value === "") return fallback;
  if (["true", "1", "yes", "on"].includes(value)) return true;
  if (["false", "0", "no", "off"].includes(value)) return false;
  throw new ConfigError(`${name} must be true or false, not "${env[name]}"`);
};

const integer = (
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number => {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, not "${raw}"`);
  }
  return value;
};

/** The longest session setting the library takes: 400 days. */
const MAX_SESSION_SECONDS = 400 * 24 * 3600;
/** The library's default idle timeout (7 days), which SESSION_MAX_SECONDS alone must not undercut. */
const DEFAULT_IDLE_SECONDS = 7 * 24 * 3600;

/** SESSION_IDLE_SECONDS and SESSION_MAX_SECONDS: each unset or 1 s to 400 days, the idle timeout at most the lifetime. */
function sessionLifetimes(env: NodeJS.ProcessEnv) {
  const unset = (name: string) => (env[name]?.trim() ?? "") === "";
  const idle = unset("SESSION_IDLE_SECONDS")
    ? undefined
    : integer(env, "SESSION_IDLE_SECONDS", 0, 1, MAX_SESSION_SECONDS);
  const max = unset("SESSION_MAX_SECONDS")
    ? undefined
    : integer(env, "SESSION_MAX_SECONDS", 0, 1, MAX_SESSION_SECONDS);
  if (max !== undefined && (idle ?? DEFAULT_IDLE_SECONDS) > max) {
    throw new ConfigError(
      `SESSION_IDLE_SECONDS (${idle ?? `default ${DEFAULT_IDLE_SECONDS}`}) must not exceed SESSION_MAX_SECONDS (${max}): set both`,
    );
  }
  return { sessionIdleSeconds: idle, sessionMaxSeconds: max };
}

export function readConfig(
  env: NodeJS.ProcessEnv = process.env,
  warn: (message: string) => void = console.warn,
): ExampleConfig {
  const production = env.NODE_ENV === "production";
  const port = integer(env, "PORT", 3000, 0, 65_535);
  const host = env.HOST?.trim() || "127.0.0.1";
  let secret = env.AUTH_SECRET ?? "";
  if (secret === "") {
    if (production)
      throw new ConfigError("AUTH_SECRET is required when NODE_ENV=production (at least 32 bytes).");
    secret = randomBytes(48).toString("base64url");
    warn("AUTH_SECRET is not set: using a random secret, so every restart signs everyone out.");
  }
  const smtpUrl = env.SMTP_URL?.trim() || undefined;
  const databaseUrl = env.DATABASE_URL?.trim() || undefined;
  if (databaseUrl && !/^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(databaseUrl)) {
    throw new ConfigError(`DATABASE_URL must be sqlite:<file> or postgres://…, not "${databaseUrl}"`);
  }
  const oidcIssuer = env.OIDC_ISSUER?.trim() || undefined;
  const oidcClientId = env.OIDC_CLIENT_ID?.trim() || undefined;
  const oidcClientSecret = env.OIDC_CLIENT_SECRET?.trim() || undefined;
  if ((oidcIssuer || oidcClientId || oidcClientSecret) && !(oidcIssuer && oidcClientId && oidcClientSecret)) {
    throw new ConfigError("OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET must be set together");
  }
  const breachedPasswordsUrl = env.BREACHED_PASSWORDS_URL?.trim() || undefined;
  if (breachedPasswordsUrl && !/^https?:\/\//.test(breachedPasswordsUrl)) {
    throw new ConfigError(`BREACHED_PASSWORDS_URL must be an http(s) URL, not "${breachedPasswordsUrl}"`);
  }
  if (oidcIssuer && !URL.canParse(oidcIssuer)) {
    throw new ConfigError(`OIDC_ISSUER must be the issuer's URL, not "${oidcIssuer}"`);
  }
  const appOrigin = env.APP_ORIGIN?.trim() || defaultOrigin(host, port);
  if (!URL.canParse(appOrigin)) throw new ConfigError(`APP_ORIGIN must be a URL, not "${appOrigin}"`);
  return {
    port,
    host,
    appOrigin,
    secret,
    smtpUrl,
    redisUrl: env.REDIS_URL?.trim() || undefined,
    redisKeyPrefix: env.REDIS_KEY_PREFIX?.trim() || "portcullis:",
    databaseUrl,
    emailFrom: env.EMAIL_FROM?.trim() || "Portcullis <no-reply@localhost>",
    emailEnabled: flag(env, "EMAIL_ENABLED", true),
    emailCooldownSeconds: integer(env, "EMAIL_COOLDOWN_SECONDS", 60, 1, 86_400),
    accessTokenTtlSeconds: integer(env, "ACCESS_TOKEN_TTL_SECONDS", 900, 1, 86_400),
    refreshReuseSeconds: integer(env, "REFRESH_REUSE_SECONDS", 10, 0, 300),
    ...sessionLifetimes(env),
    loginAlerts: flag(env, "LOGIN_ALERTS", true),
    allowHeaderAuth: flag(env, "ALLOW_HEADER_AUTH", true),
    preferHeaderAuth: flag(env, "PREFER_HEADER_AUTH", true),
    cookieSecure: flag(env, "COOKIE_SECURE", false),
    seedFile: env.SEED_FILE?.trim() || undefined,
    trustProxy: integer(env, "TRUST_PROXY", 0, 0, 10),
    production,
    devOutbox: smtpUrl === undefined && !production,
    oidc:
      oidcIssuer && oidcClientId && oidcClientSecret
        ? { issuer: oidcIssuer, clientId: oidcClientId, clientSecret: oidcClientSecret }
        : undefined,
    breachedPasswordsUrl,
    breachedPasswordsFailClosed: flag(env, "BREACHED_PASSWORDS_FAIL_CLOSED", false),
    emailSignIn: flag(env, "EMAIL_SIGN_IN", true),
    adminEmails: adminEmails(env),
    passkeys: passkeys(env, appOrigin, warn),
    organizations: organizations(env),
    apiKeys: flag(env, "API_KEYS", true),
    sso: sso(env, production),
    webhooks: webhooks(env),
    captcha: readCaptchaConfig(env),
    oauthProvider: oauthProvider(env),
  };
}

/** CAPTCHA_PROVIDER and its secret, site key and siteverify override; all unset: no CAPTCHA. */
export function readCaptchaConfig(env: NodeJS.ProcessEnv = process.env): ExampleCaptcha | undefined {
  const provider = env.CAPTCHA_PROVIDER?.trim() || undefined;
  const secret = env.CAPTCHA_SECRET?.trim() || undefined;
  const siteKey = env.CAPTCHA_SITE_KEY?.trim() || undefined;
  const verifyUrl = env.CAPTCHA_VERIFY_URL?.trim() || undefined;
  if (provider === undefined) {
    if (secret || siteKey || verifyUrl)
      throw new ConfigError("CAPTCHA_SECRET, CAPTCHA_SITE_KEY and CAPTCHA_VERIFY_URL need CAPTCHA_PROVIDER");
    return undefined;
  }
  if (provider !== "turnstile" && provider !== "hcaptcha" && provider !== "recaptcha")
    throw new ConfigError(`CAPTCHA_PROVIDER must be turnstile, hcaptcha or recaptcha, not "${provider}"`);
  if (!secret) throw new ConfigError("CAPTCHA_SECRET is required with CAPTCHA_PROVIDER");
  if (verifyUrl && !/^https?:\/\/./.test(verifyUrl))
    throw new ConfigError(`CAPTCHA_VERIFY_URL must be an http(s) URL, not "${verifyUrl}"`);
  return { provider, secret, siteKey, verifyUrl };
}

/** 127.0.0.0/8, ::1 and the wildcard addresses: a browser on this machine reaches them as `localhost`. */
const isLoopbackOrAny = (host: string) =>
  /^127(\.\d{1,3}){3}$/.test(host) || ["::1", "0.0.0.0", "::", "localhost"].includes(host.toLowerCase());

/**
 * APP_ORIGIN's default: the address the server listens on, with `localhost` for a loopback or
 * wildcard address (WebAuthn refuses IP addresses, and browsers treat http://localhost as a
 * secure context); other addresses as they are (IPv6 in brackets).
 */
function defaultOrigin(host: string, port: number): string {
  if (isLoopbackOrAny(host)) return `http://localhost:${port}`;
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/**
 * PASSKEYS (default on): WebAuthn on APP_ORIGIN, the RP ID its host name. An origin WebAuthn cannot
 * use (an IP address, or http on anything but localhost) turns passkeys off with a warning, or
 * stops the server when PASSKEYS=true asked for them explicitly.
 */
function passkeys(
  env: NodeJS.ProcessEnv,
  appOrigin: string,
  warn: (message: string) => void,
): ExampleConfig["passkeys"] {
  const explicit = (env.PASSKEYS?.trim() ?? "") !== "";
  if (!flag(env, "PASSKEYS", true)) return undefined;
  const url = new URL(appOrigin);
  const host = url.hostname;
  const problem =
    /^[0-9.]+$/.test(host) || host.startsWith("[")
      ? `APP_ORIGIN's host (${host}) is an IP address; WebAuthn needs a domain name (use http://localhost:PORT on this machine)`
      : url.protocol !== "https:" && host !== "localhost"
        ? `APP_ORIGIN (${url.origin}) is not https; browsers allow passkeys over http only on localhost`
        : undefined;
  if (problem === undefined) return { rpId: host, origin: url.origin };
  if (explicit) throw new ConfigError(`PASSKEYS=true cannot work: ${problem}`);
  warn(`Passkeys are off: ${problem}. Set PASSKEYS=false to silence this.`);
  return undefined;
}

/** ADMIN_EMAILS: comma-separated addresses, normalized as the stores keep them. */
function adminEmails(env: NodeJS.ProcessEnv): string[] {
  const listed = (env.ADMIN_EMAILS ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  for (const entry of listed) {
    if (!isValidEmail(entry)) throw new ConfigError(`ADMIN_EMAILS must list email addresses, not "${entry}"`);
  }
  return [...new Set(listed.map(normalizeEmail))];
}

/** A comma-separated list of permissions (`project:read`), each once; unset or empty: `fallback`. */
function permissionList(env: NodeJS.ProcessEnv, name: string, fallback: string): string[] {
  const listed = (env[name]?.trim() || fallback)
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  for (const entry of listed) {
    if (!/^[a-z0-9:_-]{1,64}$/.test(entry))
      throw new ConfigError(`${name} must list permissions such as project:read, not "${entry}"`);
  }
  return [...new Set(listed)];
}

/** ORGANIZATIONS (default on), ORGANIZATION_PERMISSIONS and ORGANIZATION_MEMBER_PERMISSIONS (a subset). */
function organizations(env: NodeJS.ProcessEnv): ExampleConfig["organizations"] {
  if (!flag(env, "ORGANIZATIONS", true)) return undefined;
  const permissions = permissionList(
    env,
    "ORGANIZATION_PERMISSIONS",
    "project:read,project:write,project:delete",
  );
  const memberPermissions = permissionList(env, "ORGANIZATION_MEMBER_PERMISSIONS", "project:read");
  const undeclared = memberPermissions.filter((permission) => !permissions.includes(permission));
  if (undeclared.length > 0)
    throw new ConfigError(
      `ORGANIZATION_MEMBER_PERMISSIONS may name only permissions of ORGANIZATION_PERMISSIONS, not ${undeclared.join(", ")}`,
    );
  return { permissions, memberPermissions };
}

/** The bounds of WEBHOOK_RETRY_SCALE (the library's): 1 keeps the back-off, smaller shortens it. */
const RETRY_SCALE = { min: 0.000001, max: 1000 };

/**
 * WEBHOOKS (default on), WEBHOOKS_ALLOW_PRIVATE (default off) and WEBHOOK_RETRY_SCALE (default 1, a
 * positive number). The last two are checked even while webhooks are off, so a typo never waits
 * for the day they are turned on.
 */
function webhooks(env: NodeJS.ProcessEnv): ExampleConfig["webhooks"] {
  const allowPrivateNetworks = flag(env, "WEBHOOKS_ALLOW_PRIVATE", false);
  const raw = env.WEBHOOK_RETRY_SCALE?.trim() ?? "";
  const retryScale = raw === "" ? 1 : Number(raw);
  if (!Number.isFinite(retryScale) || retryScale < RETRY_SCALE.min || retryScale > RETRY_SCALE.max)
    throw new ConfigError(
      `WEBHOOK_RETRY_SCALE must be a positive number from ${RETRY_SCALE.min} to ${RETRY_SCALE.max} (1: the normal retry waits, 0.001: a thousand times shorter), not "${raw}"`,
    );
  return flag(env, "WEBHOOKS", true) ? { allowPrivateNetworks, retryScale } : undefined;
}

/** SSO alone (on by default while ORGANIZATIONS is), for the UI's `/ui/config` (pages.ts), read as `readConfig` reads it. */
export function readSsoFlag(env: NodeJS.ProcessEnv = process.env): boolean {
  return flag(env, "SSO", flag(env, "ORGANIZATIONS", true));
}

/**
 * SSO (on by default while organizations are) and SSO_ALLOW_PRIVATE (default off). SSO=true
 * without organizations stops the start (every connection belongs to one); SSO_ALLOW_PRIVATE is
 * checked while SSO is off too, and refused in production, where an organization's administrator
 * could otherwise make the server call addresses of its own network.
 */
function sso(env: NodeJS.ProcessEnv, production: boolean): ExampleConfig["sso"] {
  const allowPrivateNetworks = flag(env, "SSO_ALLOW_PRIVATE", false);
  if (allowPrivateNetworks && production)
    throw new ConfigError("SSO_ALLOW_PRIVATE=true is for development only, not with NODE_ENV=production");
  if (!readSsoFlag(env)) return undefined;
  if (!flag(env, "ORGANIZATIONS", true))
    throw new ConfigError(
      "SSO=true needs organizations: every connection belongs to one (ORGANIZATIONS=false)",
    );
  return { allowPrivateNetworks };
}

/** OAUTH_PROVIDER alone (default off), for the UI's `/ui/config` (pages.ts), read as `readConfig` reads it. */
export function readOAuthProviderFlag(env: NodeJS.ProcessEnv = process.env): boolean {
  return flag(env, "OAUTH_PROVIDER", false);
}

/**
 * OAUTH_PROVIDER (default off), OAUTH_CLIENTS_FILE and OAUTH_DYNAMIC_REGISTRATION (default off).
 * The last two are read even while the provider is off, and refused then: a client file or
 * registration asked for would otherwise be silently ignored.
 */
function oauthProvider(env: NodeJS.ProcessEnv): ExampleConfig["oauthProvider"] {
  const clientsFile = env.OAUTH_CLIENTS_FILE?.trim() || undefined;
  const allowDynamicRegistration = flag(env, "OAUTH_DYNAMIC_REGISTRATION", false);
  if (readOAuthProviderFlag(env)) return { clientsFile, allowDynamicRegistration };
  if (clientsFile !== undefined || allowDynamicRegistration)
    throw new ConfigError("OAUTH_CLIENTS_FILE and OAUTH_DYNAMIC_REGISTRATION need OAUTH_PROVIDER=true");
  return undefined;
}
