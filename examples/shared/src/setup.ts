import {
  type Auth,
  type AuthStores,
  createAuth,
  createOutboxMailer,
  createSmtpMailer,
  type IdentityStore,
  type Mailer,
  type OAuthStore,
  type OutboxMailer,
  type SigningKeyStore,
} from "@portcullis/core";
import { createOAuthProvider, type OAuthClientInput } from "@portcullis/oauth-provider";
import { createSso, type SsoOptions } from "@portcullis/sso";
import { createMemoryStores } from "@portcullis/store-memory";
import { createRedisClient, createRedisStores } from "@portcullis/store-redis";
import type { ExampleCaptcha, ExampleConfig } from "./config.js";
import { ConfigError } from "./config.js";
import { type ExampleDatabase, openDatabase } from "./database.js";
import { EXAMPLE_SCOPES, readOAuthClientsFile } from "./oauth-clients.js";
import { readSeedFile, seedUsers } from "./seed.js";

export interface ExampleAuth {
  auth: Auth;
  /** createAuth's stores, and the OAuth provider's (`oauth`, `signingKeys`), used while OAUTH_PROVIDER is on. */
  stores: AuthStores & { identities: IdentityStore; oauth: OAuthStore; signingKeys: SigningKeyStore };
  /** The dev outbox, when it is on (no SMTP_URL, not production). */
  outbox: OutboxMailer | undefined;
  close(): void;
}

/** createAuth's option errors (e.g. a short AUTH_SECRET) come from the environment here: report them as such. */
function configured<T>(build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (error instanceof TypeError && error.message.startsWith("Invalid Portcullis option")) {
      throw new ConfigError(error.message, { cause: error });
    }
    throw error;
  }
}

/**
 * `mailer` and `email` for createAuth: email on with its mailer, or off (EMAIL_ENABLED=false, no
 * mailer needed). Email on without a mailer (production without SMTP_URL) is a configuration error.
 */
function emailOptions(config: ExampleConfig, mailer: Mailer | undefined) {
  const email = { cooldownSeconds: config.emailCooldownSeconds, loginAlerts: config.loginAlerts };
  if (!config.emailEnabled) return { mailer, email: { ...email, enabled: false as const } };
  if (!mailer) throw new ConfigError("SMTP_URL is required in production unless EMAIL_ENABLED=false");
  return { mailer, email: { ...email, enabled: true } };
}

/** `captcha` for createAuth: register, reset and sign-in requests, resends, and login after 3 failures. */
function captchaOptions({ provider, secret, verifyUrl }: ExampleCaptcha) {
  const on = {
    register: true,
    resetRequest: true,
    emailSignIn: true,
    verificationResend: true,
    loginAfterFailures: 3,
  };
  return { provider, secret, on, ...(verifyUrl ? { verifyUrl } : {}) };
}

type AuthOptions = Parameters<typeof createAuth>[0];
type RedisClient = ReturnType<typeof createRedisClient>;

/** REDIS_URL's client once it answers (a `ConfigError` after 5 s of silence), or none without REDIS_URL. */
async function connectRedis(config: ExampleConfig): Promise<RedisClient | undefined> {
  if (!config.redisUrl) return undefined;
  const redis = createRedisClient(config.redisUrl);
  const ready = new Promise((resolve) => redis.once("ready", resolve));
  const timeout = new Promise((_, reject) =>
    setTimeout(() => reject(new ConfigError(`Redis at REDIS_URL does not answer`)), 5_000).unref(),
  );
  await Promise.race([ready, timeout]).catch((error) => {
    redis.disconnect();
    throw error;
  });
  return redis;
}

/**
 * The stores createAuth works with: all of `base`'s (SQL's or memory's), or Redis's for all but
 * users, identity-provider links, passkeys and organizations when REDIS_URL is set.
 */
