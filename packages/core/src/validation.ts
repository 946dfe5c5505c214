import { z } from "zod";
import { AuthError, ValidationError, type ValidationIssue } from "./errors.js";
import { en } from "./i18n/en.js";
import { boundedMemo } from "./support/bounded-memo.js";
import { isValidEmail, MAX_EMAIL_LENGTH, normalizeEmail } from "./support/email-address.js";

/** No control or format characters (CR/LF, NUL, bidi overrides) in short text fields. */
const PLAIN_TEXT = /^[^\p{Cc}\p{Cf}]*$/u;

/** The longest address the email field takes as typed (before normalizing). */
const MAX_TYPED_EMAIL = 320;
/**
 * `normalizeEmail` and `isValidEmail` remembered for 10,000 addresses each (LRUs), so
 * a flood of requests for one address (a reset or a login under attack) pays for NFKC, IDNA and
 * the address rules once. Only strings that can be valid are kept (at most 320 characters typed,
 * 254 normalized; NFKC can make a typed string 18 times longer, and those are computed each time),
 * so the memos hold at most ~17 MB even of two-byte strings.
 */
const rememberedNormalize = boundedMemo(10_000, (typed: string): string | null => {
  const normalized = normalizeEmail(typed);
  return normalized.length <= MAX_EMAIL_LENGTH ? normalized : null;
});
const rememberedValid = boundedMemo(10_000, isValidEmail);

export const emailField = z
  .string()
  .min(1)
  .max(MAX_TYPED_EMAIL)
  // zod runs the transform only once `max` has passed, so no key is longer than 320 characters.
  .transform((typed) => rememberedNormalize(typed) ?? normalizeEmail(typed))
  .refine((normalized) => normalized.length <= MAX_EMAIL_LENGTH && rememberedValid(normalized), {
    params: { rule: "invalid_email" },
  });

/** A password as typed; length and blocklist rules are checked separately (PASSWORD_POLICY_VIOLATION). */
export const passwordField = z.string().min(1).max(4096);

export const sessionField = z
  .object({
    browser: z.string().max(100).regex(PLAIN_TEXT).optional(),
    os: z.string().max(100).regex(PLAIN_TEXT).optional(),
  })
  .optional();

/**
 * The CAPTCHA token of a route the `captcha` option protects, in the body (or `X-Captcha-Token`):
 * read by the HTTP layer into the call, accepted here so the body's schema names it.
 */
export const captchaTokenField = z.string().min(1).max(4096).optional();

export const registerInput = z.object({
  email: emailField,
  password: passwordField,
  name: z.string().trim().min(1).max(100).regex(PLAIN_TEXT).optional(),
  captchaToken: captchaTokenField,
});

/**
 * `rememberMe: false` in a sign-in: the user chose not to stay signed in, so the session's auth
 * cookies are browser-session cookies (no Max-Age). Default true.
 */
export const rememberMeField = z.boolean().optional();

export const loginInput = z.object({
  email: emailField,
  password: passwordField,
  session: sessionField,
  rememberMe: rememberMeField,
  captchaToken: captchaTokenField,
});

export const emailInput = z.object({ email: emailField, captchaToken: captchaTokenField });

/**
 * `parseInput(emailInput, input)`, the same answer for every input, without zod for the usual one:
 * a plain object whose `email` is a string the memos above already know as valid (a flood of reset
 * requests for one address; zod's object, string and refinement checks cost ~3 µs a request on
 * Node 20, bench/README.md, seventh round). Anything else goes through zod.
 */
export function parseEmailInput(input: unknown): z.output<typeof emailInput> {
  if (typeof input === "object" && input !== null && Object.getPrototypeOf(input) === Object.prototype) {
    const typed = (input as { email?: unknown }).email;
    if (typeof typed === "string" && typed.length >= 1 && typed.length <= MAX_TYPED_EMAIL) {
      // The transform and refinement of `emailField`, in the same order, on the same memos.
      const normalized = rememberedNormalize(typed);
      if (normalized !== null && rememberedValid(normalized)) return { email: normalized };
    }
  }
  return parseInput(emailInput, input);
}

