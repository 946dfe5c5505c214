import { z } from "zod";
import { EMAIL_KINDS } from "./emails/templates.js";
import type { LocaleResources } from "./i18n/index.js";
import type { Clock } from "./ports/clock.js";
import type { CooldownStore } from "./ports/cooldown-store.js";
import type { Logger } from "./ports/logger.js";
import type { EmailKind, Mailer } from "./ports/mailer.js";
import type { PasswordHasher } from "./ports/password-hasher.js";
import type { SessionStore } from "./ports/session-store.js";
import type { UserStore } from "./ports/user-store.js";

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
  users: ["findById", "findByEmail", "create", "update"],
  cooldowns: ["acquire", "remainingMs", "release", "increment", "count", "resetCount"],
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
} as const;

const seconds = (fallback: number) =>
  z
    .number()
    .int()
    .positive()
    .max(10 * 365 * 24 * 3600)
    .default(fallback);

const secretSchema = z
  .union([z.string(), z.instanceof(Uint8Array)])
  .refine(
    (secret) => (typeof secret === "string" ? Buffer.byteLength(secret, "utf8") : secret.byteLength) >= 32,
    { message: "must be at least 32 bytes (256 bits); generate one with `openssl rand -base64 48`" },
  );

const hexColor = z.string().regex(/^#[0-9a-fA-F]{3}([0-9a-fA-F]{3})?$/, "must be a hex colour like #4f46e5");
const pagePath = z.string().regex(/^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/, "must be a path starting with /");

const originSchema = z.url().refine((value) => {
  const url = new URL(value);
  return (url.protocol === "http:" || url.protocol === "https:") && url.search === "" && url.hash === "";
}, "must be an http(s) URL without query or fragment");

export const authOptionsSchema = z
  .object({
    /** The HMAC secret that signs access tokens: at least 32 bytes. */
    secret: secretSchema,
    issuer: z.string().min(1).default("portcullis"),
    audience: z.string().min(1).default("portcullis"),
    /** Where the adapters mount the routes. */
    basePath: z
      .string()
      .regex(/^\/[A-Za-z0-9._~\-/]*[A-Za-z0-9._~-]$/, "must start with / and not end with /")
      .default("/api/auth"),
    stores: z.object({
      users: port<UserStore>("UserStore", STORE_METHODS.users),
      cooldowns: port<CooldownStore>("CooldownStore", STORE_METHODS.cooldowns),
      sessions: port<SessionStore>("SessionStore", STORE_METHODS.sessions),
    }),
    mailer: port<Mailer>("Mailer", ["send"]).optional(),
    passwordHasher: port<PasswordHasher>("PasswordHasher", ["hash", "verify", "needsRehash"]).optional(),
    clock: port<Clock>("Clock", ["now"]).optional(),
    logger: port<Logger>("Logger", ["debug", "info", "warn", "error"]).optional(),
    accessTokenTtlSeconds: seconds(900),
    refreshTokenTtlSeconds: seconds(30 * 24 * 3600),
    /**
     * Failed-login throttling per normalized address (unknown addresses alike, so it tells
     * nothing): after `freeAttempts` failures each further one locks the address for
     * `baseLockSeconds`, doubling up to `maxLockSeconds`. Failures are forgotten after `windowSeconds`.
     */
    loginThrottle: z
      .object({
        freeAttempts: z.number().int().min(1).max(100).default(5),
        baseLockSeconds: seconds(30),
        maxLockSeconds: seconds(15 * 60),
        windowSeconds: seconds(3600),
      })
      .prefault({}),
    /** Lifetime of the 2FA token between the password step and the second factor (at most 5 minutes). */
    twoFactorTokenTtlSeconds: z.number().int().min(30).max(300).default(300),
    /** Lifetime of a step-up token (and its cookie). */
    stepUpTokenTtlSeconds: z.number().int().min(30).max(3600).default(300),
    twoFactor: z
      .object({
        /** Key material for encrypting TOTP secrets at rest (32+ bytes); default: derived from `secret`. */
        encryptionKey: secretSchema.optional(),
        /** The issuer shown in authenticator apps; default: the email brand name. */
        issuer: z.string().min(1).max(100).optional(),
        /** Wrong codes per account before it is locked for `lockoutSeconds`. */
        maxFailedAttempts: z.number().int().min(1).max(100).default(5),
        lockoutSeconds: seconds(15 * 60),
        /** Lifetime of an emailed 2FA code. */
        emailCodeTtlSeconds: z.number().int().min(60).max(3600).default(600),
      })
      .prefault({}),
    passwordResetTokenTtlSeconds: seconds(30 * 60),
    emailVerificationTokenTtlSeconds: seconds(24 * 3600),
    password: z
      .object({
        minLength: z.number().int().min(1).max(256).default(8),
        maxLength: z.number().int().min(64).max(4096).default(256),
      })
      .prefault({})
      .refine((p) => p.minLength <= p.maxLength, { message: "minLength must not exceed maxLength" }),
    email: z
      .object({
        enabled: z.boolean().default(true),
        /** Cooldown per normalized address and kind after each email. */
        cooldownSeconds: seconds(60),
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
    /** Origins allowed to make cookie-authenticated state changes; defaults to `appOrigin`. */
    trustedOrigins: z.array(originSchema).optional(),
    cookies: z
      .object({
        secure: z.boolean().default(false),
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
    allowHeaderAuthentication: z.boolean().default(true),
    preferHeaderAuthentication: z.boolean().default(true),
    bodyLimitBytes: z
      .number()
      .int()
      .min(1024)
      .max(1024 * 1024)
      .default(16 * 1024),
    defaultLocale: z.string().min(2).default("en"),
    locales: z.record(z.string().min(2), z.record(z.string(), z.unknown())).optional(),
  })
  .refine((o) => !o.email.enabled || o.mailer !== undefined, {
    message: "is required while email.enabled is true (or set email.enabled: false)",
    path: ["mailer"],
  })
  .refine((o) => !o.email.enabled || o.appOrigin !== undefined, {
    message: "is required while email.enabled is true: email links are built from it, never from requests",
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
  const details = result.error.issues.map((issue) => {
    const path = issue.path.map(String).join(".") || "(options)";
    return `"${path}" ${issue.message}`;
  });
  throw new TypeError(`Invalid Portcullis option ${details.join("; ")}`);
}
