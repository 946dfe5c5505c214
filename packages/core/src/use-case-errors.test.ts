import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, type ErrorCode } from "./errors.js";
import { createTestAuth } from "./test-support.js";
import { errorsOf, USE_CASE_ERRORS } from "./use-case-errors.js";

/** A source file of the core, by its path from `src/`. */
const source = (path: string) => readFileSync(new URL(`./${path}`, import.meta.url), "utf8");
/** The code of a file without its comments. */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");

/** The prefix of each use-case table of create-auth.ts on `Auth` (`SESSION_USE_CASES` → `auth.sessions`). */
const GROUPS: Record<string, string> = {
  USE_CASES: "",
  SESSION_USE_CASES: "sessions.",
  HOST_USE_CASES: "host.",
  ADMIN_USE_CASES: "admin.",
  ACTIVITY_USE_CASES: "activity.",
  IDENTITY_PROVIDER_USE_CASES: "identityProviders.",
  ACCOUNT_USE_CASES: "account.",
  PASSKEY_USE_CASES: "passkeys.",
  ORGANIZATION_USE_CASES: "organizations.",
  API_KEY_USE_CASES: "apiKeys.",
  WEBHOOK_USE_CASES: "webhooks.",
  SSO_USE_CASES: "sso.",
};

/**
 * Every method of `Auth` that runs a use case, read off create-auth.ts's tables (and the
 * organizations' table next to it): its path on
 * `Auth`, the use case's file, and the wrapper it is bound through (`asAdmin`, `asHost`), if any.
 */
function boundUseCases(): { path: string; file: string; wrapper?: string }[] {
  const bound: { path: string; file: string; wrapper?: string }[] = [];
  const tables = ["create-auth/create-auth.ts", "create-auth/organization-use-cases.ts"]
    .map(source)
    .join("\n")
    .matchAll(/export const (\w+) = \{([\s\S]*?)\} as const;/g);
  for (const [, table = "", body = ""] of tables) {
    const prefix = GROUPS[table];
    if (prefix === undefined) throw new Error(`create-auth.ts: ${table} is not in GROUPS of this test`);
    for (const [, key = "", wrapper, name] of body.matchAll(
      /(\w+)(?:\s*:\s*(?:(\w+)\()?(\w+)\)?)?\s*(?:,|$)/g,
    )) {
      const file = `use-cases/${(name ?? key).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}.ts`;
      bound.push({ path: prefix + key, file, ...(wrapper ? { wrapper } : {}) });
    }
  }
  return bound;
}

