import { z } from "zod";

/** The siteverify services the core can ask by name. */
export const CAPTCHA_PROVIDERS = ["turnstile", "hcaptcha", "recaptcha"] as const;

/** One of `CAPTCHA_PROVIDERS`. */
export type CaptchaProviderName = (typeof CAPTCHA_PROVIDERS)[number];

/** Each named provider's siteverify endpoint (a form-encoded POST answered with JSON `success`). */
export const SITEVERIFY_URLS: Readonly<Record<CaptchaProviderName, string>> = {
  turnstile: "https://challenges.cloudflare.com/turnstile/v0/siteverify",
  hcaptcha: "https://api.hcaptcha.com/siteverify",
  recaptcha: "https://www.google.com/recaptcha/api/siteverify",
};

/**
 * A CAPTCHA service of the host's choosing. `verify` answers whether the token a widget produced
 * is good (`false` refuses it with 400 `CAPTCHA_INVALID`); a rejection means the service could not
 * answer, which refuses too unless `captcha.failOpen` is true. It must not block the event loop.
 */
export interface CaptchaVerifier {
  verify(token: string, context: { ip?: string | undefined }): Promise<boolean>;
}

/** The routes that can want a CAPTCHA token (`captcha.on`). */
export interface CaptchaRoutesOptions {
  /** `POST /register`. Default false. */
  register?: boolean;
  /** `POST /password/reset-request`. Default false. */
  resetRequest?: boolean;
  /** `POST /email-sign-in/request`. Default false. */
  emailSignIn?: boolean;
  /** `POST /email/verification/send`. Default false. */
  verificationResend?: boolean;
  /**
   * `POST /login` asks for a token once the address or the client's IP has this many failed
   * logins in the login throttle's window (0: every login). Unset: login never asks.
   */
  loginAfterFailures?: number;
}

/**
 * A CAPTCHA on the routes bots push (`captcha`): the token comes as `captchaToken` in the JSON
 * body or the `X-Captcha-Token` header and is checked before the route does anything else.
 */
export interface CaptchaOptions {
  /** A named provider (its siteverify is asked with `secret`) or the host's own `CaptchaVerifier`. */
  provider: CaptchaProviderName | CaptchaVerifier;
  /** The provider's secret key; required with a named provider. */
  secret?: string;
  /** Overrides the named provider's siteverify URL (a proxy, a test stand-in). */
  verifyUrl?: string;
  /** How long one check may take, in milliseconds (100 to 30000). Default 3000. */
  timeoutMs?: number;
  /**
   * When the provider cannot be reached, is too slow or answers something unreadable: false
   * (default) refuses with 400 `CAPTCHA_INVALID`, true lets the request through. Logged either way.
   */
  failOpen?: boolean;
  /** Which routes want a token. */
  on: CaptchaRoutesOptions;
}

const isVerifier = (value: unknown): value is CaptchaVerifier =>
  typeof value === "object" && value !== null && typeof (value as CaptchaVerifier).verify === "function";

/** The `captcha` option's schema: defaults filled in, a named provider needs its secret. */
export const captchaOptionsSchema = z
  .object({
    provider: z.union([
      z.enum(CAPTCHA_PROVIDERS),
      z.custom<CaptchaVerifier>(isVerifier, { message: "must be a provider name or have verify()" }),
    ]),
    secret: z.string().min(1).optional(),
    verifyUrl: z.url({ protocol: /^https?$/ }).optional(),
    timeoutMs: z.number().int().min(100).max(30_000).default(3000),
    failOpen: z.boolean().default(false),
    on: z
      .object({
        register: z.boolean().default(false),
        resetRequest: z.boolean().default(false),
        emailSignIn: z.boolean().default(false),
        verificationResend: z.boolean().default(false),
        loginAfterFailures: z.number().int().min(0).max(1000).optional(),
      })
      .strict(),
  })
  .refine((c) => typeof c.provider !== "string" || c.secret !== undefined, {
    message: "is required with a named provider",
    path: ["secret"],
  })
  .optional();

/** The `captcha` option after validation. */
export type ResolvedCaptchaOptions = NonNullable<z.output<typeof captchaOptionsSchema>>;
