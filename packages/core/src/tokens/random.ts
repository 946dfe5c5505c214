import { createHash, randomBytes } from "node:crypto";

/** `bytes` random bytes from the CSPRNG, base64url-encoded. */
export function randomToken(bytes: number): string {
  return randomBytes(bytes).toString("base64url");
}

/** SHA-256 of a token, base64url-encoded: what stores keep instead of the token. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("base64url");
}

/** A random id for users, sessions and token ids (128 bits). */
export function randomId(): string {
  return randomBytes(16).toString("base64url");
}
