import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isCodeChallenge, isCodeVerifier, verifyCodeVerifier } from "./pkce.js";

// RFC 7636 Appendix B.
const RFC_VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const RFC_CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

describe("PKCE (S256)", () => {
  it("verifyCodeVerifier - the RFC 7636 Appendix B pair matches; a changed character on either side does not", () => {
    expect(verifyCodeVerifier(RFC_VERIFIER, RFC_CHALLENGE)).toBe(true);
    expect(verifyCodeVerifier(`${RFC_VERIFIER.slice(0, -1)}Y`, RFC_CHALLENGE)).toBe(false);
    expect(verifyCodeVerifier(RFC_VERIFIER, `${RFC_CHALLENGE.slice(0, -1)}N`)).toBe(false);
  });

  it("verifyCodeVerifier - a fresh random verifier matches only its own challenge", () => {
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const other = randomBytes(32).toString("base64url");
    expect(verifyCodeVerifier(verifier, challenge)).toBe(true);
    expect(verifyCodeVerifier(other, challenge)).toBe(false);
  });

  it("verifyCodeVerifier - the plain method (the verifier as its own challenge) is refused", () => {
    const verifier = RFC_VERIFIER; // 43 characters: shaped like a challenge too
    expect(isCodeChallenge(verifier)).toBe(true);
    expect(verifyCodeVerifier(verifier, verifier)).toBe(false);
  });

  it("verifyCodeVerifier - a verifier too short, too long or with other characters is false even when its hash matches", () => {
    const s256 = (text: string) => createHash("sha256").update(text).digest("base64url");
    for (const verifier of ["a".repeat(42), "a".repeat(129), `${"a".repeat(42)}+`, `${"a".repeat(42)} `])
      expect(verifyCodeVerifier(verifier, s256(verifier))).toBe(false);
    expect(verifyCodeVerifier("a".repeat(128), s256("a".repeat(128)))).toBe(true);
  });

  it("isCodeVerifier - 43 to 128 of [A-Za-z0-9-._~]", () => {
    expect(isCodeVerifier("a".repeat(43))).toBe(true);
    expect(isCodeVerifier(`${"Az09".repeat(10)}-._~`)).toBe(true);
    expect(isCodeVerifier("a".repeat(128))).toBe(true);
    expect(isCodeVerifier("a".repeat(42))).toBe(false);
    expect(isCodeVerifier("a".repeat(129))).toBe(false);
    expect(isCodeVerifier(`${"a".repeat(42)}/`)).toBe(false);
    expect(isCodeVerifier(`${"a".repeat(42)}é`)).toBe(false);
    expect(isCodeVerifier(undefined)).toBe(false);
    expect(isCodeVerifier(["a".repeat(43)])).toBe(false);
  });

  it("isCodeChallenge - exactly 43 base64url characters", () => {
    expect(isCodeChallenge(RFC_CHALLENGE)).toBe(true);
    expect(isCodeChallenge(`${RFC_CHALLENGE}=`)).toBe(false);
    expect(isCodeChallenge(RFC_CHALLENGE.slice(1))).toBe(false);
    expect(isCodeChallenge(`${RFC_CHALLENGE.slice(1)}+`)).toBe(false);
    expect(isCodeChallenge(`${RFC_CHALLENGE.slice(1)}.`)).toBe(false);
    expect(isCodeChallenge(null)).toBe(false);
  });
});
