import { webcrypto } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createArgon2Hasher } from "./argon2-hasher.js";

const PASSWORD = "correct horse battery staple";

/**
 * Starts `count` verifies on `hasher`, then one WebCrypto HMAC signature (what every JWT
 * signature and check is); answers how many verifies had finished when the signature was done.
 */
async function verifiesDoneBeforeAnHmac(hasher: ReturnType<typeof createArgon2Hasher>, count: number) {
  const hashed = await hasher.hash(PASSWORD);
  const key = await webcrypto.subtle.importKey(
    "raw",
    new Uint8Array(32).fill(7),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  let done = 0;
  const verifies = Array.from({ length: count }, () =>
    hasher.verify(hashed, PASSWORD).then((ok) => {
      done += 1;
      return ok;
    }),
  );
  await webcrypto.subtle.sign("HMAC", key, new Uint8Array(64));
  const doneThen = done;
  expect(await Promise.all(verifies)).toEqual(Array(count).fill(true));
  return doneThen;
}

describe("createArgon2Hasher", () => {
  it.skipIf(Number(process.env.UV_THREADPOOL_SIZE) === 1)(
    "createArgon2Hasher - with maxConcurrent below the thread pool's size, a JWT signature does not wait behind queued verifies",
    async () => {
      // libuv's pool: 4 threads unless UV_THREADPOOL_SIZE says otherwise.
      const pool = Number(process.env.UV_THREADPOOL_SIZE) || 4;
      const limited = await verifiesDoneBeforeAnHmac(
        createArgon2Hasher({ maxConcurrent: pool - 1 }),
        3 * pool,
      );
      // By default every thread hashes, and the signature waits in libuv's queue behind the
      // verifies queued before it (two thirds of them): the test can tell the two apart.
      const unlimited = await verifiesDoneBeforeAnHmac(createArgon2Hasher(), 3 * pool);
      expect(limited).toBeLessThanOrEqual(1);
      expect(unlimited).toBeGreaterThanOrEqual(2 * pool);
    },
  );

  it("createArgon2Hasher - refuses a maxConcurrent that is not a positive integer", () => {
    expect(() => createArgon2Hasher({ maxConcurrent: 0 })).toThrow(RangeError);
  });
});
