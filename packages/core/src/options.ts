import { z } from "zod";
import { EMAIL_KINDS } from "./emails/templates.js";
import type { SecurityEvent } from "./events.js";
import type { LocaleResources } from "./i18n/index.js";
import { identityProvidersSchema } from "./identity/provider-options.js";
import type { Clock } from "./ports/clock.js";
import type { CooldownStore } from "./ports/cooldown-store.js";
import type { IdentityStore } from "./ports/identity-store.js";
import type { Logger } from "./ports/logger.js";
import type { EmailKind, Mailer } from "./ports/mailer.js";
import type { PasswordHasher } from "./ports/password-hasher.js";
import type { SessionStore } from "./ports/session-store.js";
import type { UserStore } from "./ports/user-store.js";
import { isWeakSecret, MIN_SECRET_BITS } from "./secret-strength.js";
import { toIssues } from "./validation.js";

const EMAIL_KIND_NAMES = EMAIL_KINDS as [EmailKind, ...EmailKind[]];

const port = <T>(name: string, methods: readonly string[]) =>
  z.custom<T>(
    (value) =>
      typeof value === "object" &&
      value !== null &&
      methods.every((method) => typeof (value as Record<string, unknown>)[method] === "function"),
    { message: `must be a ${name} with the methods ${methods.join(", ")}` },
  );

/** The methods each store port must have; `createAuth` checks them at start-up. */
export const STORE_METHODS = {
  users: ["findById", "findByEmail", "create", "update", "delete"],
  cooldowns: ["acquire", "remainingMs", "release", "hit", "refundHit", "clearHits"],
  sessions: [
    "createSession",
    "getSession",
    "listSessions",
    "rotateRefreshToken",
    "deleteSession",
    "deleteUserSessions",
    "findAllowedAccessToken",
    "saveToken",
    "consumeToken",
    "deleteUserTokens",
  ],
  identities: ["link", "findBySubject", "listByUser", "unlink"],
} as const;

const seconds = (fallback: number) =>
  z
    .number()
    .int()
    .positive()
    .max(10 * 365 * 24 * 3600)
    .default(fallback);

const secretBytes = (secret: string | Uint8Array) =>
  typeof secret === "string" ? new TextEncoder().encode(secret) : secret;

const oneSecret = z
  .union([z.string(), z.instanceof(Uint8Array)])
  .refine((secret) => secretBytes(secret).byteLength >= 32, {
    message: "must be at least 32 bytes (256 bits); generate one with `openssl rand -base64 48`",
  })
  .refine((secret) => !isWeakSecret(secret), {
    message: `is too predictable (more than ${MIN_SECRET_BITS} bits of entropy needed: repeats, sequences, keyboard walks and placeholder words count for little); generate one with \`openssl rand -base64 48\``,
  });

/** A secret, or a list of them for rotation: the first signs (and seals), every one verifies. */
const secretSchema = z
  .union([oneSecret, z.array(oneSecret).min(1).max(10)])
  .transform((value) => (Array.isArray(value) ? value : [value]));

/** A per-IP limit: at most `max` in `windowSeconds`. */
const ipLimit = (max: number, windowSeconds: number) =>
  z
    .object({
      max: z.number().int().min(1).max(1_000_000).default(max),
      windowSeconds: seconds(windowSeconds),
    })
    .prefault({});

