/** A single-use token record (password reset, email verification, 2FA challenges). */
export interface TokenRecord {
  /** What the token is for, e.g. `password-reset`; a token never works for another purpose. */
  purpose: string;
  /** SHA-256 (base64url) of the token; the token itself is never stored. */
  tokenHash: string;
  userId: string;
  /** Milliseconds since the Unix epoch after which the core refuses the token as expired. */
  expiresAt: number;
  /** Purpose-specific data, e.g. the exact address a verification token was sent to. */
  data?: Record<string, string | number | boolean | null>;
}

/**
 * Single-use tokens: password-reset and verification links, 2FA challenges and codes, identity
 * provider state. Every method rejects only when the store itself fails (token writes for
 * verification are reported as `EMAIL_VERIFICATION_TOKEN_CREATION_FAILURE`, the rest as
 * `DATABASE_FAILURE`). Expired tokens must read as absent.
 */
export interface SingleUseTokenStore {
  /**
   * Stores a single-use token for `ttlMs` milliseconds (keep it somewhat past `expiresAt` so an
   * expired token can be told from an unknown one). With `replaceOthers`, first deletes every
   * other token of the same user and purpose (a newer email invalidates older links).
   */
  saveToken(token: TokenRecord, ttlMs: number, options?: { replaceOthers?: boolean }): Promise<void>;
  /**
   * Atomically reads and deletes the token: of concurrent calls, exactly one gets the record; null
   * when absent. It also deletes a token that `claimToken` holds (that is how a claim finishes).
   */
  consumeToken(purpose: string, tokenHash: string): Promise<TokenRecord | null>;
  /**
   * Optional (a store without it makes the core consume the token first and save it back when a
   * later step fails, as before; it logs a warning once). Atomically claims the token for
   * `leaseMs` milliseconds without deleting it: of concurrent calls, exactly one gets the record;
   * the others, and every later call until the lease ends or `releaseToken` is called, get null,
   * as for an absent token. When the lease ends the token can be claimed again, so a process that
   * dies between the claim and `consumeToken` leaves the link working. Null when absent.
   * A store implementing it must implement `releaseToken` too, and `saveToken` of the same
   * purpose and hash must drop an existing claim.
   */
  claimToken?(purpose: string, tokenHash: string, leaseMs: number): Promise<TokenRecord | null>;
  /** Optional, with `claimToken`: ends a claim at once, so the token can be claimed again; no-op when absent. */
  releaseToken?(purpose: string, tokenHash: string): Promise<void>;
  /**
   * Optional (added with trusted browsers; without it no browser is ever trusted and the
   * trusted-browser routes list nothing): the user's live tokens of this purpose, in no
   * particular order; empty when none. Expired tokens and other users' tokens are never listed.
   * Reads only: nothing is claimed or deleted.
   */
  listUserTokens?(userId: string, purpose: string): Promise<TokenRecord[]>;
  /** Deletes every token of the user with this purpose; returns how many. */
  deleteUserTokens(userId: string, purpose: string): Promise<number>;
}
