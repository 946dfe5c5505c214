import { hash, parseOptions, verify } from "@node-rs/argon2";
import { consoleLogger, type Logger } from "../ports/logger.js";
import type { PasswordHasher } from "../ports/password-hasher.js";
import { createConcurrencyLimit } from "./concurrency-limit.js";
import {
  argon2HashProblem,
  importedHashKind,
  passwordHashProblem,
  verifyImportedHash,
} from "./imported-hashes.js";

/** argon2id parameters; the defaults are OWASP's minimum (m=19456 KiB, t=2, p=1). */
export interface Argon2Options {
  memoryCostKiB?: number;
  timeCost?: number;
  parallelism?: number;
  /**
   * At most this many hashes and verifies of this hasher run at once; the others wait their turn
   * in arrival order. Default: no limit, each goes straight to libuv's thread pool and waits in
   * its queue. That pool (`UV_THREADPOOL_SIZE`, 4 unless set) also runs WebCrypto, so every JWT
   * signature and check, and the host's file system and DNS work: while logins keep every thread
   * hashing, those wait behind all the hashes queued before them. A limit below the pool's size
   * keeps a thread free for them, at a cost in logins per second (docs/deploying.md has figures).
   */
  maxConcurrent?: number;
  /**
   * Where a stored hash refused for its parameters is reported (`password_hash.out_of_bounds`,
   * a warning with the kind and the parameters, never the hash). Default: `consoleLogger`.
   */
  logger?: Logger;
}

/** `Algorithm.Argon2id` of @node-rs/argon2 (a const enum, so spelled out here). */
const ARGON2ID = 2;

/**
 * The default hasher: argon2id with a random 16-byte salt per hash. `needsRehash` is true for a
 * hash of another algorithm or with other parameters, so logins upgrade old hashes. It also
 * verifies imported hashes (bcrypt, Django PBKDF2, PHC scrypt, Better Auth's scrypt, argon2i and
 * argon2d: see `imported-hashes.ts`), which the next successful login replaces with argon2id.
 * Tests that are not about hashing may pass cheaper parameters; production should not.
 */
export function createArgon2Hasher(options: Argon2Options = {}): PasswordHasher {
  const params = {
    memoryCost: options.memoryCostKiB ?? 19456,
    timeCost: options.timeCost ?? 2,
    parallelism: options.parallelism ?? 1,
  };
  const hashOptions = { ...params, algorithm: ARGON2ID };
  const limit =
    options.maxConcurrent === undefined
      ? <T>(task: () => Promise<T>) => task()
      : createConcurrencyLimit(options.maxConcurrent);
  const logger = options.logger ?? consoleLogger;
  return {
    hash: (password) => limit(() => hash(password, hashOptions)),
    verify(hashed, password) {
      // A stored hash whose parameters would make this verify take minutes or gigabytes (an
      // import gone wrong, a planted record) verifies nothing, at once: it is never hashed.
      const problem =
        importedHashKind(hashed) !== null ? passwordHashProblem(hashed) : argon2HashProblem(hashed, params);
      if (problem === "out_of_bounds") {
        reportOutOfBounds(logger, hashed);
        return Promise.resolve(false);
      }
      return limit(async () => {
        try {
          if (importedHashKind(hashed) !== null) return await verifyImportedHash(hashed, password);
          return await verify(hashed, password);
        } catch {
          return false;
        }
      });
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

/** Logs a refused hash by its kind and parameters (the numbers only: never the hash). */
function reportOutOfBounds(logger: Logger, hashed: string) {
  const kind = importedHashKind(hashed) ?? "argon2";
  const parameters = /^\$[^$]+\$(?:v=\d+\$)?([a-z]+=\d+(?:,[a-z]+=\d+)*)/.exec(hashed)?.[1];
  const cost =
    kind === "bcrypt" ? hashed.slice(4, 6) : kind === "django-pbkdf2" ? hashed.split("$")[1] : undefined;
  logger.warn(
    { event: "password_hash.out_of_bounds", kind, parameters: parameters ?? cost },
    "a stored password hash asks for more than the verify bounds allow (docs/importing-users.md); it verifies nothing",
  );
}
