import type { AllowedAccessToken, AllowlistEntry } from "./access-token-allowlist.js";
import type { SessionRecord } from "./session-store.js";

/**
 * Optional (`stores.joint`): work on two of the configured stores in one step, for a store package
 * that keeps them side by side (`createSqlStores` returns one as `joint`). A host gives it only
 * together with the stores it works on, as that package created them: it stands for
 * `stores.users`, `stores.sessions` and `stores.allowlist` and must answer exactly as they would.
 * A host that wraps or replaces one of them (or takes it from another package) leaves `joint`
 * out. The core trusts it as given and compares no store with another.
 *
 * Each method is optional. Without `joint`, or without a method, the core makes the separate
 * calls on the stores instead, with the same result.
 */
export interface JointStores {
  /**
   * Optional: `allowlist.findAllowedAccessToken(jti)` and the read of the entry's user
   * (`users.findById(entry.userId)`) in one lookup (one query or script), so an authenticated
   * request costs one round trip. Null when the `jti` is not, or no longer, allowed (revocation
   * holds at once); otherwise the entry, with `user` as `users.findById` would answer at that
   * moment (null when the account is gone). A failed read rejects (reported as
   * `ACCESS_TOKEN_ALLOWLIST_READING_FAILURE`).
   */
  findAllowedAccessTokenWithUser?(jti: string): Promise<AllowedAccessToken | null>;
  /**
   * Optional: `allowlist.allowAccessToken(jti, entry, ttlMs)` and `sessions.createSession(session,
   * sessionTtlMs)` as one write (one statement or script): both are stored, exactly as the two
   * calls would have stored them, or neither. A sign-in then stores its new session in one round
   * trip. A failed write rejects (reported as `DATABASE_FAILURE`) and leaves neither; the core
   * does not fall back to the two calls then.
   */
  allowAccessTokenWithSession?(
    jti: string,
    entry: AllowlistEntry,
    ttlMs: number,
    session: SessionRecord,
    sessionTtlMs: number,
  ): Promise<void>;
}
