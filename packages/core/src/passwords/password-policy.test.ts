import { describe, expect, it } from "vitest";
import { checkPasswordPolicy, normalizePassword } from "./password-policy.js";

const policy = { minLength: 8, maxLength: 256 };
const violation = (password: string) => {
  try {
    checkPasswordPolicy(password, policy);
    return null;
  } catch (error) {
    return (error as { code: string }).code;
  }
};

describe("password policy", () => {
  it("checkPasswordPolicy - length counts code points, 64+ characters work, no composition rules", () => {
    expect(violation("a".repeat(7))).toBe("PASSWORD_POLICY_VIOLATION");
    expect(violation("correct horse battery staple")).toBeNull();
    expect(violation("x".repeat(64))).toBeNull();
    expect(violation("\u{1F600}".repeat(8))).toBeNull();
    expect(violation("y".repeat(257))).toBe("PASSWORD_POLICY_VIOLATION");
  });

  it("checkPasswordPolicy - refuses common passwords in any case", () => {
    expect(violation("Password123")).toBe("PASSWORD_POLICY_VIOLATION");
    expect(violation("QWERTYUIOP")).toBe("PASSWORD_POLICY_VIOLATION");
  });

  it("normalizePassword - NFKC, the same at set and verify", () => {
    expect(normalizePassword("\uFF21\uFF22c\u0301")).toBe("ABc\u0301".normalize("NFKC"));
    expect(checkPasswordPolicy("pa\u00dfwort-\uFF11\uFF12", policy)).toBe(
      normalizePassword("pa\u00dfwort-12"),
    );
  });
});
