/**
 * Hashes and verifies passwords. The password arrives already NFKC-normalized by the core.
 * Implementations must use a random salt per hash and compare in constant time.
 */
export interface PasswordHasher {
  /** Returns a self-describing hash string (for argon2: the PHC string with its parameters). */
  hash(password: string): Promise<string>;
  /** True when `password` matches `hash`; false for a mismatch or a hash it cannot read (never throws for those). */
  verify(hash: string, password: string): Promise<boolean>;
  /** True when `hash` was made with other parameters than the current ones and should be replaced after a successful verify. */
  needsRehash(hash: string): boolean;
}
