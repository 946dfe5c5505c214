/**
 * One asymmetric signing key of the OAuth / OpenID provider (docs/architecture.md, "The OAuth
 * 2.1 / OpenID provider"), as stored. The store keeps it as given; the provider makes, seals and
 * reads it.
 */
export interface SigningKeyRecord {
  /** The key id (`kid` of the JWKS and of every token it signs): random, unique. */
  kid: string;
  /** The JWS algorithm: `ES256` or `EdDSA`. */
  alg: string;
  /** The public key as a JWK in JSON text: what the JWKS publishes. */
  publicJwk: string;
  /**
   * The private key, sealed by the provider (encrypted under a key derived from `secret`): opaque
   * text to the store, useless without the host's secret.
   */
  sealedPrivateKey: string;
  /** When it was made (ms since the epoch). */
  createdAt: number;
  /**
   * From when it signs (ms): later than `createdAt`, so the JWKS that relying parties cache
   * holds the key before any token it signed reaches them. The key that signs is the one with the
   * latest `activatesAt` that has passed; each key is retired when the next one activates.
   */
  activatesAt: number;
}

/**
 * Where the provider's signing keys live. Optional in `stores`; required while the OAuth provider
 * is on. Every instance of a deployment reads the same keys, so they all sign with the same key
 * and publish the same JWKS. Records are returned as copies. Every method rejects only when the
 * store itself fails.
 */
export interface SigningKeyStore {
  /** Every stored key, the latest `createdAt` first (ties: `kid` descending); `[]` when none. */
  listSigningKeys(): Promise<SigningKeyRecord[]>;
  /**
   * Stores `key` unless a key with `createdAt` at or after `unlessCreatedSince` is stored: true
   * when it stored it. The check and the write are one atomic step, so of N instances that decide
   * together that the newest key is too old and each add one (all with `unlessCreatedSince` after
   * that key's `createdAt`), exactly one stores its key. Rejects (storing nothing) when a key with
   * the same `kid` exists.
   */
  addSigningKey(key: SigningKeyRecord, unlessCreatedSince: number): Promise<boolean>;
  /**
   * Deletes the keys named (retired keys no token they signed can still be valid with); resolves
   * to how many existed. Names of keys that do not exist are skipped.
   */
  deleteSigningKeys(kids: readonly string[]): Promise<number>;
}
