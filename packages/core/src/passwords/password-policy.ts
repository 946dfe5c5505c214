import { AuthError, ValidationError } from "../errors.js";
import { type FieldRule, fieldIssue } from "../validation.js";
import type { BreachedPasswords } from "./breached-passwords.js";

/**
 * Common passwords refused whatever the length rules (security.md B4): a small built-in list; no
 * composition rules apply (NIST SP 800-63B).
 */
const COMMON_PASSWORDS = new Set([
  "password",
  "password1",
  "password12",
  "password123",
  "password!",
  "passw0rd",
  "p@ssw0rd",
  "p@ssword",
  "12345678",
  "123456789",
  "1234567890",
  "0123456789",
  "87654321",
  "987654321",
  "11111111",
  "00000000",
  "12341234",
  "123123123",
  "1q2w3e4r",
  "1q2w3e4r5t",
  "1qaz2wsx",
  "qwertyui",
  "qwertyuiop",
  "qwerty123",
  "qwerty12",
  "asdfghjk",
  "asdfghjkl",
  "zxcvbnm1",
  "qazwsxedc",
  "abc12345",
  "abcd1234",
  "aa123456",
  "iloveyou",
  "iloveyou1",
  "sunshine",
  "princess",
  "football",
  "baseball",
  "superman",
  "starwars",
  "trustno1",
  "letmein1",
  "whatever",
  "welcome1",
  "welcome123",
  "admin123",
  "administrator",
  "changeme",
  "1234qwer",
  "q1w2e3r4",
  "michael1",
  "jennifer",
  "computer",
  "internet",
  "monkey123",
  "dragon123",
]);

export interface PasswordPolicy {
  minLength: number;
  maxLength: number;
}

/** NFKC, applied the same way when a password is set and when it is verified (security.md B5). */
export function normalizePassword(password: string): string {
  return password.normalize("NFKC");
}

/** Throws `PASSWORD_POLICY_VIOLATION` naming the rule; returns the normalized password. */
export function checkPasswordPolicy(password: string, policy: PasswordPolicy, field = "password"): string {
  const normalized = normalizePassword(password);
  const length = [...normalized].length;
  const fail = (rule: FieldRule, values?: Record<string, number>): never => {
    throw new ValidationError([fieldIssue(field, rule, values)], "PASSWORD_POLICY_VIOLATION");
  };
  if (length < policy.minLength) fail("password_too_short", { minimum: policy.minLength });
  if (length > policy.maxLength) fail("password_too_long", { maximum: policy.maxLength });
  if (COMMON_PASSWORDS.has(normalized.toLowerCase())) fail("password_too_common");
  return normalized;
}

/** What the breached-password check needs: the range client, absent when `breachedPasswords` is not set. */
export interface BreachCheckDeps {
  breachedPasswords: BreachedPasswords | undefined;
}

/**
 * Refuses a new password found in the breach corpus (`breachedPasswords` option) with 400
 * `PASSWORD_BREACHED`, a field error on `field`. When the range API cannot answer in time, the
 * password is allowed (the client logs it), or refused with 503 `BREACHED_PASSWORD_CHECK_FAILURE`
 * under `failClosed`. Does nothing when the option is not set. `password` is the normalized one
 * (`checkPasswordPolicy`'s result); call it where a password is set, after the cheap checks.
 */
export async function refuseBreachedPassword(
  deps: BreachCheckDeps,
  password: string,
  field = "password",
): Promise<void> {
  const breached = deps.breachedPasswords;
  if (breached === undefined) return;
  const verdict = await breached.check(password);
  if (verdict === "found") {
    throw new ValidationError([fieldIssue(field, "password_breached")], "PASSWORD_BREACHED");
  }
  if (verdict === "unknown" && breached.failClosed) throw new AuthError("BREACHED_PASSWORD_CHECK_FAILURE");
}

/**
 * Every check of a new password in turn: the policy (`PASSWORD_POLICY_VIOLATION`), then the breach
 * corpus (`refuseBreachedPassword`). Returns the normalized password, ready to hash.
 */
export async function checkNewPassword(
  deps: BreachCheckDeps & { options: { password: PasswordPolicy } },
  password: string,
  field = "password",
): Promise<string> {
  const normalized = checkPasswordPolicy(password, deps.options.password, field);
  await refuseBreachedPassword(deps, normalized, field);
  return normalized;
}
