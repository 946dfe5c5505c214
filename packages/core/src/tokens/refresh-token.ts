import type { KeyedHash } from "./keys.js";
import { hashToken, isSessionId, randomToken } from "./random.js";

/**
 * Refresh tokens are opaque: `<sessionId>.<256 bits>`. The session id lets the store find the
 * session; only the SHA-256 of the whole token is stored, and it changes on every rotation. A
 * session's first token is random; each later one is derived from the token it replaces
 * (`successorRefreshToken`), so the core can hand the current token to whoever presents its
 * parent within the reuse interval without any store keeping a token.
 */
export interface IssuedRefreshToken {
  token: string;
  hash: string;
}

export function issueRefreshToken(sessionId: string): IssuedRefreshToken {
  const token = `${sessionId}.${randomToken(32)}`;
  return { token, hash: hashToken(token) };
}

/**
 * The token that replaces `parent` on rotation: `<sessionId>.<HMAC-SHA-256(parent)>` under a key
 * derived from the secret (the current one; `candidates` lists one per secret, for rotated keys).
 * Unpredictable without the secret, and the same every time for one parent.
 */
export function successorRefreshToken(
  keyedHash: KeyedHash,
  sessionId: string,
  parent: string,
): IssuedRefreshToken & { candidates: IssuedRefreshToken[] } {
  const candidates = keyedHash.candidates(parent).map((mac) => {
    const token = `${sessionId}.${mac}`;
    return { token, hash: hashToken(token) };
  });
  const first = candidates[0] as IssuedRefreshToken;
  return { ...first, candidates };
}

/** Splits a presented refresh token; null when it does not have the shape of one. */
export function parseRefreshToken(token: string): { sessionId: string; hash: string } | null {
  if (token.length > 200) return null;
  const match = /^([^.]+)\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match?.[1] || !isSessionId(match[1])) return null;
  return { sessionId: match[1], hash: hashToken(token) };
}
