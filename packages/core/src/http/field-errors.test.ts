import { createMemoryStores } from "@portcullis/store-memory";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createAuth } from "../create-auth/create-auth.js";
import { ValidationError } from "../errors.js";
import { createArgon2Hasher } from "../hashing/argon2-hasher.js";
import { de } from "../i18n/de.js";
import { en } from "../i18n/en.js";
import { createTranslator } from "../i18n/index.js";
import { silentLogger } from "../ports/logger.js";
import {
  codeInput,
  confirmTotpInput,
  createUserInput,
  loginInput,
  parseInput,
  toIssues,
} from "../validation.js";
import { createHttpHandler } from "./handler.js";

/** Random (`createAuth` refuses placeholders, repeats and sequences): a made-up one would not start. */
const TEST_SECRET = "test-secret--Xqhj7KKuQIZYk1ZmwEfIcFYTaXSOki1lZ3AYb8Kqlg";

function handler() {
  const auth = createAuth({
    secret: TEST_SECRET,
    stores: createMemoryStores({ sweepIntervalMs: 0 }),
    logger: silentLogger,
    email: { enabled: false },
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
  });
  return createHttpHandler(auth);
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await handler().handle({
    method: "POST",
    url: `/api/auth${url}`,
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return JSON.parse(String(response?.body)) as {
    code: string;
    message: string;
    errors: { path: string; code: string; message: string }[];
  };
}

describe("field errors", () => {
  it("errors - a bad email is answered in German with ?locale=de, in English by default; paths and codes stay", async () => {
    const german = await post("/register?locale=de", { email: "not an address", password: "long enough 1" });
    expect(german.code).toBe("VALIDATION_FAILED");
    expect(german.message).toBe("Die Anfrage ist ungültig.");
    expect(german.errors).toEqual([
      { path: "email", code: "invalid_email", message: "Bitte gib eine gültige E-Mail-Adresse ein." },
    ]);

    const english = await post("/register", { email: "not an address", password: "long enough 1" });
    expect(english.code).toBe("VALIDATION_FAILED");
    expect(english.errors).toEqual([
      { path: "email", code: "invalid_email", message: "Enter a valid email address." },
    ]);
  });

  it("errors - an empty login form lists both fields as required, in the request's locale, never zod's words", async () => {
    const english = await post("/login", { email: "", password: "" });
    expect(english.errors).toEqual([
      { path: "email", code: "required", message: "This field is required." },
      { path: "password", code: "required", message: "This field is required." },
    ]);
    const german = await post("/login", {}, { "accept-language": "de" });
    expect(german.errors).toEqual([
      { path: "email", code: "required", message: "Dieses Feld ist erforderlich." },
      { path: "password", code: "required", message: "Dieses Feld ist erforderlich." },
    ]);
  });

  it("errors - a sign-up lists every invalid field at once, the password's policy among them", async () => {
    const reply = await post("/register", { email: "nope", password: "short", name: "x".repeat(101) });
    expect(reply.code).toBe("VALIDATION_FAILED");
    expect(reply.errors).toEqual([
      { path: "email", code: "invalid_email", message: "Enter a valid email address." },
      { path: "name", code: "too_long", message: "Must be at most 100 characters." },
      { path: "password", code: "password_too_short", message: "Use at least 8 characters." },
    ]);
    const empty = await post("/register?locale=de", { email: "", password: "" });
    expect(empty.errors.map((error) => [error.path, error.code])).toEqual([
      ["email", "required"],
      ["password", "required"],
    ]);
  });

  it("errors - Accept-Language de translates each kind and keeps the codes", async () => {
    const reply = await post(
      "/login",
      { email: 5, rememberMe: "yes", session: { browser: "a\u0000b" } },
      { "accept-language": "de" },
    );
    expect(reply.errors).toEqual([
      { path: "email", code: "not_string", message: "Muss Text sein." },
      { path: "password", code: "required", message: "Dieses Feld ist erforderlich." },
      { path: "session.browser", code: "invalid_format", message: "Hat ein ungültiges Format." },
      { path: "rememberMe", code: "not_boolean", message: "Muss true oder false sein." },
    ]);
    expect((await post("/login?locale=de", "{")).errors).toEqual([
      { path: "(body)", code: "invalid_json", message: "Der Anfrageinhalt muss gültiges JSON sein." },
    ]);
  });

  it("errors - password rules are field errors in the request's locale too", async () => {
    const short = await post("/register?locale=de", { email: "ada@example.test", password: "short" });
    expect(short.code).toBe("PASSWORD_POLICY_VIOLATION");
    expect(short.errors).toEqual([
      { path: "password", code: "password_too_short", message: "Verwende mindestens 8 Zeichen." },
    ]);
    const common = await post("/register", { email: "ada@example.test", password: "password123" });
    expect(common.errors).toEqual([
      {
        path: "password",
        code: "password_too_common",
        message: "This password is too common. Choose another one.",
      },
    ]);
  });

  it("toIssues - every issue has one of the rules, with English from the strings, and German differs", () => {
    const translator = createTranslator("en");
    const bad: [z.ZodType, unknown][] = [
      [loginInput, null],
      [loginInput, { email: [], password: "", session: { browser: "x".repeat(101), os: 1 } }],
      [codeInput, { code: "1".repeat(65), method: "sms" }],
      [confirmTotpInput, { setupToken: "short", code: 1 }],
      [createUserInput, { email: "a@b.test", name: "", identityProviders: Array(21).fill("github") }],
    ];
    const issues = bad.flatMap(([schema, input]) => {
      try {
        parseInput(schema, input);
      } catch (error) {
        if (error instanceof ValidationError) return [...error.issues];
      }
      throw new Error("expected VALIDATION_FAILED");
    });
    const rules = new Set(issues.map((issue) => issue.rule));
    for (const rule of ["not_object", "not_string", "not_allowed", "invalid_format", "required"]) {
      expect(rules).toContain(rule);
    }
    for (const rule of ["too_long", "too_many"]) expect(rules).toContain(rule);
    for (const issue of issues) {
      expect(Object.keys(en.fieldErrors), issue.path).toContain(issue.rule);
      expect(translator.fieldMessage(issue, "en"), issue.path).toBe(issue.message);
      expect(translator.fieldMessage(issue, "de"), issue.path).not.toBe(issue.message);
      expect(issue.message, issue.path).not.toMatch(/expected|Too (small|big)|pattern/);
    }
    // Without a rule (an issue a host built), the message is used as it is.
    expect(translator.fieldMessage({ path: "x", message: "is odd" }, "de")).toBe("is odd");
    // A refinement without one of the rules is `invalid`.
    const odd = z
      .string()
      .refine(() => false)
      .safeParse("x");
    expect(odd.success ? [] : toIssues(odd.error)[0]).toMatchObject({ rule: "invalid" });
  });

  it("i18n - every field rule has its words in each shipped locale", () => {
    expect(Object.keys(de.fieldErrors).sort()).toEqual(Object.keys(en.fieldErrors).sort());
  });
});
