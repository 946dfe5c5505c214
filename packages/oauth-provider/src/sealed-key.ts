import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/** Key material as `secret` takes it: text (UTF-8) or bytes. */
export type KeyMaterial = string | Uint8Array;

/** What a sealed private key starts with: the format's version. */
const PREFIX = "v1.";
const IV_BYTES = 12;
const TAG_BYTES = 16;

const bytesOf = (material: KeyMaterial): Uint8Array =>
  typeof material === "string" ? new TextEncoder().encode(material) : material;

/** AES-256 keys derived with HKDF-SHA-256 from each secret, one per purpose (`info`). */
const sealingKeys = (secrets: readonly KeyMaterial[], info: string): Buffer[] =>
  secrets.map((secret) => Buffer.from(hkdfSync("sha256", bytesOf(secret), new Uint8Array(0), info, 32)));

/**
 * Seals and opens the provider's private keys for the store: AES-256-GCM under a key derived
 * from the host's `secret` (a list: the first seals, every one opens, so a rotated secret still
 * opens the keys it sealed), a random 96-bit IV per key. A stolen table of sealed keys signs
 * nothing without the secret, and a changed byte fails to open. Another `info` derives other keys
 * for another purpose (the consent requests' ids).
 */
export function createKeySealer(secrets: readonly KeyMaterial[], info = "portcullis oauth signing key v1") {
  const keys = sealingKeys(secrets, info);
  const current = keys[0];
  if (!current) throw new TypeError("at least one secret is required");
  return {
    seal(plain: string): string {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", current, iv);
      const sealed = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return PREFIX + Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString("base64url");
    },
    /** The sealed text opened, or null when no secret opens it (changed, or sealed elsewhere). */
    open(text: string): string | null {
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

export type KeySealer = ReturnType<typeof createKeySealer>;
