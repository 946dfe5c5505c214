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

/**
 * The shape every session id has: 16 to 64 base64url characters (`randomId`, or a store's
 * `createSessionId` under the SessionStore contract). Ids from paths and bodies are checked
 * against it before a store sees them: one of another shape cannot exist (and a NUL, invalid
 * UTF-8 or 10 kB of text would reach a database driver that may refuse it with an error).
 */
export function isSessionId(value: string): boolean {
  return SESSION_ID.test(value);
}

const SESSION_ID = /^[A-Za-z0-9_-]{16,64}$/;
