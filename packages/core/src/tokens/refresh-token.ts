import { hashToken, isSessionId, randomToken } from "./random.js";

/**
 * Refresh tokens are opaque: `<sessionId>.<256 random bits>`. The session id lets the store find
 * the session; only the SHA-256 of the whole token is stored, and it changes on every rotation.
 */
export interface IssuedRefreshToken {
  token: string;
  hash: string;
}

export function issueRefreshToken(sessionId: string): IssuedRefreshToken {
  const token = `${sessionId}.${randomToken(32)}`;
  return { token, hash: hashToken(token) };
}

/** Splits a presented refresh token; null when it does not have the shape of one. */
export function parseRefreshToken(token: string): { sessionId: string; hash: string } | null {
  if (token.length > 200) return null;
  const match = /^([^.]+)\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match?.[1] || !isSessionId(match[1])) return null;
  return { sessionId: match[1], hash: hashToken(token) };
}