/** The code each per-IP limit refuses with, read off limits/limits.ts (`failedLogins` → `LOGIN_THROTTLED`). */
const IP_LIMIT_CODES = new Map(
  [...source("limits/limits.ts").matchAll(/^ {2}(\w+): \{ code: "(\w+)"/gm)].map(([, name, limit]) => [
    name,
    limit as ErrorCode,
  ]),
);

/**
 * What a call of a shared guard in a use case's file throws: the checks that say in their name
 * what they refuse (their files are the mechanisms; these are the ones every reader knows).
 */
const GUARDS: Record<string, readonly ErrorCode[]> = {
  "signedIn(": ["AUTHENTICATION_REQUIRED"],
  "assertNotImpersonating(": ["IMPERSONATION_NOT_ALLOWED"],
  "assertNotLocked(": ["ACCOUNT_LOCKED"],
  "assertSsoNotRequired(": ["SSO_REQUIRED", "DATABASE_FAILURE"],
  "requireEmailEnabled(": ["EMAIL_DISABLED"],
  "requireVerifiedAddress(": ["EMAIL_NOT_VERIFIED"],
  "currentUser(": ["USER_NOT_FOUND", "DATABASE_FAILURE"],
  "requireStepUp(": [
    "AUTHENTICATION_REQUIRED",
    "IMPERSONATION_NOT_ALLOWED",
    "STEP_UP_REQUIRED",
    "USER_NOT_FOUND",
    "DATABASE_FAILURE",
  ],
  "checkEnabling(": ["STEP_UP_REQUIRED", "IMPERSONATION_NOT_ALLOWED", "EMAIL_NOT_VERIFIED", "USER_NOT_FOUND"],
  "sendWithCooldown(": ["EMAIL_COOLDOWN_ACTIVE", "EMAIL_COOLDOWN_CACHE_FAILURE"],
  "requireCaptcha(": ["CAPTCHA_REQUIRED", "CAPTCHA_INVALID"],
  "captchaAfterFailures(": ["CAPTCHA_REQUIRED", "CAPTCHA_INVALID"],
};

/** What `asAdmin` adds to the operation it wraps: the back office's check of the caller. */
const WRAPPERS: Record<string, readonly ErrorCode[]> = {
  asAdmin: ["AUTHENTICATION_REQUIRED", "IMPERSONATION_NOT_ALLOWED", "ADMIN_REQUIRED", "STEP_UP_REQUIRED"],
  asHost: [],
};

/**
 * The codes a use case's file can throw, by a static scan of the file: every error code written
 * in its code (a `new AuthError("…")`, a `guardPort("…")`, a `failureCode`), each per-IP limit it
 * counts (`limits.ip("registrations", …)`), and the guards of `GUARDS` it calls.
 */
function scannedCodes(file: string, wrapper: string | undefined): Set<ErrorCode> {
  const text = code(source(file));
  const known = new Set<string>(ERROR_CODES);
  const codes = new Set<ErrorCode>();
  for (const [, literal = ""] of text.matchAll(/"([A-Z][A-Z0-9_]+)"/g))
    if (known.has(literal)) codes.add(literal as ErrorCode);
  for (const [, limit = ""] of text.matchAll(/limits\.ip\("(\w+)"/g)) {
    const limited = IP_LIMIT_CODES.get(limit);
    if (limited === undefined) throw new Error(`${file}: no code for the per-IP limit ${limit}`);
    codes.add(limited);
  }
  for (const [call, guarded] of Object.entries(GUARDS))
    if (text.includes(call)) for (const guardCode of guarded) codes.add(guardCode);
  if (wrapper !== undefined) {
    const wrapped = WRAPPERS[wrapper];
    if (wrapped === undefined)
      throw new Error(`${file}: the wrapper ${wrapper} is not in WRAPPERS of this test`);
    for (const wrappedCode of wrapped) codes.add(wrappedCode);
  }
  return codes;
}

describe("USE_CASE_ERRORS", () => {
  it("USE_CASE_ERRORS - every code a use case's file throws (a static scan) is in the entry of its Auth method", () => {
    const missing = boundUseCases().flatMap(({ path, file, wrapper }) => {
      const entry = new Set<string>(USE_CASE_ERRORS[path as keyof typeof USE_CASE_ERRORS] ?? []);
      return [...scannedCodes(file, wrapper)].filter((c) => !entry.has(c)).map((c) => `${path}: ${c}`);
    });
    expect(missing).toEqual([]);
  });

  it("USE_CASE_ERRORS - its keys are exactly the Auth methods that run a use case, each a function of Auth", () => {
    const { auth } = createTestAuth({ email: { enabled: false } });
    const paths = boundUseCases().map(({ path }) => path);
    expect(Object.keys(USE_CASE_ERRORS).sort()).toEqual([...paths].sort());
    for (const path of paths) {
      const method = path.split(".").reduce<unknown>((at, key) => (at as Record<string, unknown>)[key], auth);
      expect(typeof method, path).toBe("function");
    }
  });

  it("USE_CASE_ERRORS - frozen, every code a real one, none listed twice in an entry", () => {
    expect(Object.isFrozen(USE_CASE_ERRORS)).toBe(true);
    for (const [path, codes] of Object.entries(USE_CASE_ERRORS)) {
      expect(Object.isFrozen(codes), path).toBe(true);
      expect(
        codes.filter((c) => !(ERROR_CODES as readonly string[]).includes(c)),
        path,
      ).toEqual([]);
      expect(new Set(codes).size, path).toBe(codes.length);
    }
  });

  it("errorsOf - joins the entries of the use cases a route runs, each code once", () => {
    const joined = errorsOf("sessions.revokeAll", "sessions.revoke");
    expect(new Set(joined)).toEqual(
      new Set([...USE_CASE_ERRORS["sessions.revokeAll"], ...USE_CASE_ERRORS["sessions.revoke"]]),
    );
    expect(new Set(joined).size).toBe(joined.length);
  });

  it("Auth - each method's TSDoc points to its entry instead of listing codes", () => {
    const documented = [
      "create-auth/auth.ts",
      "create-auth/auth-apis.ts",
      "create-auth/organization-api.ts",
      "create-auth/api-key-api.ts",
      "create-auth/webhook-api.ts",
      "create-auth/sso-api.ts",
    ]
      .map(source)
      .join("\n");
    const pointers = new Set(
      [...documented.matchAll(/@throws [^`]*`USE_CASE_ERRORS\.([\w.]+)`/g)].map((m) => m[1]),
    );
    const listing = [...documented.matchAll(/@throws `[A-Z_]+`[\s\S]*?\*\/\s*(?:readonly )?(\w+)\(/g)]
      .map((m) => m[1] ?? "")
      // `can` and `require` run no use case of the table: their codes are those of the check.
      .filter((method) => !["can", "require"].includes(method));
    expect(listing).toEqual([]);
    const missing = Object.keys(USE_CASE_ERRORS).filter((path) => !pointers.has(path));
    expect(missing).toEqual([]);
  });
});
