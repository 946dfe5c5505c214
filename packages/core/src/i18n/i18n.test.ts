import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../errors.js";
import { STATUS_BY_CODE } from "../http/status.js";
import { createTranslator, parseAcceptLanguage, SHIPPED_LOCALES } from "./index.js";

const keysOf = (value: unknown, prefix = ""): string[] =>
  typeof value === "object" && value !== null
    ? Object.entries(value).flatMap(([key, child]) => keysOf(child, prefix ? `${prefix}.${key}` : key))
    : [prefix];

describe("i18n", () => {
  it("locales - every shipped locale has every key of en, non-empty", () => {
    const expected = keysOf(SHIPPED_LOCALES.en).sort();
    for (const [locale, strings] of Object.entries(SHIPPED_LOCALES)) {
      expect(keysOf(strings).sort(), locale).toEqual(expected);
      for (const key of expected) {
        const value = key
          .split(".")
          .reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], strings);
        expect(typeof value === "string" && value.length > 0, `${locale}:${key}`).toBe(true);
      }
    }
  });

  it("errors - every error code has a status and a message in every locale", () => {
    const translator = createTranslator("en");
    for (const code of ERROR_CODES) {
      expect(STATUS_BY_CODE[code], code).toBeGreaterThanOrEqual(300);
      for (const locale of Object.keys(SHIPPED_LOCALES)) {
        expect(translator.errorMessage(code, locale), `${locale}:${code}`).not.toContain("errors.");
      }
    }
  });

  it("resolveLocale - ?locale= first, then Accept-Language, exact → language → default", () => {
    const translator = createTranslator("en", { "pt-BR": { errors: { NOT_FOUND: "Não encontrado." } } });
    expect(translator.resolveLocale("de", "en")).toBe("de");
    expect(translator.resolveLocale("de-AT", undefined)).toBe("de");
    expect(translator.resolveLocale("pt-br", undefined)).toBe("pt-BR");
    expect(translator.resolveLocale("xx", "fr-CH, de;q=0.8, en;q=0.9")).toBe("en");
    expect(translator.resolveLocale(undefined, "fr, de;q=0.5")).toBe("de");
    expect(translator.resolveLocale(undefined, "*")).toBe("en");
    expect(translator.errorMessage("NOT_FOUND", "pt-BR")).toBe("Não encontrado.");
    expect(translator.errorMessage("INVALID_CREDENTIALS", "pt-BR")).toBe(
      translator.errorMessage("INVALID_CREDENTIALS", "en"),
    );
  });

  it("resolveLocale - remembered headers answer as before, past the memo's bound and for long headers", () => {
    const translator = createTranslator("en");
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 2_500; i++) {
        const german = i % 2 === 0;
        const header = german ? `x-${i}, de;q=0.${(i % 9) + 1}` : `x-${i}, fr;q=0.5`;
        expect(translator.resolveLocale(undefined, header)).toBe(german ? "de" : "en");
      }
    }
    const long = `${"xx-yyyyyyyy;q=0.9, ".repeat(15)}de`;
    expect(long.length).toBeGreaterThan(256);
    expect(translator.resolveLocale(undefined, long)).toBe("de");
    expect(translator.resolveLocale(undefined, long)).toBe("de");
  });

  it("errorMessage - remembered per locale, code and values; strings added later win at once", () => {
    const translator = createTranslator("en");
    const first = translator.errorMessage("EMAIL_COOLDOWN_ACTIVE", "en", { remaining: 42 });
    expect(first).toContain("42");
    expect(translator.errorMessage("EMAIL_COOLDOWN_ACTIVE", "en", { remaining: 42 })).toBe(first);
    expect(translator.errorMessage("EMAIL_COOLDOWN_ACTIVE", "en", { remaining: 7 })).toContain("7");
    expect(translator.errorMessage("EMAIL_COOLDOWN_ACTIVE", "de", { remaining: 42 })).not.toBe(first);
    translator.i18next.addResource("en", "translation", "errors.EMAIL_COOLDOWN_ACTIVE", "wait {{remaining}}");
    expect(translator.errorMessage("EMAIL_COOLDOWN_ACTIVE", "en", { remaining: 42 })).toBe("wait 42");
    for (let i = 0; i < 5_000; i++) translator.errorMessage("RATE_LIMITED", "en", { remaining: i });
    expect(translator.errorMessage("RATE_LIMITED", "en", { remaining: 3 })).toContain("3");
  });

  it("parseAcceptLanguage - orders by quality and drops q=0 and wildcards", () => {
    expect(parseAcceptLanguage("da, en-GB;q=0.8, en;q=0.7, fr;q=0, *;q=0.1")).toEqual(["da", "en-GB", "en"]);
  });

  it("createTranslator - each instance is separate from the others and from i18next's global", async () => {
    const a = createTranslator("en", { en: { errors: { NOT_FOUND: "custom" } } });
    const b = createTranslator("en");
    expect(a.errorMessage("NOT_FOUND", "en")).toBe("custom");
    expect(b.errorMessage("NOT_FOUND", "en")).toBe("Not found.");
    const i18next = (await import("i18next")).default;
    expect(i18next.isInitialized).toBeFalsy();
  });
});
