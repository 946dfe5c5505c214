/**
 * Setup shared by the core's own tests. Not part of the package: only `index.ts` is built, and
 * nothing but `*.test.ts` files imports this one.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve as resolvePath } from "node:path";
import { createMemoryStores } from "@portcullis/store-memory";
import { createFakeClock } from "@portcullis/testing";
import ts from "typescript";
import type { LoginInput } from "./create-auth/auth.js";
import { type Auth, createAuth } from "./create-auth/create-auth.js";
import { createArgon2Hasher } from "./hashing/argon2-hasher.js";
import type { RequestContext } from "./model.js";
import type { AuthOptionFields } from "./options/options.js";
import { type Logger, silentLogger } from "./ports/logger.js";
import type { EmailMessage, Mailer } from "./ports/mailer.js";
import type { TwoFactorSettings, UserRecord } from "./ports/user-store.js";

/** Random (`createAuth` refuses placeholders, repeats and sequences): a made-up one would not start. */
export const TEST_SECRET = "test-secret--Xqhj7KKuQIZYk1ZmwEfIcFYTaXSOki1lZ3AYb8Kqlg";

export const PASSWORD = "correct horse battery staple";

export const APP_ORIGIN = "https://app.example.test";

/** The brand of the email tests (the option's defaults, spelled out). */
export const BRAND = {
  name: "Acme",
  primaryColor: "#4f46e5",
  textColor: "#111827",
  backgroundColor: "#f3f4f6",
  logoUrl: null,
};

/** The frontend pages of the email tests (the option's defaults, spelled out). */
export const LINKS = {
  verifyEmail: "/verify-email",
  resetPassword: "/reset-password",
  forgotPassword: "/forgot-password",
  signIn: "/login",
  signUp: "/signup",
  securitySettings: "/settings/security",
  emailSignIn: "/sign-in/email",
  confirmEmailChange: "/confirm-email-change",
  acceptInvitation: "/invitations/accept",
};

/** Email codes on, preferred; no TOTP, no recovery codes. */
export const EMAIL_TWO_FACTOR: TwoFactorSettings = {
  methods: ["email"],
  preferredMethod: "email",
  totpSecretEncrypted: null,
  recoveryCodeHashes: [],
};

/** The settled promise as its error's `code`, or "OK". */
export const code = (promise: Promise<unknown>) =>
  promise.then(
    () => "OK",
    (error) => error.code,
  );

/** `auth.login` for accounts without 2FA: the signed-in result, or a thrown error. */
export async function signIn(auth: Auth, input: LoginInput, request?: RequestContext) {
  const result = await auth.login({ request }, input);
  if (result.twoFactorRequired) throw new Error("second factor required");
  return result;
}

/** Argon2id at its cheapest, so tests hash fast. */
export const fastHasher = () => createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 });

/** A verified account that signs in only with an identity provider: no password, no 2FA. */
export const identityProviderUser = (id: string, email: string, provider = "github"): UserRecord => ({
  id,
  email,
  emailVerified: true,
  name: null,
  passwordHash: null,
  identityProviders: [provider],
  twoFactor: { methods: [], preferredMethod: null, totpSecretEncrypted: null, recoveryCodeHashes: [] },
  createdAt: 0,
});

/** A logger that keeps every entry as a JSON line (`level`, the fields, and `message`). */
export function createLineLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = Object.fromEntries(
    (["debug", "info", "warn", "error"] as const).map((level) => [
      level,
      (object: object, message?: string) => lines.push(JSON.stringify({ level, ...object, message })),
    ]),
  ) as unknown as Logger;
  return { logger, lines };
}

export interface TestAuthOptions extends Partial<AuthOptionFields> {
  /** Epoch milliseconds the fake clock starts at. Default: 2026-01-01T00:00:00Z. */
  start?: number;
}

/**
 * A `createAuth` over memory stores (no sweep timer) on a fake clock, with a mailer that keeps
 * what it sends (set `mailer.fail` to make it throw), `APP_ORIGIN`, no logs and a fast hasher;
 * `options` override any of these.
 */
export function createTestAuth({ start = Date.UTC(2026, 0, 1), ...options }: TestAuthOptions = {}) {
  const clock = createFakeClock({ start });
  const stores = createMemoryStores({ clock, sweepIntervalMs: 0 });
  const sent: EmailMessage[] = [];
  const mailer: Mailer & { fail?: Error | undefined } = {
    async send(message) {
      if (mailer.fail) throw mailer.fail;
      sent.push(message);
    },
  };
  const auth = createAuth({
    secret: TEST_SECRET,
    stores,
    clock,
    mailer,
    appOrigin: APP_ORIGIN,
    logger: silentLogger,
    passwordHasher: fastHasher(),
    ...options,
  });
  return { auth, stores, clock, sent, mailer };
}

/**
 * The TSDoc of every property of the `AuthOptionFields` interface in `file` (source or built `.d.ts`)
 * and of the option interfaces it refers to (`EmailOptions`…), by dotted path
 * (`email.cooldownSeconds`); "" for an undocumented one. The interfaces of the sibling source
 * files `file` imports (`./captcha-options.js`) count too.
 */
export function optionDocs(file: string): Map<string, string> {
  const interfaces = new Map<string, ts.InterfaceDeclaration>();
  const seen = new Set<string>();
  const read = (path: string): void => {
    seen.add(path);
    const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
    source.forEachChild((statement) => {
      if (ts.isInterfaceDeclaration(statement)) interfaces.set(statement.name.text, statement);
      if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) return;
      const specifier = statement.moduleSpecifier.text;
      const sibling = resolvePath(dirname(path), specifier.replace(/\.js$/, ".ts"));
      if (specifier.startsWith("./") && !seen.has(sibling) && existsSync(sibling)) read(sibling);
    });
  };
  read(file);
  const docs = new Map<string, string>();
  const visit = (declaration: ts.InterfaceDeclaration | undefined, path: string[]) => {
    for (const member of declaration?.members ?? []) {
      if (!ts.isPropertySignature(member) || !ts.isIdentifier(member.name)) continue;
      const here = [...path, member.name.text];
      const doc = ts
        .getJSDocCommentsAndTags(member)
        .map((jsDoc) => ts.getTextOfJSDocComment(jsDoc.comment) ?? "")
        .join(" ")
        .replace(/\s+/g, " ")
        .trim();
      docs.set(here.join("."), doc);
      if (member.type && ts.isTypeReferenceNode(member.type) && ts.isIdentifier(member.type.typeName))
        visit(interfaces.get(member.type.typeName.text), here);
    }
  };
  visit(interfaces.get("AuthOptionFields"), []);
  return docs;
}
