import { randomInt } from "node:crypto";
import { guardPort } from "../errors.js";
import type { CooldownStore } from "../ports/cooldown-store.js";
import type { KeyedHash } from "../tokens/keys.js";

const RECOVERY_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
/** A claimed code stays claimed longer than any account keeps a set. */
const CLAIM_MS = 366 * 24 * 3600 * 1000;

/**
 * Recovery codes: 10 per set, 50 random bits each, shown once as `XXXXX-XXXXX`, stored as an
 * HMAC-SHA-256 under a key derived from `twoFactor.encryptionKey` (or `secret`), so a leaked
 * table cannot be searched offline without the key.
 */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: 10 }, () => {
    const chars = Array.from(
      { length: 10 },
      () => RECOVERY_ALPHABET[randomInt(0, RECOVERY_ALPHABET.length)],
    ).join("");
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

const normalizeRecoveryCode = (code: string) => code.toUpperCase().replace(/[\s-]/g, "");

/** The hash to store for a new code. */
export const recoveryCodeHash = (keyed: KeyedHash, code: string) => keyed.hash(normalizeRecoveryCode(code));

/** The stored hash a presented code matches (current key first, then rotated ones), if any. */
export const findRecoveryCode = (keyed: KeyedHash, stored: readonly string[], code: string) =>
  keyed.candidates(normalizeRecoveryCode(code)).find((candidate) => stored.includes(candidate));

const claimKey = (userId: string, hash: string) => `two-factor:recovery:${userId}:${hash}`;

/** A stored recovery code works once: of concurrent uses, exactly one claims it. */
export async function claimRecoveryCode(
  cooldowns: CooldownStore,
  userId: string,
  hash: string | undefined,
): Promise<boolean> {
  if (hash === undefined) return false;
  const { acquired } = await guardPort("EMAIL_COOLDOWN_CACHE_FAILURE", () =>
    cooldowns.acquire(claimKey(userId, hash), CLAIM_MS),
  );
  return acquired;
}

/** Gives a claim back when the code could not be removed from the account, so it is not lost. */
export async function releaseRecoveryCode(
  cooldowns: CooldownStore,
  userId: string,
  hash: string,
): Promise<void> {
  await cooldowns.release(claimKey(userId, hash)).catch(() => undefined);
}
