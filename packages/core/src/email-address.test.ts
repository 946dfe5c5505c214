import { describe, expect, it } from "vitest";
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
});