export const resetPasswordInput = z.object({ newPassword: passwordField });

/** An opaque reset or verification token from `?token=`: base64url, 16 to 128 characters. */
export const opaqueToken = z.string().regex(/^[A-Za-z0-9_-]{16,128}$/);

export const refreshInput = z.object({ session: sessionField }).optional();

export const stepUpInput = z.object({ password: passwordField });

/** `POST /password/change`: the current password (checked on the login budget) and the new one (the policy). */
export const changePasswordInput = z.object({ currentPassword: passwordField, newPassword: passwordField });

/** `POST /email/change`: the address to move the account to. */
export const emailChangeInput = z.object({ newEmail: emailField });

/** An id as stores keep it (`generateId`'s output, a host's integer or UUID key as a string). */
export const userIdField = z.string().min(1).max(256).regex(PLAIN_TEXT);

export const createSessionInput = z.object({
  userId: userIdField,
  session: sessionField,
  rememberMe: rememberMeField,
});

export const createUserInput = z.object({
  email: emailField,
  password: passwordField.optional(),
  /** A hash brought over from another system (docs/importing-users.md), instead of `password`. */
  passwordHash: z.string().min(1).max(1024).optional(),
  name: z.string().trim().min(1).max(100).regex(PLAIN_TEXT).optional(),
  emailVerified: z.boolean().optional(),
  identityProviders: z.array(z.string().min(1).max(64).regex(PLAIN_TEXT)).max(20).optional(),
});

/** What starting a provider link takes: where to come back to (a path on `appOrigin`). */
export const identityLinkInput = z.object({ returnTo: z.string().max(1024).optional() }).optional();

export const confirmTotpInput = z.object({ setupToken: opaqueToken, code: z.string().max(64) });

export const preferredMethodInput = z.object({ method: z.enum(["totp", "email"]) });
/** The query of `DELETE /sessions`: `others=true` ends every session but the caller's. */
export const revokeSessionsQuery = z.object({ others: z.enum(["true", "false"]).optional() });

/**
 * A rule a field can fail: its stable `code` in an answer's `errors`, and its message is
 * `fieldErrors.<rule>` in each locale (docs/errors.md lists them).
 */
export type FieldRule = keyof typeof en.fieldErrors;

/** A field error of one of Portcullis's rules, its `message` in the shipped English. */
export function fieldIssue(
  path: string,
  rule: FieldRule,
  values: Record<string, string | number> = {},
): ValidationIssue {
  const message = en.fieldErrors[rule].replace(/\{\{(\w+)\}\}/g, (_, name: string) =>
    String(values[name] ?? ""),
  );
  return { path, message, rule, values };
}

/** The rule of a value of the wrong type, by the type zod expected. */
const TYPE_RULES: Readonly<Record<string, FieldRule>> = {
  string: "not_string",
  boolean: "not_boolean",
  number: "not_number",
  int: "not_integer",
  object: "not_object",
  array: "not_array",
};

/** The rule and values of a `too_small` or `too_big` issue (an empty string is `required`). */
function sizeRule(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig): {
  rule: FieldRule;
  values?: Record<string, string | number>;
} {
  const kind = issue.origin === "string" ? "string" : issue.origin === "array" ? "array" : "number";
  if (issue.code === "too_small") {
    const minimum = Number(issue.minimum);
    if (kind === "string" && minimum <= 1) return { rule: "required" };
    const rule = kind === "string" ? "too_short" : kind === "array" ? "too_few" : "too_small";
    return { rule, values: { minimum } };
  }
  const rule = kind === "string" ? "too_long" : kind === "array" ? "too_many" : "too_big";
  return { rule, values: { maximum: Number(issue.maximum) } };
}

