import { hash, parseOptions, verify } from "@node-rs/argon2";
import type { PasswordHasher } from "../ports/password-hasher.js";

/** argon2id parameters; the defaults are OWASP's minimum (m=19456 KiB, t=2, p=1). */
export interface Argon2Options {
  memoryCostKiB?: number;
  timeCost?: number;
  parallelism?: number;
}

/** `Algorithm.Argon2id` of @node-rs/argon2 (a const enum, so spelled out here). */
const ARGON2ID = 2;

/**
 * The default hasher: argon2id with a random 16-byte salt per hash. `needsRehash` is true for a
 * hash of another algorithm or with other parameters, so logins upgrade old hashes.
 * Tests that are not about hashing may pass cheaper parameters; production should not.
 */
export function createArgon2Hasher(options: Argon2Options = {}): PasswordHasher {
  const params = {
    memoryCost: options.memoryCostKiB ?? 19456,
    timeCost: options.timeCost ?? 2,
    parallelism: options.parallelism ?? 1,
  };
  const hashOptions = { ...params, algorithm: ARGON2ID };
  return {
    hash: (password) => hash(password, hashOptions),
    async verify(hashed, password) {
      try {
        return await verify(hashed, password);
      } catch {
        return false;
      }
    },
    needsRehash(hashed) {
      try {
        const parsed = parseOptions(hashed);
        return (
          (parsed.algorithm as number) !== ARGON2ID ||
          parsed.memoryCost !== params.memoryCost ||
          parsed.timeCost !== params.timeCost ||
          parsed.parallelism !== params.parallelism
        );
      } catch {
        return true;
      }
    },
  };
}
