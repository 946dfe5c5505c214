import { z } from "zod";
import { isValidEmail, normalizeEmail } from "./email-address.js";
import { ValidationError } from "./errors.js";

/** No control or format characters (CR/LF, NUL, bidi overrides) in short text fields. */
const PLAIN_TEXT = /^[^\p{Cc}\p{Cf}]*$/u;

export const emailField = z
  .string()
  .max(320)
  .transform(normalizeEmail)
  .refine(isValidEmail, "must be a single valid email address");

/** A password as typed; length and blocklist rules are checked separately (PASSWORD_POLICY_VIOLATION). */
export const passwordField = z.string().min(1).max(4096);

export const sessionField = z
  .object({
    browser: z.string().max(100).regex(PLAIN_TEXT).optional(),
    os: z.string().max(100).regex(PLAIN_TEXT).optional(),
  })
  .optional();

export const registerInput = z.object({
  email: emailField,
  password: passwordField,
  name: z.string().trim().min(1).max(100).regex(PLAIN_TEXT).optional(),
});

export const loginInput = z.object({
  email: emailField,
  password: passwordField,
  session: sessionField,
});

export const emailInput = z.object({ email: emailField });

export const resetPasswordInput = z.object({ newPassword: passwordField });

/** An opaque reset or verification token from `?token=`: base64url, 16 to 128 characters. */
export const opaqueToken = z.string().regex(/^[A-Za-z0-9_-]{16,128}$/);

export const refreshInput = z.object({ session: sessionField }).optional();

/** Parses `input` with `schema` or throws `VALIDATION_FAILED` listing every issue. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ValidationError(
    result.error.issues.slice(0, 20).map((issue) => ({
      path: issue.path.map(String).join(".") || "(body)",
      message: issue.message,
    })),
  );
}
