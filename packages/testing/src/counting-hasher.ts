import { createArgon2Hasher, type PasswordHasher } from "@portcullis/core";

/**
 * A fast argon2id hasher (1 MiB, one pass) that counts its password checks (`verify`): for the
 * tests of how many checks a flow spends.
 */
export function createCountingHasher(): { passwordHasher: PasswordHasher; verifies(): number } {
  const cheap = createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 });
  let verifies = 0;
  const passwordHasher: PasswordHasher = {
    hash: (password) => cheap.hash(password),
    verify: (hash, password) => {
      verifies += 1;
      return cheap.verify(hash, password);
    },
    needsRehash: (hash) => cheap.needsRehash(hash),
  };
  return { passwordHasher, verifies: () => verifies };
}
