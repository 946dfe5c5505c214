/**
 * Every stable error code of docs/errors.md. The code is part of the public API: it never
 * changes with the locale, and `STATUS_BY_CODE` below maps it to the HTTP status (also `AuthError.status`).
 */
export const ERROR_CODES = [
  "EMAIL_ALREADY_VERIFIED",
  "VALIDATION_FAILED",
  "PASSWORD_POLICY_VIOLATION",
  "TWO_FACTOR_DISABLED",
  "TWO_FACTOR_CODE_MISSING",
  "ACCESS_TOKEN_EXPIRED",
  "ACCESS_TOKEN_INVALID",
  "AUTHENTICATION_REQUIRED",
  "INVALID_CREDENTIALS",
  "REFRESH_TOKEN_INVALID",
  "TWO_FACTOR_TOKEN_INVALID",
  "WRONG_TWO_FACTOR_CODE",
  "PASSWORD_RESET_TOKEN_INVALID",
  "PASSWORD_RESET_TOKEN_EXPIRED",
  "EMAIL_VERIFICATION_TOKEN_INVALID",
  "EMAIL_VERIFICATION_TOKEN_EXPIRED",
  "STEP_UP_REQUIRED",
  "SESSION_EXPIRED",
  "CSRF_REJECTED",
  "USER_NOT_FOUND",
  "NOT_FOUND",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "EMAIL_COOLDOWN_ACTIVE",
  "LOGIN_THROTTLED",
  "TWO_FACTOR_THROTTLED",
  "RATE_LIMITED",
  "EMAIL_NOT_VERIFIED",
  "ACCESS_TOKEN_ALLOWLIST_READING_FAILURE",
  "DATABASE_FAILURE",
  "DATABASE_ENCRYPTION_FAILURE",
  "EMAIL_COOLDOWN_CACHE_FAILURE",
  "EMAIL_AUTHENTICATION_FAILURE",
  "EMAIL_VERIFICATION_TOKEN_CREATION_FAILURE",
  "EMAIL_SEND_FAILURE",
  "EMAIL_TEMPLATE_FAILURE",
  "INTERNAL_ERROR",
  "EMAIL_DISABLED",
  "IDENTITY_PROVIDER_STATE_INVALID",
  "IDENTITY_PROVIDER_REJECTED",
  "IDENTITY_PROVIDER_MISMATCH",
  "IDENTITY_PROVIDER_EMAIL_NOT_VERIFIED",
  "IDENTITY_PROVIDER_ACCOUNT_EXISTS",
  "IDENTITY_PROVIDER_ALREADY_LINKED",
  "IDENTITY_PROVIDER_LAST_METHOD",
  "IDENTITY_PROVIDER_FAILURE",
  "PASSWORD_BREACHED",
  "BREACHED_PASSWORD_CHECK_FAILURE",
  "EMAIL_SIGN_IN_INVALID",
  "EMAIL_SIGN_IN_THROTTLED",
  "PASSWORD_NOT_SET",
  "EMAIL_CHANGE_TOKEN_INVALID",
  "EMAIL_ADDRESS_TAKEN",
  "ACCOUNT_LOCKED",
  "ADMIN_REQUIRED",
  "PASSWORD_CHANGE_REQUIRED",
  "PASSWORD_CHANGE_TOKEN_INVALID",
  "IMPERSONATION_NOT_ALLOWED",
  "LAST_SIGN_IN_METHOD",
  "PASSKEY_VERIFICATION_FAILED",
  "PASSKEY_CHALLENGE_INVALID",
  "PASSKEY_CHALLENGE_EXPIRED",
  "PASSKEY_UNKNOWN",
  "PASSKEY_ALREADY_REGISTERED",
  "PERMISSION_DENIED",
  "NO_ACTIVE_ORGANIZATION",
  "INVITATION_INVALID",
  "INVITATION_EMAIL_MISMATCH",
  "ORGANIZATION_SLUG_TAKEN",
  "LAST_OWNER",
  "ROLE_IN_USE",
  "ALREADY_MEMBER",
  "ORGANIZATION_NOT_FOUND",
  "ORGANIZATION_LIMIT_REACHED",
  "CAPTCHA_REQUIRED",
  "CAPTCHA_INVALID",
  "API_KEY_INVALID",
  "API_KEY_NOT_ALLOWED",
  "API_KEY_RATE_LIMITED",
  "API_KEY_LIMIT_REACHED",
  "WEBHOOK_LIMIT_REACHED",
  "SSO_REQUIRED",
  "SSO_DOMAIN_NOT_VERIFIED",
  "SSO_ASSERTION_INVALID",
  "SSO_DOMAIN_TAKEN",
  "SSO_DOMAIN_CHECK_FAILED",
  "SSO_USER_DEACTIVATED",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * The one table that maps every error code to its HTTP status (docs/errors.md). It lives here,
 * beside the codes, so that `AuthError.status` can read it; the HTTP layer (`http/status.ts`)
 * answers with the same table.
 */
export const STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = {
  EMAIL_ALREADY_VERIFIED: 304,
  VALIDATION_FAILED: 400,
  PASSWORD_POLICY_VIOLATION: 400,
  TWO_FACTOR_DISABLED: 400,
  TWO_FACTOR_CODE_MISSING: 400,
  ACCESS_TOKEN_EXPIRED: 401,
  ACCESS_TOKEN_INVALID: 401,
  AUTHENTICATION_REQUIRED: 401,
  INVALID_CREDENTIALS: 401,
  REFRESH_TOKEN_INVALID: 401,
  TWO_FACTOR_TOKEN_INVALID: 401,
  WRONG_TWO_FACTOR_CODE: 401,
  PASSWORD_RESET_TOKEN_INVALID: 401,
  PASSWORD_RESET_TOKEN_EXPIRED: 401,
  EMAIL_VERIFICATION_TOKEN_INVALID: 401,
  EMAIL_VERIFICATION_TOKEN_EXPIRED: 401,
  STEP_UP_REQUIRED: 401,
  SESSION_EXPIRED: 401,
  CSRF_REJECTED: 403,
  EMAIL_NOT_VERIFIED: 403,
  USER_NOT_FOUND: 404,
  NOT_FOUND: 404,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  EMAIL_COOLDOWN_ACTIVE: 429,
  LOGIN_THROTTLED: 429,
  TWO_FACTOR_THROTTLED: 429,
  RATE_LIMITED: 429,
  ACCESS_TOKEN_ALLOWLIST_READING_FAILURE: 500,
  DATABASE_FAILURE: 500,
  DATABASE_ENCRYPTION_FAILURE: 500,
  EMAIL_COOLDOWN_CACHE_FAILURE: 500,
  EMAIL_AUTHENTICATION_FAILURE: 500,
  EMAIL_VERIFICATION_TOKEN_CREATION_FAILURE: 500,
  EMAIL_SEND_FAILURE: 500,
  EMAIL_TEMPLATE_FAILURE: 500,
  INTERNAL_ERROR: 500,
  EMAIL_DISABLED: 503,
  IDENTITY_PROVIDER_STATE_INVALID: 401,
  IDENTITY_PROVIDER_REJECTED: 401,
  IDENTITY_PROVIDER_MISMATCH: 401,
  IDENTITY_PROVIDER_EMAIL_NOT_VERIFIED: 403,
  IDENTITY_PROVIDER_ACCOUNT_EXISTS: 409,
  IDENTITY_PROVIDER_ALREADY_LINKED: 409,
  IDENTITY_PROVIDER_LAST_METHOD: 409,
  IDENTITY_PROVIDER_FAILURE: 502,
  PASSWORD_BREACHED: 400,
  BREACHED_PASSWORD_CHECK_FAILURE: 503,
  EMAIL_SIGN_IN_INVALID: 401,
  EMAIL_SIGN_IN_THROTTLED: 429,
  PASSWORD_NOT_SET: 400,
  EMAIL_CHANGE_TOKEN_INVALID: 401,
  EMAIL_ADDRESS_TAKEN: 409,
  ACCOUNT_LOCKED: 403,
  ADMIN_REQUIRED: 403,
  PASSWORD_CHANGE_REQUIRED: 403,
  PASSWORD_CHANGE_TOKEN_INVALID: 401,
  IMPERSONATION_NOT_ALLOWED: 403,
  LAST_SIGN_IN_METHOD: 409,
  PASSKEY_VERIFICATION_FAILED: 400,
  PASSKEY_CHALLENGE_INVALID: 400,
  PASSKEY_CHALLENGE_EXPIRED: 400,
  PASSKEY_UNKNOWN: 401,
  PASSKEY_ALREADY_REGISTERED: 409,
  PERMISSION_DENIED: 403,
  NO_ACTIVE_ORGANIZATION: 403,
  INVITATION_INVALID: 400,
  INVITATION_EMAIL_MISMATCH: 403,
  ORGANIZATION_SLUG_TAKEN: 409,
  LAST_OWNER: 409,
  ROLE_IN_USE: 409,
  ALREADY_MEMBER: 409,
  ORGANIZATION_NOT_FOUND: 404,
  ORGANIZATION_LIMIT_REACHED: 409,
  CAPTCHA_REQUIRED: 400,
  CAPTCHA_INVALID: 400,
  API_KEY_INVALID: 401,
  API_KEY_NOT_ALLOWED: 403,
  API_KEY_RATE_LIMITED: 429,
  API_KEY_LIMIT_REACHED: 409,
  WEBHOOK_LIMIT_REACHED: 409,
  SSO_REQUIRED: 403,
  SSO_DOMAIN_NOT_VERIFIED: 403,
  SSO_ASSERTION_INVALID: 401,
  SSO_DOMAIN_TAKEN: 409,
  SSO_DOMAIN_CHECK_FAILED: 409,
  SSO_USER_DEACTIVATED: 403,
};

/** The HTTP status of an error code, from `STATUS_BY_CODE`. */
export function statusForCode(code: ErrorCode): number {
  return STATUS_BY_CODE[code];
}

/** The 500 codes: they end in `_FAILURE`, plus `INTERNAL_ERROR`. */
const isFailureCode = (code: ErrorCode) => code.endsWith("_FAILURE") || code === "INTERNAL_ERROR";

/** One detail of a `VALIDATION_FAILED` error: where in the input, and what was wrong. */
export interface ValidationIssue {
  path: string;
  /** In English; an HTTP answer says it in the request's locale when `rule` is set. */
  message: string;
  /**
   * Which rule failed (the field error's stable `code` in an HTTP answer, e.g. `required`): the
   * message's i18next key is `fieldErrors.<rule>`, filled with `values`.
   */
  rule?: string;
  values?: Record<string, string | number>;
}

/**
 * The base of every expected failure. `code` is stable; `status` is the HTTP status the HTTP
 * layer answers it with; `cause` (when set) is the underlying error, kept for logs and never
 * sent to a client.
 */
export class AuthError<C extends ErrorCode = ErrorCode> extends Error {
  // `name` lives on each class's prototype and the other fields are only declared here: class
  // fields are defined on every instance one by one, a cost each 429 of a cooldown paid.
  declare readonly name: string;
  declare readonly code: C;

  constructor(code: C, options?: { cause?: unknown; message?: string }) {
    // An answer about the caller's input (a 4xx, e.g. every 429 of a cooldown) is control flow:
    // its stack is never logged, and capturing one was the largest single cost of a 429 in the
    // bench profile. Failures of the machinery keep theirs for the logs.
    const stackTraceLimit = Error.stackTraceLimit;
    if (!isFailureCode(code)) Error.stackTraceLimit = 0;
    try {
      super(options?.message ?? code, options?.cause === undefined ? undefined : { cause: options.cause });
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    this.code = code;
  }

  /** The HTTP status an answer with this error carries (`STATUS_BY_CODE`), e.g. 429 for `LOGIN_THROTTLED`. */
  get status(): number {
    return STATUS_BY_CODE[this.code];
  }
}

/** The codes a `ValidationError` carries. */
export type ValidationCode = "VALIDATION_FAILED" | "PASSWORD_POLICY_VIOLATION" | "PASSWORD_BREACHED";
/** The codes a `CooldownError` carries. */
export type CooldownCode =
  | "EMAIL_COOLDOWN_ACTIVE"
  | "LOGIN_THROTTLED"
  | "TWO_FACTOR_THROTTLED"
  | "RATE_LIMITED"
  | "EMAIL_SIGN_IN_THROTTLED"
  | "API_KEY_RATE_LIMITED";

/** Bad input: carries the list of what was wrong (sent as `errors` in the body). */
export class ValidationError extends AuthError<ValidationCode> {
  declare readonly issues: readonly ValidationIssue[];

  constructor(issues: readonly ValidationIssue[], code: ValidationCode = "VALIDATION_FAILED") {
    super(code);
    this.issues = issues;
  }
}

/** Whole seconds, rounded up, as the contract's `cooldown`, `remaining` and `Retry-After` carry them. */
export const wholeSeconds = (ms: number) => Math.ceil(ms / 1000);

/** A cooldown (email, throttling) is running: carries the whole seconds left. */
export class CooldownError extends AuthError<CooldownCode> {
  declare readonly remainingSeconds: number;

  constructor(code: CooldownCode, remainingSeconds: number) {
    super(code);
    this.remainingSeconds = remainingSeconds;
  }
}

/** The error a port call's failure becomes: the port's own `AuthError` unchanged, else `code` with the failure as `cause`. */
export function portFailure(code: ErrorCode, error: unknown): AuthError {
  return error instanceof AuthError ? error : new AuthError(code, { cause: error });
}

/**
 * A password sign-in whose account must set a new password first (`admin.requirePasswordChange`):
 * carries the single-use token that `completeRequiredPasswordChange` takes with the new password
 * (sent as `passwordChangeToken` in the 403 body).
 */
export class PasswordChangeRequiredError extends AuthError<"PASSWORD_CHANGE_REQUIRED"> {
  declare readonly passwordChangeToken: string;

  constructor(passwordChangeToken: string) {
    super("PASSWORD_CHANGE_REQUIRED");
    this.passwordChangeToken = passwordChangeToken;
  }
}

for (const [type, name] of [
  [AuthError, "AuthError"],
  [ValidationError, "ValidationError"],
  [CooldownError, "CooldownError"],
  [PasswordChangeRequiredError, "PasswordChangeRequiredError"],
] as const) {
  Object.defineProperty(type.prototype, "name", { value: name, writable: true, configurable: true });
}

/**
 * A failure of the machinery (a store, the mailer, encryption, a bug) rather than an answer about
 * the caller's input: every 500 code (they end in `_FAILURE`, plus `INTERNAL_ERROR`) and anything
 * that is not an `AuthError`. After one, a consumed single-use token is given back.
 */
export function isInfrastructureFailure(error: unknown): boolean {
  return !(error instanceof AuthError) || isFailureCode(error.code);
}

/** Which class an error of each code is: `CooldownError` and `ValidationError` carry more data. */
export type ErrorClassByCode = {
  [C in ErrorCode]: C extends CooldownCode
    ? CooldownError
    : C extends ValidationCode
      ? ValidationError
      : C extends "PASSWORD_CHANGE_REQUIRED"
        ? PasswordChangeRequiredError
        : AuthError<C>;
};

/**
 * Any error Portcullis throws on purpose, as a union discriminated by `code`: after
 * `isAuthError(e) && e.code === "LOGIN_THROTTLED"`, `e.remainingSeconds` type-checks.
 */
export type PortcullisError = ErrorClassByCode[ErrorCode];

export function isAuthError(value: unknown): value is PortcullisError {
  return value instanceof AuthError;
}

/**
 * Runs a port call and turns any failure into an `AuthError` with the port's code, keeping the
 * original error as `cause`. An `AuthError` thrown by the port itself passes through unchanged.
 */
export async function guardPort<T>(code: ErrorCode, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof AuthError) throw error;
    throw new AuthError(code, { cause: error });
  }
}