function exampleStores(
  config: ExampleConfig,
  base: ExampleDatabase["stores"] | ReturnType<typeof createMemoryStores>,
  redis: RedisClient | undefined,
) {
  // Identity-provider links, passkeys and organizations live with the users (SQL or memory), never in
  // Redis. API keys follow the sessions: Redis's `apiKeys` when REDIS_URL is set (one read per keyed request),
  // and so does the audit log (`auditLog`, docs/audit-log.md): Redis's, else SQL's or memory's. The
  // webhook endpoints and deliveries (`webhooks`, docs/webhooks.md) go where the audit log goes:
  // they read it as their outbox. The OAuth provider's state (`oauth`, `signingKeys`) follows the
  // API keys: Redis's with REDIS_URL, else SQL's or memory's. Enterprise sign-in's connections,
  // domains and used assertions (`sso`, docs/sso.md) are Redis's with REDIS_URL too (a replayed
  // assertion is refused across instances); its SCIM directories (`scim`) stay with the
  // organizations, as Redis has no SCIM store.
  return redis
    ? {
        users: base.users,
        identities: base.identities,
        ...createRedisStores({ client: redis, keyPrefix: config.redisKeyPrefix }),
        passkeys: base.passkeys,
        organizations: base.organizations,
        scim: base.scim,
      }
    : {
        users: base.users,
        cooldowns: base.cooldowns,
        sessions: base.sessions,
        allowlist: base.allowlist,
        singleUseTokens: base.singleUseTokens,
        identities: base.identities,
        activity: base.activity,
        passkeys: base.passkeys,
        organizations: base.organizations,
        apiKeys: base.apiKeys,
        auditLog: base.auditLog,
        webhooks: base.webhooks,
        // The OAuth provider's clients, grants and consents, and its signing keys (OAUTH_PROVIDER).
        oauth: base.oauth,
        signingKeys: base.signingKeys,
        // Enterprise sign-in (SSO): connections, domains, used assertions and SCIM directories.
        sso: base.sso,
        scim: base.scim,
        // The sessions and allowlist written together (and on SQL, read with the users): one round
        // trip per request, per sign-in's session and per refresh's rotation.
        joint: base.joint,
      };
}

/** SMTP when SMTP_URL is set, else the dev outbox when it is on: the mailer is the first of them. */
function exampleMailers(config: ExampleConfig) {
  const outbox = config.devOutbox ? createOutboxMailer() : undefined;
  const smtp = config.smtpUrl ? createSmtpMailer({ url: config.smtpUrl, from: config.emailFrom }) : undefined;
  const mailer: Mailer | undefined = smtp ?? outbox;
  return { outbox, smtp, mailer };
}

/** createAuth's options for requests, cookies and sessions. */
function sessionOptions(
  config: ExampleConfig,
): Pick<
  AuthOptions,
  | "allowHeaderAuthentication"
  | "preferHeaderAuthentication"
  | "cookies"
  | "trustProxy"
  | "accessTokenTtlSeconds"
  | "refreshReuseIntervalSeconds"
  | "idleTimeoutSeconds"
  | "absoluteLifetimeSeconds"
> {
  return {
    allowHeaderAuthentication: config.allowHeaderAuth,
    preferHeaderAuthentication: config.preferHeaderAuth,
    cookies: { secure: config.cookieSecure },
    trustProxy: config.trustProxy,
    accessTokenTtlSeconds: config.accessTokenTtlSeconds,
    refreshReuseIntervalSeconds: config.refreshReuseSeconds,
    // SESSION_IDLE_SECONDS, SESSION_MAX_SECONDS: unset keeps the library's defaults.
    ...(config.sessionIdleSeconds !== undefined ? { idleTimeoutSeconds: config.sessionIdleSeconds } : {}),
    ...(config.sessionMaxSeconds !== undefined ? { absoluteLifetimeSeconds: config.sessionMaxSeconds } : {}),
  };
}

/** createAuth's options for the ways to sign in: passwords, an identity provider, emailed links, passkeys. */
function signInOptions(
  config: ExampleConfig,
): Pick<AuthOptions, "breachedPasswords" | "identityProviders" | "emailSignIn" | "webauthn"> {
  return {
    // BREACHED_PASSWORDS_URL: the breached-password check, off unless set.
    ...(config.breachedPasswordsUrl
      ? {
          breachedPasswords: {
            rangeUrl: config.breachedPasswordsUrl,
            failClosed: config.breachedPasswordsFailClosed,
          },
        }
      : {}),
    // OIDC_ISSUER…: one provider named `oidc`; an http issuer is allowed only outside production.
    identityProviders: config.oidc
      ? [
          {
            type: "oidc",
            ...config.oidc,
            allowInsecureRequests: !config.production && config.oidc.issuer.startsWith("http:"),
            displayName: new URL(config.oidc.issuer).host,
          },
        ]
      : [],
    // EMAIL_SIGN_IN: the emailed link opens /sign-in/email (pages.ts), which signs in with a POST.
    emailSignIn: { enabled: config.emailSignIn },
    // PASSKEYS (on unless APP_ORIGIN cannot use them): the RP ID is APP_ORIGIN's host name.
    ...(config.passkeys
      ? { webauthn: { rpId: config.passkeys.rpId, origins: [config.passkeys.origin] } }
      : {}),
  };
}

