import {
  createHash,
  createHmac,
  createSecretKey,
  hkdfSync,
  type KeyObject,
  type webcrypto,
} from "node:crypto";
import { AuthError } from "../errors.js";

/** Key material as options take it: a string (UTF-8) or bytes. */
export type KeyMaterial = string | Uint8Array;

export const keyBytes = (material: KeyMaterial): Uint8Array =>
  typeof material === "string" ? new TextEncoder().encode(material) : material;

/** A non-secret name for a key: the first 8 bytes of its SHA-256, base64url. */
export const keyId = (material: KeyMaterial): string =>
  createHash("sha256").update(keyBytes(material)).digest().subarray(0, 8).toString("base64url");

/** A JWT's protected header, as jose hands it to a key resolver. */
interface JwtHeader {
  kid?: string | undefined;
}

export interface SigningKeys {
  /** The `kid` new tokens carry. */
  readonly currentKid: string;
  /** The key new tokens are signed with (the first secret), for node:crypto's HMAC (jwt.ts). */
  readonly currentSecret: KeyObject;
  /**
   * A jose key resolver: the key named by the token's `kid`; a token without `kid` (made before
   * rotation existed) is tried with the current key; an unknown `kid` is refused.
   */
  resolve(header: JwtHeader): Promise<webcrypto.CryptoKey>;
}

/**
 * HMAC-SHA-256 keys for JWTs, from `secret` (one, or a list: the first signs, every one
 * verifies, so a new secret can be put first while tokens signed with the old one run out).
 * Each key is imported once: the first also as a node:crypto key for signing, each as a WebCrypto
 * key for jose's verification.
 */
export function createSigningKeys(secrets: readonly KeyMaterial[], invalid: AuthError["code"]): SigningKeys {
  const entries = secrets.map((secret) => ({
    kid: keyId(secret),
    key: crypto.subtle.importKey("raw", keyBytes(secret), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
      "verify",
    ]),
  }));
  const first = entries[0];
  if (!first) throw new TypeError("at least one secret is required");
  const byKid = new Map(entries.map((entry) => [entry.kid, entry.key]));
  return {
    currentKid: first.kid,
    currentSecret: createSecretKey(keyBytes(secrets[0] as KeyMaterial)),
    resolve(header) {
      const key = header.kid === undefined ? first.key : byKid.get(header.kid);
      if (!key) throw new AuthError(invalid, { message: "unknown kid" });
      return key;
    },
  };
}

/**
 * A keyed hash for values that are stored to be compared, never read back (recovery codes):
 * HMAC-SHA-256 under a key derived with HKDF from the key material and a purpose label.
 */
export function createKeyedHash(materials: readonly KeyMaterial[], purpose: string) {
  // node:crypto key objects, made once: each HMAC then starts from the key, not from raw bytes.
  const keys = materials.map((material) =>
    createSecretKey(
      Buffer.from(hkdfSync("sha256", keyBytes(material), new Uint8Array(0), `portcullis ${purpose}`, 32)),
    ),
  );
  const digest = (key: KeyObject, value: string) =>
    createHmac("sha256", key).update(value).digest("base64url");
  return {
    /** The hash to store, under the current key. */
    hash: (value: string) => digest(keys[0] as KeyObject, value),
    /** The hashes `value` may have been stored under, current key first (for rotated keys). */
    candidates: (value: string) => keys.map((key) => digest(key, value)),
  };
}
export type KeyedHash = ReturnType<typeof createKeyedHash>;