const hexColor = z.string().regex(/^#[0-9a-fA-F]{3}([0-9a-fA-F]{3})?$/, "must be a hex colour like #4f46e5");
const pagePath = z.string().regex(/^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/, "must be a path starting with /");

/** A base URL as configured: `https://acme.test` or `https://acme.test/app` (no query, fragment or credentials). */
const originSchema = z.string().refine(
  (value) => {
    if (!URL.canParse(value)) return false;
    const url = new URL(value);
    return (
      (url.protocol === "http:" || url.protocol === "https:") &&
      url.search === "" &&
      url.hash === "" &&
      url.username === "" &&
      url.password === ""
    );
  },
  { message: "must be an http(s) URL like https://app.example.com, without query, fragment or credentials" },
);

export const authOptionsSchema = z
  .object({
    /**
     * The HMAC secret that signs access and step-up tokens: at least 32 bytes and more than 128
     * bits of estimated entropy (no placeholder, repeat or sequence; `estimateSecretBits`). A
     * list rotates keys: the first signs, every one verifies (tokens carry `kid`).
     */
    secret: secretSchema,
    /** The JWT `iss` of access and step-up tokens (checked on every verify). Default `portcullis`. */
    issuer: z.string().min(1).default("portcullis"),
    /** The JWT `aud` of access and step-up tokens (checked on every verify). Default `portcullis`. */
    audience: z.string().min(1).default("portcullis"),
    /** Where the adapters mount the routes. */
    basePath: z
      .string()
      .regex(/^\/[A-Za-z0-9._~\-/]*[A-Za-z0-9._~-]$/, "must start with / and not end with /")
      .default("/api/auth"),
    /** The ports: `createMemoryStores()`, `createRedisStores()` (with your users), `createSqlStores()` or your own. */
    stores: z.object({
      users: port<UserStore>("UserStore", STORE_METHODS.users),
      cooldowns: port<CooldownStore>("CooldownStore", STORE_METHODS.cooldowns),
      sessions: port<SessionStore>("SessionStore", STORE_METHODS.sessions),
      /** Links to identity providers; required only with `identityProviders`. */
      identities: port<IdentityStore>("IdentityStore", STORE_METHODS.identities).optional(),
    }),
    /** Sends rendered emails: `createSmtpMailer()`, `createOutboxMailer()` or your own. Required while `email.enabled`. */
    mailer: port<Mailer>("Mailer", ["send"]).optional(),
    /**
     * Makes the id of a new user (register, `admin.createUser`, identity-provider sign-ups); for
     * hosts whose users table has its own key format (a UUID, a number as text). Default: 128
     * random bits, base64url. Must return a string unique across users.
     */
    generateId: z
      .custom<() => string>((value) => typeof value === "function", { message: "must be a function" })
      .optional(),
    /** Default: argon2id with m=19456 KiB, t=2, p=1 (`createArgon2Hasher()`). */
    passwordHasher: port<PasswordHasher>("PasswordHasher", ["hash", "verify", "needsRehash"]).optional(),
    /** Default: the system clock. Tests pass a fake one. */
    clock: port<Clock>("Clock", ["now"]).optional(),
    /** A pino-compatible logger. Default: warnings and errors as JSON lines on stderr. */
    logger: port<Logger>("Logger", ["debug", "info", "warn", "error"]).optional(),
    /** Lifetime of an access token and its cookie, in seconds. Default 900. */
    accessTokenTtlSeconds: seconds(900),
    /** Idle lifetime of a session (each refresh extends it), in seconds. Default 30 days. */
    refreshTokenTtlSeconds: seconds(30 * 24 * 3600),
    /**
     * Password checks per normalized address (login and step-up share it; unknown addresses
     * alike, so it tells nothing): each is counted before it is checked. `freeAttempts` in
     * `windowSeconds`, then the address is locked for `baseLockSeconds`, and each lock lets one
     * attempt through when it ends, doubling up to `maxLockSeconds`. A right password clears it.
     */
    loginThrottle: z
      .object({
        /** Password checks of an address let through per window. Default 5. */
        freeAttempts: z.number().int().min(1).max(100).default(5),
        /** The first lock after the free attempts, in seconds; each later one doubles. Default 30. */
        baseLockSeconds: seconds(30),
        /** The longest lock, in seconds. Default 900. */
        maxLockSeconds: seconds(15 * 60),
        /** The counting window from the first attempt, in seconds. Default 3600. */
        windowSeconds: seconds(3600),
      })
      .prefault({}),
    /** Lifetime of the 2FA token between the password step and the second factor (at most 5 minutes). */
    twoFactorTokenTtlSeconds: z.number().int().min(30).max(300).default(300),
    /** Lifetime of a step-up token (and its cookie). */
    stepUpTokenTtlSeconds: z.number().int().min(30).max(3600).default(300),
    /** Two-factor authentication: encryption key, authenticator issuer name, code budget, emailed-code lifetime. */
    twoFactor: z
      .object({
        /**
         * Key material for encrypting TOTP secrets and keying recovery-code hashes (32+ bytes, or
         * a list: the first seals, every one opens). Default: `secret`, which then cannot be
         * rotated away without losing 2FA; set it explicitly in production.
         */
        encryptionKey: secretSchema.optional(),
        /** The issuer shown in authenticator apps; default: the email brand name. */
        issuer: z.string().min(1).max(100).optional(),
        /** Codes checked per account (counted before checking) before 2FA locks for `lockoutSeconds`. */
        maxFailedAttempts: z.number().int().min(1).max(100).default(5),
        /** How long 2FA stays locked once the code budget is spent, in seconds (also the counting window). Default 900. */
        lockoutSeconds: seconds(15 * 60),
        /** Lifetime of an emailed 2FA code. */
        emailCodeTtlSeconds: z.number().int().min(60).max(3600).default(600),
      })
      .prefault({}),
    /** Lifetime of a reset link, in seconds. Default 1800. */
    passwordResetTokenTtlSeconds: seconds(30 * 60),
    /** Lifetime of a verification link, in seconds. Default 86400. */
    emailVerificationTokenTtlSeconds: seconds(24 * 3600),
    /** Password length in code points after NFKC: default 8 to 256 (15 is recommended for password-only accounts). */
    password: z
      .object({
        /** The shortest password, in code points after NFKC. Default 8 (15 recommended without 2FA). */
        minLength: z.number().int().min(1).max(256).default(8),
        /** The longest password, in code points after NFKC. Default 256. */
        maxLength: z.number().int().min(64).max(4096).default(256),
      })
      .prefault({})
      .refine((p) => p.minLength <= p.maxLength, { message: "minLength must not exceed maxLength" }),
    /** Email behaviour: on or off, cooldown, login alerts, send timeout, brand, link pages, template overrides. */
    email: z
      .object({
        /** `false` turns email off: reset and verification answer 503 `EMAIL_DISABLED`, side-effect emails are skipped. Default true. */
        enabled: z.boolean().default(true),
        /** Cooldown per normalized address and kind after each email. */
        cooldownSeconds: seconds(60),
        /** An email after each sign-in (not the first one within 10 minutes of signing up). Default true. */
        loginAlerts: z.boolean().default(true),
        /** How long a send may take before it counts as failed (`EMAIL_SEND_FAILURE`). */
        sendTimeoutMs: z.number().int().min(100).max(120_000).default(15_000),
        brand: z
          .object({
            name: z.string().min(1).max(100).default("Portcullis"),
            primaryColor: hexColor.default("#4f46e5"),
            textColor: hexColor.default("#111827"),
            backgroundColor: hexColor.default("#f3f4f6"),
            logoUrl: z
              .url({ protocol: /^https?$/ })
              .nullable()
              .default(null),
          })
          .prefault({}),
        /** Frontend pages that email links open, as paths below `appOrigin`. */
        links: z
          .object({
            verifyEmail: pagePath.default("/verify-email"),
            resetPassword: pagePath.default("/reset-password"),
            forgotPassword: pagePath.default("/forgot-password"),
            signIn: pagePath.default("/login"),
            signUp: pagePath.default("/signup"),
            securitySettings: pagePath.default("/settings/security"),
          })
          .prefault({}),
        /** MJML sources replacing shipped templates, by email kind; same `{{slot}}` placeholders. */
        templates: z.partialRecord(z.enum(EMAIL_KIND_NAMES), z.string().min(1)).optional(),
      })
      .prefault({}),
    /** The frontend's base URL: every link in an email starts with it. */
    appOrigin: originSchema.optional(),
    /**
     * Where the API is served when it is not on `appOrigin`: the redirect URI registered at an
     * identity provider is `<apiOrigin or appOrigin><basePath>/oauth/<name>/callback`.
     */
    apiOrigin: originSchema.optional(),
    /**
     * Sign-in with identity providers (OpenID Connect by discovery, or the `google`, `entra`
     * and `github` presets); needs `stores.identities`, `appOrigin` and the `openid-client` package.
     */
    identityProviders: identityProvidersSchema,
    /**
     * Origins besides the request's own that may make state changes (POST, PUT, PATCH, DELETE)
     * under the prefix, whatever carries the credentials; defaults to `appOrigin`.
     */
    trustedOrigins: z.array(originSchema).optional(),
    /** Cookie attributes: `secure` (default false), `sameSite` (default strict), `hostPrefix` (needs secure). */
    cookies: z
      .object({
        /** The `Secure` attribute; turn it on in production (HTTPS). Default false. */
        secure: z.boolean().default(false),
        /** The `SameSite` attribute of the auth cookies. Default `strict`. */
        sameSite: z.enum(["strict", "lax", "none"]).default("strict"),
        /** Name cookies `__Host-…` (refresh: `__Secure-…`, as it is scoped to `basePath`). Requires `secure`. */
        hostPrefix: z.boolean().default(false),
      })
      .prefault({})
      .refine((c) => !c.hostPrefix || c.secure, {
        message: "hostPrefix requires secure: true",
        path: ["hostPrefix"],
      })
      .refine((c) => c.sameSite !== "none" || c.secure, {
        message: "sameSite 'none' requires secure: true",
        path: ["sameSite"],
      }),
    /**
     * How many reverse proxies in front of the app are trusted: the client IP is then read that
     * many entries from the right of `X-Forwarded-For`, and the scheme from `X-Forwarded-Proto`.
     * 0 (default): the socket's address and the adapter's scheme.
     */
    trustProxy: z.number().int().min(0).max(10).default(0),
    /**
     * Limits per client IP (loopback clients are exempt): failed logins (`LOGIN_THROTTLED`), wrong
     * 2FA codes (`TWO_FACTOR_THROTTLED`), registrations, reset requests, verification sends and
     * invalid reset/verification tokens (`RATE_LIMITED`).
     */
    ipLimits: z
      .object({
        /** `false` turns every per-IP limit off. Default true. */
        enabled: z.boolean().default(true),
        failedLogins: ipLimit(100, 15 * 60),
        wrongTwoFactorCodes: ipLimit(50, 15 * 60),
        registrations: ipLimit(20, 3600),
        passwordResetRequests: ipLimit(20, 3600),
        verificationSends: ipLimit(20, 3600),
        invalidTokens: ipLimit(50, 15 * 60),
      })
      .prefault({}),
    /**
     * Called with every security event (sign-ins, failures, throttling, resets, token reuse,
     * revocations); never with a secret. Not awaited: errors are logged, never fail a request.
     */
    onEvent: z
      .custom<(event: SecurityEvent) => void | Promise<void>>((value) => typeof value === "function", {
        message: "must be a function",
      })
      .optional(),
    /** Accept tokens in headers (`Authorization`, `X-Two-Factor-Authentication-Token`, `X-Step-Up-Token`) and return them in bodies. Default true. */
    allowHeaderAuthentication: z.boolean().default(true),
    /** When a header and a cookie both carry a token, the header alone decides. Default true. */
    preferHeaderAuthentication: z.boolean().default(true),
    /** Larger request bodies are 413 `PAYLOAD_TOO_LARGE`. Default 16 KiB. */
    bodyLimitBytes: z
      .number()
      .int()
      .min(1024)
      .max(1024 * 1024)
      .default(16 * 1024),
    /** The locale of emails and messages when a request names none we have. Default `en`. */
    defaultLocale: z.string().min(2).default("en"),
    /** More locales, or string overrides of shipped ones: `{ fr: { errors: { … } } }`. */
    locales: z.record(z.string().min(2), z.record(z.string(), z.unknown())).optional(),
  })
  .refine((o) => !o.email.enabled || o.mailer !== undefined, {
    message: "is required while email.enabled is true (or set email.enabled: false)",
    path: ["mailer"],
  })
  .refine((o) => !o.email.enabled || o.appOrigin !== undefined, {
    message: "is required while email.enabled is true: email links are built from it, never from requests",
    path: ["appOrigin"],
  })
  .refine((o) => o.identityProviders.length === 0 || o.stores.identities !== undefined, {
    message: "is required while identityProviders are configured (an IdentityStore keeps the links)",
    path: ["stores", "identities"],
  })
  .refine((o) => o.identityProviders.length === 0 || o.appOrigin !== undefined, {
    message:
      "is required while identityProviders are configured: redirects go to it, never to request headers",
    path: ["appOrigin"],
  });

/** What `createAuth` accepts. */
export type AuthOptions = z.input<typeof authOptionsSchema> & { locales?: LocaleResources };
/** The options after validation, with every default filled in. */
export type ResolvedAuthOptions = z.output<typeof authOptionsSchema>;

/** Validates options once at start-up; a bad option throws naming the option. */
export function parseAuthOptions(options: AuthOptions): ResolvedAuthOptions {
  const result = authOptionsSchema.safeParse(options);
  if (result.success) return result.data;
  const details = toIssues(result.error, "(options)").map(({ path, message }) => `"${path}" ${message}`);
  throw new TypeError(`Invalid Portcullis option ${details.join("; ")}`);
}
