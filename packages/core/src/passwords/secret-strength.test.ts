import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { estimateSecretBits, isWeakSecret, MIN_SECRET_BITS } from "./secret-strength.js";

/** The smallest estimate over `samples` secrets from `generate`, and how many were judged weak. */
function worstOf(generate: () => string | Uint8Array, samples: number) {
  let worst = Number.POSITIVE_INFINITY;
  let refused = 0;
  for (let i = 0; i < samples; i++) {
    const secret = generate();
    worst = Math.min(worst, estimateSecretBits(secret));
    if (isWeakSecret(secret)) refused++;
  }
  return { worst, refused };
}

describe("estimateSecretBits", () => {
  it.each([
    ["openssl rand -hex 32", 10_000, () => randomBytes(32).toString("hex")],
    ["openssl rand -base64 32", 10_000, () => randomBytes(32).toString("base64")],
    ["base64url of 32 bytes", 10_000, () => randomBytes(32).toString("base64url")],
    ["openssl rand -base64 48", 2_000, () => randomBytes(48).toString("base64")],
    ["32 raw bytes", 2_000, () => new Uint8Array(randomBytes(32))],
  ])(
    "isWeakSecret - accepts every random secret (%s, %i samples), with margin",
    (_, samples, generate) => {
      const { worst, refused } = worstOf(generate, samples);
      expect(refused).toBe(0);
      // The chance patterns of a random secret cost it far less than the room the rule leaves.
      expect(worst).toBeGreaterThan(MIN_SECRET_BITS + 48);
    },
    60_000,
  );

  it.each([
    ["0123456789abcdef0123456789abcdef"],
    ["abcdefghijklmnopqrstuvwxyz012345"],
    ["zyxwvutsrqponmlkjihgfedcba9876543210"],
    ["89abcdef0123456789abcdef0123456789abcdef"],
    ["acegikmoqsuwy02468acegikmoqsuwy0"],
    ["x".repeat(64)],
    ["ab".repeat(32)],
    ["secret12".repeat(6)],
    ["password".repeat(4)],
    ["P@ssw0rdP@ssw0rdP@ssw0rdP@ssw0rd"],
    ["changemechangemechangemechangeme"],
    ["changeme-changeme-please-change-me"],
    ["CHANGE-ME-TO-A-REAL-SECRET-VALUE!"],
    ["qwertyuiopasdfghjklzxcvbnm123456"],
    ["1qaz2wsx3edc4rfv5tgb6yhn7ujm8ik,9ol."],
    ["!@#$%^&*()_+!@#$%^&*()_+!@#$%^&*"],
    ["test-secret-0123456789-abcdefghijklmnop"],
    ["my-super-secret-key-for-jwt-signing"],
    ["letmein-letmein-admin-admin-example"],
    ["00000000-0000-0000-0000-000000000000"],
    ["0123456789abcdef"],
    ["==================================="],
  ])("isWeakSecret - refuses a placeholder (%s)", (secret) => {
    expect(isWeakSecret(secret)).toBe(true);
  });

  it("isWeakSecret - refuses patterned raw bytes", () => {
    expect(isWeakSecret(new Uint8Array(48).fill(7))).toBe(true);
    expect(isWeakSecret(Uint8Array.from({ length: 64 }, (_, i) => i))).toBe(true);
    expect(isWeakSecret(Uint8Array.from({ length: 64 }, (_, i) => i % 8))).toBe(true);
  });

  it("estimateSecretBits - a small alphabet needs more length: 32 hex digits never pass, 64 do", () => {
    for (let i = 0; i < 200; i++) {
      expect(isWeakSecret(randomBytes(16).toString("hex"))).toBe(true);
      expect(isWeakSecret(randomBytes(32).toString("hex"))).toBe(false);
    }
  });

  it("estimateSecretBits - a placeholder stays cheap however long it is", () => {
    expect(estimateSecretBits("changeme".repeat(64))).toBeLessThan(32);
    expect(estimateSecretBits("a".repeat(10_000))).toBeLessThan(32);
  });
});
