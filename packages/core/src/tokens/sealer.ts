import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { type KeyMaterial, keyBytes } from "./keys.js";

/** What a sealed text starts with: the format's version. */
const PREFIX = "v1.";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Seals a text for a store and opens it again (`createSealer`). */
export interface Sealer {
  /** `plain` sealed: `v1.` and base64url of a random IV, the ciphertext and the GCM tag. */
  seal(plain: string): string;
  /** The sealed text opened, or null when no secret opens it (changed, or sealed elsewhere). */
  open(text: string): string | null;
}

/**
 * Seals what a store keeps but must not give away to whoever reads its rows (an OAuth provider's
 * private keys, an identity provider's client secret): AES-256-GCM under a key derived with
 * HKDF-SHA-256 from each of the host's `secret`s for one purpose (`info`), a random 96-bit IV per
 * text. The first secret seals, every one opens, so a rotated secret still opens what it sealed;
 * a changed byte fails to open. Another `info` derives other keys: one purpose's texts never open
 * as another's.
 */
export function createSealer(secrets: readonly KeyMaterial[], info: string): Sealer {
  const keys = secrets.map((secret) =>
    Buffer.from(hkdfSync("sha256", keyBytes(secret), new Uint8Array(0), info, 32)),
  );
  const current = keys[0];
  if (!current) throw new TypeError("at least one secret is required");
  return {
    seal(plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", current, iv);
      const sealed = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return PREFIX + Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString("base64url");
    },
    open(text) {
      if (!text.startsWith(PREFIX)) return null;
      const bytes = Buffer.from(text.slice(PREFIX.length), "base64url");
      if (bytes.length <= IV_BYTES + TAG_BYTES) return null;
      const iv = bytes.subarray(0, IV_BYTES);
      const tag = bytes.subarray(bytes.length - TAG_BYTES);
      const body = bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES);
      for (const key of keys) {
        try {
          const decipher = createDecipheriv("aes-256-gcm", key, iv);
          decipher.setAuthTag(tag);
          return Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8");
        } catch {
          // Not this secret's: the next one may open it.
        }
      }
      return null;
    },
  };
}