/**
 * The rule and values of one zod issue, for the kinds the request schemas produce (anything else
 * is `invalid`). zod's own English is never shown: each rule has its words in every locale.
 */
function ruleOf(issue: z.core.$ZodIssue): { rule: FieldRule; values?: Record<string, string | number> } {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return { rule: "required" };
      return { rule: TYPE_RULES[issue.expected] ?? "invalid" };
    case "invalid_value":
      return { rule: "not_allowed", values: { options: issue.values.map(String).join(", ") } };
    case "invalid_format":
      return { rule: "invalid_format" };
    case "too_small":
    case "too_big":
      return sizeRule(issue);
    case "custom": {
      const rule = issue.params?.rule;
      return typeof rule === "string" && rule in en.fieldErrors
        ? { rule: rule as FieldRule }
        : { rule: "invalid" };
    }
    default:
      return { rule: "invalid" };
  }
}

/**
 * zod's issues as the API reports them (at most 20, every field at once): where in the input, and
 * which rule failed, with its English message (an HTTP answer says it in the request's locale).
 * `invalid_type` tells a missing field (`required`) by the input, which the parse keeps only with
 * `reportInput` (as `parseInput` does); the input itself is never kept.
 */
export function toIssues(error: z.ZodError, root = "(body)"): ValidationIssue[] {
  return error.issues.slice(0, 20).map((issue) => {
    const path = issue.path.map(String).join(".") || root;
    const { rule, values } = ruleOf(issue);
    return fieldIssue(path, rule, values);
  });
}

/** Parses `input` with `schema` or throws `VALIDATION_FAILED` listing every issue. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  throw new ValidationError(toIssues(result.error));
}

/** `{ code, method?, session? }` of the second-factor routes. */
export const codeInput = z.object({
  code: z.string().max(64).optional(),
  method: z.enum(["totp", "email"]).optional(),
  session: sessionField,
});

/**
 * `{ code, method?, session?, rememberMe?, trustBrowser? }` of the routes that finish a sign-in
 * (`/2fa/login`, `/2fa/recover`). `trustBrowser: true`: the browser's device token then skips the
 * second factor of its password sign-ins to this account for `twoFactor.trustBrowserDays`.
 */
export const signInCodeInput = codeInput.extend({
  rememberMe: rememberMeField,
  trustBrowser: z.boolean().optional(),
});

/** A second-factor code without spaces or dashes; a missing or empty one is `TWO_FACTOR_CODE_MISSING`. */
export function parseCodeInput(
  input: unknown,
  schema: typeof codeInput | typeof signInCodeInput = codeInput,
): z.output<typeof signInCodeInput> & { code: string } {
  const parsed: z.output<typeof signInCodeInput> = parseInput(schema, input ?? {});
  const code = parsed.code?.replace(/[\s-]/g, "") ?? "";
  if (code === "") throw new AuthError("TWO_FACTOR_CODE_MISSING");
  return { ...parsed, code };
}

/** What `identityProviders.link` takes besides the provider. */
export type IdentityLinkInput = z.input<typeof identityLinkInput>;

/**
 * `POST /email-sign-in`: the emailed link's `token`, or the address and its emailed `code` (spaces
 * and dashes allowed), and the sign-in's `session` and `rememberMe`. A malformed token or code is
 * answered like a wrong one (`EMAIL_SIGN_IN_INVALID`), not as invalid input.
 */
export const emailSignInInput = z
  .object({
    token: z.string().min(1).max(256).optional(),
    email: emailField.optional(),
    code: z.string().min(1).max(64).optional(),
    session: sessionField,
    rememberMe: rememberMeField,
  })
  .superRefine((value, context) => {
    if (value.token !== undefined) {
      for (const field of ["email", "code"] as const) {
        if (value[field] !== undefined)
          context.addIssue({
            code: "custom",
            path: [field],
            message: "not with token",
            params: { rule: "invalid" },
          });
      }
      return;
    }
    for (const field of ["email", "code"] as const) {
      if (value[field] === undefined)
        context.addIssue({
          code: "custom",
          path: [field],
          message: "required without token",
          params: { rule: "required" },
        });
    }
  });