/** createAuth's options for the features a host may turn off: back office, organizations, API keys, webhooks, CAPTCHA. */
function featureOptions(
  config: ExampleConfig,
): Pick<AuthOptions, "admin" | "organizations" | "apiKeys" | "webhooks" | "captcha"> {
  return {
    // ADMIN_EMAILS: the back office (docs/back-office.md) for these addresses, once verified.
    ...(config.adminEmails.length > 0
      ? {
          admin: {
            authorize: (_principal, user) => user.emailVerified && config.adminEmails.includes(user.email),
          },
        }
      : {}),
    // ORGANIZATIONS (on by default): the host's permissions and a plain member's.
    ...(config.organizations ? { organizations: config.organizations } : {}),
    // API_KEYS (on by default): keys of users and organizations for the host's routes.
    ...(config.apiKeys ? { apiKeys: {} } : {}),
    // WEBHOOKS (on by default): WEBHOOKS_ALLOW_PRIVATE lets endpoints use http and private
    // addresses (a receiver on this machine); WEBHOOK_RETRY_SCALE shortens the retry waits for tests.
    ...(config.webhooks ? { webhooks: config.webhooks } : {}),
    // CAPTCHA_PROVIDER…: the four routes bots push, and login after 3 failures.
    ...(config.captcha ? { captcha: captchaOptions(config.captcha) } : {}),
  };
}

/**
 * `oauthProvider` for createAuth (OAUTH_PROVIDER): the provider on the stores' `oauth` and
 * `signingKeys`, the clients of OAUTH_CLIENTS_FILE seeded at start, the example's API scope
 * `projects:read`, and RFC 7591 registration when OAUTH_DYNAMIC_REGISTRATION is on. Its pages
 * are the UI's: /login, /oauth/consent and /device.
 */
function oauthProviderOptions(
  config: ExampleConfig,
  stores: ReturnType<typeof exampleStores>,
  clients: OAuthClientInput[],
): Pick<AuthOptions, "oauthProvider"> {
  if (!config.oauthProvider) return {};
  const { allowDynamicRegistration } = config.oauthProvider;
  return {
    oauthProvider: createOAuthProvider({
      stores: { oauth: stores.oauth, signingKeys: stores.signingKeys },
      clients,
      scopes: [...EXAMPLE_SCOPES],
      allowDynamicRegistration,
    }),
  };
}

/**
 * `sso` for createAuth (SSO): `createSso` on the stores' `sso` and `scim`, OpenID Connect issuers
 * on http and private addresses with SSO_ALLOW_PRIVATE. `resolveTxt` replaces the DNS lookup of
 * the domains' verification records: the browser suite's published records (fixture.ts), never
 * a setting of the servers.
 */
function ssoOptions(
  config: ExampleConfig,
  stores: ReturnType<typeof exampleStores>,
  resolveTxt: SsoOptions["resolveTxt"],
): Pick<AuthOptions, "sso"> {
  if (!config.sso) return {};
  const { allowPrivateNetworks } = config.sso;
  return {
    sso: createSso({
      store: stores.sso,
      scim: stores.scim,
      allowPrivateNetworks,
      ...(resolveTxt ? { resolveTxt } : {}),
    }),
  };
}

/**
 * createAuth as both example servers configure it: memory stores; users, sessions, the
 * allowlist, single-use tokens, cooldowns, API keys, the audit log and webhooks in SQL when DATABASE_URL
 * is set (migrated at start); Redis for all of them but users when REDIS_URL is set (users then stay in
 * SQL, or in memory without DATABASE_URL); SMTP or the dev outbox; seeded from SEED_FILE; the OAuth
 * provider with OAUTH_PROVIDER, its clients from OAUTH_CLIENTS_FILE; enterprise sign-in with SSO.
 */
export async function createExampleAuth(
  config: ExampleConfig,
  extra: { passwordHasher?: AuthOptions["passwordHasher"]; resolveTxt?: SsoOptions["resolveTxt"] } = {},
): Promise<ExampleAuth> {
  // A bad client file stops the start before any connection is opened.
  const clientsFile = config.oauthProvider?.clientsFile;
  const clients = clientsFile ? await readOAuthClientsFile(clientsFile) : [];
  const memory = createMemoryStores();
  const redis = await connectRedis(config);
  const database = config.databaseUrl ? await openDatabase(config.databaseUrl) : undefined;
  const stores = exampleStores(config, database?.stores ?? memory, redis);
  const { outbox, smtp, mailer } = exampleMailers(config);
  const auth = configured(() =>
    createAuth({
      secret: config.secret,
      stores,
      appOrigin: config.appOrigin,
      ...emailOptions(config, mailer),
      ...sessionOptions(config),
      ...signInOptions(config),
      ...featureOptions(config),
      ...oauthProviderOptions(config, stores, clients),
      ...ssoOptions(config, stores, extra.resolveTxt),
      ...(extra.passwordHasher ? { passwordHasher: extra.passwordHasher } : {}),
    }),
  );
  if (config.seedFile) await seedUsers(stores.users, await readSeedFile(config.seedFile));
  await auth.ready();
  return {
    auth,
    stores,
    outbox,
    close() {
      memory.close();
      smtp?.close();
      // The webhook worker stops first: an attempt under way finishes before its stores close.
      void auth.webhooks.stop().finally(() => {
        redis?.disconnect();
        void database?.close();
      });
    },
  };
}
