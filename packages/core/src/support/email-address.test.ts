import { describe, expect, it } from "vitest";
import { emailField, emailInput, parseEmailInput, parseInput } from "../validation.js";
import { isValidEmail, normalizeEmail } from "./email-address.js";

describe("email addresses", () => {
  it("normalizeEmail - trims, lower-cases and NFC-normalizes so variants share one key", () => {
    expect(normalizeEmail(" User@X.test ")).toBe("user@x.test");
    expect(normalizeEmail("Jose\u0301@x.test")).toBe(normalizeEmail("jos\u00e9@x.test"));
  });

  it("normalizeEmail - NFKC and the IDNA ASCII domain: fullwidth and Unicode-domain variants are one address", () => {
    for (const variant of [
      "ｅｒｉｎ@x.test",
      "erin@ｘ.test",
      "erin@x.ｔｅｓｔ",
      "ＥＲＩＮ＠ｘ．ｔｅｓｔ",
      " Erin@X.Test",
    ]) {
      expect(normalizeEmail(variant), variant).toBe("erin@x.test");
    }
    expect(normalizeEmail("zoë@Bücher.test")).toBe("zoë@xn--bcher-kva.test");
    expect(normalizeEmail("zoë@xn--bcher-kva.test")).toBe("zoë@xn--bcher-kva.test");
    expect(isValidEmail(normalizeEmail("a@bücher.test"))).toBe(true);
    expect(isValidEmail(normalizeEmail("a@x\u0000y.test"))).toBe(false);
  });

  it.each(["a@x.test", "first.last+tag@sub.example.com", "o'neil@x.io", "jos\u00e9@x.test"])(
    "isValidEmail - accepts %j",
    (email) => expect(isValidEmail(normalizeEmail(email))).toBe(true),
  );

  it.each([
    '"a@b"@x.test',
    "a@b@x.test",
    "a@x.test,b@y.test",
    "a@x.test; b@y.test",
    "a@x.test\r\nbcc: b@y.test",
    "a b@x.test",
    "a@localhost",
    ".a@x.test",
    "a..b@x.test",
    "a@-x.test",
    "a@x.123",
    "<a@x.test>",
    "Name <a@x.test>",
    "a(comment)@x.test",
    `${"a".repeat(65)}@x.test`,
    "",
  ])("isValidEmail - refuses %j (one strict parser, never a second recipient)", (email) => {
    expect(isValidEmail(normalizeEmail(email))).toBe(false);
  });

  it("the email field (which remembers 10,000 addresses) answers as the pure functions do: again, past its bound, and for long input", () => {
    const direct = (typed: string) => {
      const normalized = normalizeEmail(typed);
      return isValidEmail(normalized) ? { success: true, data: normalized } : { success: false };
    };
    const viaField = (typed: string) => {
      const result = emailField.safeParse(typed);
      return result.success ? { success: true, data: result.data } : { success: false };
    };
    const samples = [
      " User@X.test ",
      "ＥＲＩＮ＠ｘ．ｔｅｓｔ",
      "zoë@Bücher.test",
      "a@b@x.test",
      "a@x.test\r\nbcc: b@y.test",
      `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(58)}.test`,
      `${"a".repeat(64)}@${"ｂ".repeat(63)}.test`,
      // NFKC makes each of these 18 characters: 300 typed, 5,400 normalized (not remembered).
      `${"\ufdfa".repeat(300)}@x.test`,
      // Over the field's 320 characters: refused before any normalizing.
      `${"a".repeat(64)}@${"b".repeat(252)}.test`,
    ];
    for (let round = 0; round < 3; round++) {
      for (const typed of samples) expect(viaField(typed), typed).toEqual(direct(typed));
    }
    // 12,000 distinct addresses: the memo empties itself and every answer stays right.
    for (let i = 0; i < 12_000; i++) {
      const typed = i % 3 === 0 ? `User${i}@X.test` : i % 3 === 1 ? `bad ${i}@x.test` : `u${i}@x.${i}`;
      expect(viaField(typed)).toEqual(direct(typed));
    }
    expect(emailField.safeParse(`${"a".repeat(310)}@x.test`).success).toBe(false);
  });

  it("parseEmailInput - the same answer as parseInput(emailInput) for every input, valid or not, before and after the memos know it", () => {
    /** The settled answer: the parsed value, or the refusal's code and issues. */
    const answer = (parse: () => unknown) => {
      try {
        return { value: parse() };
      } catch (error) {
        const { code, issues } = error as { code: string; issues: unknown };
        return { code, issues };
      }
    };
    const prototypeless = Object.assign(Object.create(null), { email: "ada@example.test" });
    const inherited = Object.create({ email: "ada@example.test" });
    const inputs: unknown[] = [
      { email: " Ada@Example.TEST " },
      { email: "ＥＲＩＮ＠ｘ．ｔｅｓｔ", extra: "ignored" },
      { email: "zoë@Bücher.test" },
      { email: "" },
      { email: "not an address" },
      { email: "a@x.test\r\nbcc: b@y.test" },
      { email: `${"a".repeat(64)}@${"b".repeat(252)}.test` },
      { email: `${"\ufdfa".repeat(300)}@x.test` },
      { email: 42 },
      { email: ["ada@example.test"] },
      {},
      [],
      ["ada@example.test"],
      null,
      undefined,
      "ada@example.test",
      prototypeless,
      inherited,
    ];
    for (let round = 0; round < 3; round++) {
      for (const input of inputs) {
        const expected = answer(() => parseInput(emailInput, input));
        expect(
          answer(() => parseEmailInput(input)),
          JSON.stringify(input),
        ).toEqual(expected);
      }
    }
    const fast = parseEmailInput({ email: " Ada@Example.TEST ", extra: 1 });
    expect(fast).toEqual({ email: "ada@example.test" });
    expect(Object.keys(fast)).toEqual(["email"]);
  });
});
