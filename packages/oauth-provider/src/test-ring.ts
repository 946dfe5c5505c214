import { createMemorySigningKeyStore } from "@portcullis/store-memory";
import { createSigningKeyRing, type SigningKeyRingOptions } from "./signing-keys.js";

export const SECRET = "oauth-provider-test-secret-4b1e9c2d7f0a3e6b8c5d";
export const HOUR_MS = 3600 * 1000;
export const DAY_MS = 24 * HOUR_MS;

/** A clock the test moves. */
export function testClock(start = Date.UTC(2026, 10, 1)) {
  let now = start;
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
  };
}

/** A ring over a fresh memory store (or `options.store`), on `clock`, with a 1-hour token lifetime. */
export function testRing(clock: ReturnType<typeof testClock>, options: Partial<SigningKeyRingOptions> = {}) {
  const store = options.store ?? createMemorySigningKeyStore();
  const ring = createSigningKeyRing({ store, secret: SECRET, tokenLifetimeSeconds: 3600, clock, ...options });
  return { store, ring };
}
