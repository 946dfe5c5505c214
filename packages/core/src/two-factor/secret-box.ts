import type { webcrypto } from "node:crypto";
import { AuthError } from "../errors.js";
import { type KeyMaterial, keyBytes } from "../tokens/keys.js";

/**
 * Encrypts secrets before they reach a store (TOTP secrets): AES-256-GCM via WebCrypto, a random
 * 96-bit IV per value, the key derived once with HKDF-SHA-256 from the configured key material.
 * Values look like `v1.<iv>.<ciphertext+tag>` (base64url). Any failure is `DATABASE_ENCRYPTION_FAILURE`.
 */
export interface SecretBox {
  seal(plaintext: string): Promise<string>;
  open(sealed: string): Promise<string>;
}

/**
 * `keyMaterial` may be a list (rotation): values are sealed under the first and opened with
 * whichever key's authentication tag matches.
 */
export function createSecretBox(keyMaterial: readonly KeyMaterial[]): SecretBox {
  const keys = keyMaterial.map((material) => deriveKey(keyBytes(material)));
  const [current] = keys;
  if (!current) throw new TypeError("at least one key is required");
  return {
    async seal(plaintext) {
      try {
        const iv = crypto.getRandomValues(new Uint8Array(12));
        const sealed = await crypto.subtle.encrypt(
          { name: "AES-GCM", iv },
          await current,
          new TextEncoder().encode(plaintext),
        );
        return `v1.${Buffer.from(iv).toString("base64url")}.${Buffer.from(sealed).toString("base64url")}`;
      } catch (error) {
        throw new AuthError("DATABASE_ENCRYPTION_FAILURE", { cause: error });
      }
    },
    async open(sealed) {
      const [version, iv, data] = sealed.split(".");
      if (version !== "v1" || !iv || !data)
        throw new AuthError("DATABASE_ENCRYPTION_FAILURE", { cause: new Error("not a sealed value") });
      let lastError: unknown;
      for (const key of keys) {
        try {
          const plain = await crypto.subtle.decrypt(
            { name: "AES-GCM", iv: Buffer.from(iv, "base64url") },
            await key,
            Buffer.from(data, "base64url"),
          );
          return new TextDecoder().decode(plain);
        } catch (error) {
          lastError = error;
        }
      }
      throw new AuthError("DATABASE_ENCRYPTION_FAILURE", { cause: lastError });
    },
  };
}

function deriveKey(raw: Uint8Array): Promise<webcrypto.CryptoKey> {
  return crypto.subtle.importKey("raw", raw, "HKDF", false, ["deriveKey"]).then((base) =>
    crypto.subtle.deriveKey(
      {
        name: "HKDF",
        hash: "SHA-256",
        salt: new Uint8Array(0),
        info: new TextEncoder().encode("portcullis secret box v1"),
      },
      base,
      { name: "AES-GCM", length: 256 },
      false,
      ["encrypt", "decrypt"],
    ),
  );
}
