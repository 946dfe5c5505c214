import { randomBytes } from "node:crypto";
import { crc32 } from "node:zlib";

/**
 * The format of an API key (docs/api-keys.md): `pc_`, 32 random bytes as 43 base62 characters, and a
 * 6-character base62 CRC-32 of those 43. The checksum refuses a mistyped or cut key without a
 * store read, and the fixed shape lets a secret scanner match it (`pc_[0-9A-Za-z]{49}`). The first
 * 12 characters after `pc_` are the key's lookup id (not secret: the store finds the key by it);
 * the other 31 (184 random bits) are what only its holder knows.
 */
export const API_KEY_PREFIX = "pc_";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const BODY_LENGTH = 43;
const CHECKSUM_LENGTH = 6;
const LOOKUP_ID_LENGTH = 12;
/** How many characters after `pc_` the listing shows (`start`). */
const SHOWN_LENGTH = 8;
const KEY_PATTERN = /^pc_[0-9A-Za-z]{49}$/;

/** `value` in base62, left-padded with `0` to `length` characters. */
function base62(value: bigint, length: number): string {
  let text = "";
  let rest = value;
  while (rest > 0n) {
    text = ALPHABET[Number(rest % 62n)] + text;
    rest /= 62n;
  }
  return text.padStart(length, "0");
}

const checksumOf = (body: string) => base62(BigInt(crc32(body)), CHECKSUM_LENGTH);

/** A new key, its lookup id and the part of it lists show. */
export function generateApiKey(): { key: string; lookupId: string; start: string } {
  const body = base62(BigInt(`0x${randomBytes(32).toString("hex")}`), BODY_LENGTH);
  return {
    key: `${API_KEY_PREFIX}${body}${checksumOf(body)}`,
    lookupId: body.slice(0, LOOKUP_ID_LENGTH),
    start: `${API_KEY_PREFIX}${body.slice(0, SHOWN_LENGTH)}`,
  };
}

/** True when `token` is meant as an API key (it starts with `pc_`), well-formed or not. */
export function looksLikeApiKey(token: string | undefined): token is string {
  return token?.startsWith(API_KEY_PREFIX) === true;
}

/**
 * The lookup id of a well-formed key whose checksum matches; null for anything else (a typo, a
 * cut or padded key), which is refused without reading the store.
 */
export function apiKeyLookupId(key: string): string | null {
  if (!KEY_PATTERN.test(key)) return null;
  const body = key.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + BODY_LENGTH);
  if (checksumOf(body) !== key.slice(API_KEY_PREFIX.length + BODY_LENGTH)) return null;
  return body.slice(0, LOOKUP_ID_LENGTH);
}
