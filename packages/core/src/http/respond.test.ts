import { describe, expect, it } from "vitest";
import { AuthError, CooldownError, ValidationError } from "../errors.js";
import { createTranslator } from "../i18n/index.js";
import { createLineLogger } from "../test-support.js";
import { createErrorResponder } from "./respond.js";

const T0 = Date.UTC(2026, 10, 25, 12, 0, 0, 0);

const parsed = (response: { body: string | Uint8Array | null; headers: Record<string, string> }) => {
  const text = String(response.body);
  expect(Number(response.headers["content-length"])).toBe(Buffer.byteLength(text));
  return JSON.parse(text);
};

describe("error responses", () => {
  it("errors - a remembered body differs only by its timestamp; locale, path and remaining each make their own", () => {
    const respond = createErrorResponder(createTranslator("en"), createLineLogger().logger);
    const refusal = () => new CooldownError("EMAIL_COOLDOWN_ACTIVE", 60);
    const context = { path: "/api/auth/password/reset-request", locale: "en" };
    const first = respond(refusal(), { ...context, now: T0 });
    const second = respond(refusal(), { ...context, now: T0 + 1500 });
    expect(parsed(first)).toEqual({
      status: 429,
      code: "EMAIL_COOLDOWN_ACTIVE",
      message: "An email was sent recently. Please wait 60 seconds before asking again.",
      path: "/api/auth/password/reset-request",
      timestamp: "2026-11-25T12:00:00.000Z",
      remaining: 60,
    });
    expect(parsed(second)).toEqual({ ...parsed(first), timestamp: "2026-11-25T12:00:01.500Z" });
    expect(first.headers).toMatchObject({ "retry-after": "60", "auth-error-code": "EMAIL_COOLDOWN_ACTIVE" });
    expect(respond.rememberedBodies()).toBe(1);

    // Non-ASCII messages: the length counts bytes.
    const german = parsed(respond(refusal(), { ...context, locale: "de", now: T0 }));
    expect(german.message).toContain("Vor Kurzem wurde bereits eine E-Mail gesendet");
    const later = parsed(respond(new CooldownError("EMAIL_COOLDOWN_ACTIVE", 59), { ...context, now: T0 }));
    expect(later).toMatchObject({ remaining: 59, message: expect.stringContaining("59 seconds") });
    const elsewhere = parsed(
      respond(refusal(), { ...context, path: "/api/auth/email/verification/send", now: T0 }),
    );
    expect(elsewhere.path).toBe("/api/auth/email/verification/send");
    const notFound = parsed(
      respond(new AuthError("NOT_FOUND"), { ...context, path: '/api/auth/"x"', now: T0 }),
    );
    expect(notFound).toEqual({
      status: 404,
      code: "NOT_FOUND",
      message: "Not found.",
      path: '/api/auth/"x"',
      timestamp: "2026-11-25T12:00:00.000Z",
    });
    expect(respond.rememberedBodies()).toBe(5);
  });

  it("errors - a 500's log line names its cause and the causes that one carries (at most 3), never the body", () => {
    const { logger, lines } = createLineLogger();
    const respond = createErrorResponder(createTranslator("en"), logger);
    const reason = new Error("relation t_users does not exist", { cause: "deeper" });
    const failure = new AuthError("DATABASE_FAILURE", {
      cause: new Error("migration failed", { cause: reason }),
    });
    const body = parsed(respond(failure, { path: "/api/auth/register", locale: "en", now: T0 }));
    expect(JSON.stringify(body)).not.toContain("migration");
    expect(JSON.parse(lines[0] ?? "{}")).toMatchObject({
      event: "request.failed",
      err: "Error: migration failed <- Error: relation t_users does not exist <- deeper",
    });
  });

  it("errors - the remembered bodies stay bounded: at most 1,000 (least recently used dropped), long paths never kept; field errors built each time", () => {
    const respond = createErrorResponder(createTranslator("en"), createLineLogger().logger);
    let largest = 0;
    for (let i = 0; i < 2500; i++) {
      respond(new AuthError("NOT_FOUND"), { path: `/api/auth/nowhere/${i}`, locale: "en", now: T0 });
      largest = Math.max(largest, respond.rememberedBodies());
    }
    expect(largest).toBe(1000);
    const before = respond.rememberedBodies();
    const path = `/api/auth/${"x".repeat(300)}`;
    const long = parsed(respond(new AuthError("NOT_FOUND"), { path, locale: "en", now: T0 }));
    expect(long.path).toBe(path);
    const invalid = new ValidationError([
      { path: "email", message: "must be an email", rule: "invalid_email" },
    ]);
    const withIssues = parsed(respond(invalid, { path: "/api/auth/login", locale: "en", now: T0 }));
    expect(withIssues.errors).toEqual([
      { path: "email", code: "invalid_email", message: "Enter a valid email address." },
    ]);
    expect(respond.rememberedBodies()).toBe(before);
  });

  it("errors - a 500 logs its cause and sends none; a 304 has no body", () => {
    const { logger, lines } = createLineLogger();
    const respond = createErrorResponder(createTranslator("en"), logger);
    const failed = parsed(
      respond(new Error("disk on fire"), { path: "/api/auth/me", locale: "en", now: T0 }),
    );
    expect(failed).toMatchObject({ status: 500, code: "INTERNAL_ERROR" });
    expect(JSON.stringify(failed)).not.toContain("disk on fire");
    expect(lines.join("\n")).toContain("disk on fire");
    const unchanged = respond(new AuthError("EMAIL_ALREADY_VERIFIED"), { path: "/x", locale: "en", now: T0 });
    expect(unchanged).toMatchObject({ status: 304, body: null });
  });
});