/** `{ query?, cursor?, limit? }` of `admin.listUsers`; `limit` may come as text (a query string). */
export const adminListInput = z
  .object({
    query: z.string().max(320).regex(PLAIN_TEXT).default(""),
    cursor: z.string().max(600).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(20),
  })
  .strict();

/** `{ userId }` of the back office's operations on one user. */
export const adminUserInput = z.object({ userId: userIdField });

/** `{ userId, reason? }` of `admin.lockUser` (the reason at most 500 characters). */
export const lockUserInput = z.object({
  userId: userIdField,
  reason: z.string().trim().max(500).regex(PLAIN_TEXT).optional(),
});

/** The body of `POST /admin/users/:id/lock`. */
export const lockUserBody = z
  .object({ reason: z.string().trim().max(500).regex(PLAIN_TEXT).optional() })
  .optional();

/** `{ userId, endSessions? }` of `admin.requirePasswordChange` (`endSessions` default true). */
export const requirePasswordChangeInput = z.object({
  userId: userIdField,
  endSessions: z.boolean().optional(),
});

/** `POST /password/change-required`: the login's token, the new password, and the sign-in's options. */
export const requiredPasswordChangeInput = z.object({
  token: opaqueToken,
  newPassword: passwordField,
  session: sessionField,
  rememberMe: rememberMeField,
});
/** base64url text of a WebAuthn response (client data, attestation, signature). */
const base64urlField = z
  .string()
  .max(8192)
  .regex(/^[A-Za-z0-9_-]*$/);
/** A WebAuthn credential id, base64url (at most 1023 bytes). */
export const credentialIdField = z
  .string()
  .min(1)
  .max(1366)
  .regex(/^[A-Za-z0-9_-]+$/);
/** What every credential in a response carries besides its `response`. */
const credentialFields = {
  id: credentialIdField,
  rawId: credentialIdField,
  type: z.literal("public-key"),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
};
/** A passkey's name as its owner types it. */
export const passkeyNameField = z.string().trim().min(1).max(100).regex(PLAIN_TEXT);

/** `{ response, name? }` of `POST /passkeys/register`: `PublicKeyCredential.toJSON()` of a `create()`. */
export const passkeyRegistrationInput = z.object({
  response: z.object({
    ...credentialFields,
    response: z.object({
      clientDataJSON: base64urlField,
      attestationObject: base64urlField,
      authenticatorData: base64urlField.optional(),
      publicKey: base64urlField.optional(),
      publicKeyAlgorithm: z.number().int().optional(),
      transports: z.array(z.string().max(32).regex(PLAIN_TEXT)).max(10).optional(),
    }),
  }),
  name: passkeyNameField.optional(),
});

/** `PublicKeyCredential.toJSON()` of a `get()`. */
const assertionField = z.object({
  ...credentialFields,
  response: z.object({
    clientDataJSON: base64urlField,
    authenticatorData: base64urlField,
    signature: base64urlField,
    userHandle: base64urlField.optional(),
  }),
});

/** `{ email? }` of `POST /passkeys/login/options` (no body: a discoverable sign-in). */
export const passkeySignInOptionsInput = z.object({ email: emailField.optional() }).optional();

/** `{ response, session?, rememberMe? }` of `POST /passkeys/login`. */
export const passkeySignInInput = z.object({
  response: assertionField,
  session: sessionField,
  rememberMe: rememberMeField,
});

/** `{ response }` of `POST /passkeys/step-up`. */
export const passkeyStepUpInput = z.object({ response: assertionField });

/** `{ name }` of `PATCH /passkeys/:id`. */
export const passkeyRenameInput = z.object({ name: passkeyNameField });
