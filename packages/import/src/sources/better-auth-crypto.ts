import { createHash } from "node:crypto";
import { xchacha20poly1305 } from "@noble/ciphers/chacha.js";
import { hexToBytes, managedNonce } from "@noble/ciphers/utils.js";

/*
 * How Better Auth keeps a user's TOTP secret and backup codes, read back here.
 *
 * Both are sealed with its `symmetricEncrypt`: the key is SHA-256 of the app secret's UTF-8 text
 * (`BETTER_AUTH_SECRET`), the cipher XChaCha20-Poly1305 with a random 24-byte nonce written in
 * front of the ciphertext and its tag, the whole in lower-case hex. With versioned secrets
 * (`BETTER_AUTH_SECRETS`) the hex is wrapped as `$ba$<version>$<hex>`; the cipher is the same.
 *
 * The decrypted TOTP secret is text: Better Auth's one-time passwords use its UTF-8 bytes as the
 * HMAC key, and its `otpauth://` URI carries those bytes in base32. A secret Better Auth took from
 * another system is stored as `base32:<secret>`, whose decoded bytes are the key instead.
 */

const ENVELOPE = /^\$ba\$\d+\$/;
const BASE32_PREFIX = "base32:";
const BASE32_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/**
 * The text Better Auth sealed in `data` under one of `secrets`, or null when none of them opens
 * it (a wrong secret, or data that is not such a ciphertext). The cipher authenticates, so a
 * wrong secret is told apart from a right one, never read as garbage.
 */
export function betterAuthDecrypt(data: string, secrets: readonly string[]): string | null {
  const hex = data.replace(ENVELOPE, "");
  if (!/^(?:[0-9a-f]{2})+$/i.test(hex)) return null;
  const sealed = hexToBytes(hex.toLowerCase());
  for (const secret of secrets) {
    const key = new Uint8Array(createHash("sha256").update(secret, "utf8").digest());
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(
        managedNonce(xchacha20poly1305)(key).decrypt(sealed),
      );
    } catch {
      // Not this secret: the tag did not match. The next one may be right.
    }
  }
  return null;
}

/** Bytes in RFC 4648 base32, upper case, without padding (as an `otpauth://` URI's `secret=`). */
export function toBase32(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32_ALPHABET[(buffer >> bits) & 31];
    }
  }
  if (bits > 0) out += BASE32_ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/**
 * The base32 secret an authenticator app holds for a decrypted Better Auth TOTP secret: the
 * base32 of its UTF-8 bytes, or, for one stored as `base32:<secret>`, that secret itself (upper
 * case, spaces and padding removed). Null when such an imported secret is not base32.
 */
export function betterAuthTotpSecret(decrypted: string): string | null {
  if (!decrypted.startsWith(BASE32_PREFIX)) return toBase32(new TextEncoder().encode(decrypted));
  const secret = decrypted.slice(BASE32_PREFIX.length).replace(/[\s=]/g, "").toUpperCase();
  return /^[A-Z2-7]+$/.test(secret) ? secret : null;
}

/**
 * Better Auth's backup codes as a list: stored as a JSON array in the clear (`storeBackupCodes:
 * "plain"`) or sealed like the secret (the default, `"encrypted"`). Null when they are sealed
 * under none of `secrets` or in a host's own format (`storeBackupCodes: { encrypt, decrypt }`).
 */
export function betterAuthBackupCodes(stored: string, secrets: readonly string[]): string[] | null {
  const text = stored.trimStart().startsWith("[") ? stored : betterAuthDecrypt(stored, secrets);
  if (text === null) return null;
  try {
    const codes: unknown = JSON.parse(text);
    return Array.isArray(codes) && codes.every((code) => typeof code === "string") ? codes : null;
  } catch {
    return null;
  }
}

/**
 * The Better Auth secrets an environment holds, as Better Auth reads them: each value of
 * `BETTER_AUTH_SECRETS` (`<version>:<secret>` pairs separated by commas, the rotation list), then
 * `BETTER_AUTH_SECRET` (or `AUTH_SECRET`), which opens what was sealed before the rotation. Empty
 * when none is set. Throws a `TypeError` naming the entry when the list is not such pairs.
 */
export function betterAuthSecretsFromEnv(env: Readonly<Record<string, string | undefined>>): string[] {
  const versioned = (env.BETTER_AUTH_SECRETS ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")
    .map((entry, index) => {
      const match = /^\d+:(.+)$/.exec(entry);
      if (!match?.[1]?.trim())
        throw new TypeError(`BETTER_AUTH_SECRETS entry ${index + 1} is not <version>:<secret>`);
      return match[1].trim();
    });
  const legacy = env.BETTER_AUTH_SECRET || env.AUTH_SECRET;
  return legacy ? [...versioned, legacy] : versioned;
}
