import { createHash, timingSafeEqual } from "node:crypto";

/** An S256 code challenge: the base64url SHA-256 of a verifier, 43 characters without padding. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** A code verifier (RFC 7636 §4.1): 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/**
 * True when `value` can be an S256 code challenge (RFC 7636 §4.2): 43 base64url characters, the
 * length of a SHA-256 digest. The provider takes no other method, so a `plain` challenge (a
 * verifier sent as it is) is refused when it is not of this shape.
 */
export function isCodeChallenge(value: unknown): value is string {
  return typeof value === "string" && CHALLENGE.test(value);
}

/** True when `value` is a well-formed code verifier (RFC 7636 §4.1): 43 to 128 of `[A-Za-z0-9-._~]`. */
export function isCodeVerifier(value: unknown): value is string {
  return typeof value === "string" && VERIFIER.test(value);
}

/**
 * True when `verifier` is well-formed and its S256 transform, `BASE64URL(SHA256(verifier))`, is
 * `challenge` (RFC 7636 §4.6), compared in constant time. Only S256 exists here: a malformed
 * verifier or challenge is false.
 */
export function verifyCodeVerifier(verifier: string, challenge: string): boolean {
  if (!isCodeVerifier(verifier) || !isCodeChallenge(challenge)) return false;
  const expected = Buffer.from(challenge, "latin1");
  const actual = Buffer.from(createHash("sha256").update(verifier, "ascii").digest("base64url"), "latin1");
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
