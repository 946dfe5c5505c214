import { createMemoryStores } from "@portcullis/store-memory";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createAuth } from "../create-auth.js";
import { ValidationError } from "../errors.js";
import { createArgon2Hasher } from "../hashing/argon2-hasher.js";
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
    errors: { path: string; message: string }[];
  };
}

describe("field errors", () => {
  it("errors - a bad email is answered in German with ?locale=de, in English by default; paths and codes stay", async () => {
    const german = await post("/register?locale=de", { email: "not an address", password: "x" });
    expect(german.code).toBe("VALIDATION_FAILED");
    expect(german.message).toBe("Die Anfrage ist ungültig.");
    expect(german.errors).toEqual([
      { path: "email", message: "muss eine einzelne gültige E-Mail-Adresse sein" },
    ]);

    const english = await post("/register", { email: "not an address", password: "x" });
    expect(english.code).toBe("VALIDATION_FAILED");
    expect(english.errors).toEqual([{ path: "email", message: "must be a single valid email address" }]);
  });

  it("errors - Accept-Language de translates zod's kinds and keeps their machine-readable parts", async () => {
    const reply = await post(
      "/login",
      { email: 5, session: { browser: "a\u0000b" } },
      { "accept-language": "de" },
    );
    expect(reply.errors).toEqual([
      { path: "email", message: "Ungültige Eingabe: erwartet string, erhalten number" },
      { path: "password", message: "Ungültige Eingabe: erwartet string, erhalten undefined" },
      {
        path: "session.browser",
        message: `Ungültiger Text: muss dem Muster ${String(/^[^\p{Cc}\p{Cf}]*$/u)} entsprechen`,
      },
    ]);
    expect((await post("/login?locale=de", "{")).errors).toEqual([
      { path: "(body)", message: "muss gültiges JSON sein" },
    ]);
  });

  it("errors - password rules are field errors in the request's locale too", async () => {
    const short = await post("/register?locale=de", { email: "ada@example.test", password: "short" });
    expect(short.code).toBe("PASSWORD_POLICY_VIOLATION");
    expect(short.errors).toEqual([{ path: "password", message: "muss mindestens 8 Zeichen lang sein" }]);
    const common = await post("/register", { email: "ada@example.test", password: "password123" });
    expect(common.errors).toEqual([{ path: "password", message: "is too common" }]);
  });

  it("toIssues - the English of every rule reads exactly as zod's message, and German differs", () => {
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
    for (const rule of ["invalid_type", "invalid_value", "invalid_format_regex", "too_small_string"]) {
      expect(rules).toContain(rule);
    }
    for (const rule of ["too_big_string", "too_big_array"]) expect(rules).toContain(rule);
    for (const issue of issues) {
      expect(translator.fieldMessage(issue, "en"), issue.path).toBe(issue.message);
      expect(translator.fieldMessage(issue, "de"), issue.path).not.toBe(issue.message);
    }
    // Without a rule (an issue a host built), the message is used as it is.
    expect(translator.fieldMessage({ path: "x", message: "is odd" }, "de")).toBe("is odd");
    // Options errors keep zod's own words for kinds the request schemas never produce.
    const union = z.union([z.string(), z.number()]).safeParse(true);
    expect(union.success ? [] : toIssues(union.error, "(options)")[0]).toMatchObject({ rule: "invalid" });
  });
});
