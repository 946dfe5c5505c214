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
  // A few hundred of each: the margin below is what makes them safe, not the count (10,000 each
  // took 100 s on a busy machine and never found a worse one than a few hundred do).
  it.each([
    ["openssl rand -hex 32", 300, () => randomBytes(32).toString("hex")],
    ["openssl rand -base64 32", 300, () => randomBytes(32).toString("base64")],
    ["base64url of 32 bytes", 300, () => randomBytes(32).toString("base64url")],
    ["openssl rand -base64 48", 100, () => randomBytes(48).toString("base64")],
    ["32 raw bytes", 100, () => new Uint8Array(randomBytes(32))],
  ])("isWeakSecret - accepts every random secret (%s, %i samples), with margin", (_, samples, generate) => {
    const { worst, refused } = worstOf(generate, samples);
    expect(refused).toBe(0);
    // The chance patterns of a random secret cost it far less than the room the rule leaves.
    expect(worst).toBeGreaterThan(MIN_SECRET_BITS + 48);
  });

  // Chosen inputs, one per branch of the estimate, each free of every other pattern.
  const HEX8 = "3a9e07c5"; // hex digits: 16 symbols, no repeat, sequence, walk or word
  it.each([
    ["hex digits: 4 bits each", HEX8, 8 * 4],
    ["digits and letters of both cases: 62 symbols", "kQ7mZ0wR", 8 * Math.log2(62)],
    ["symbols count one each, as they occur", "k7!m%0", 6 * Math.log2(10 + 26 + 2)],
    ["non-ASCII characters count one each", "kä7öm0", 6 * Math.log2(10 + 26 + 2)],
    ["bytes that are not printable ASCII: 8 bits each", new Uint8Array([0, 200, 17, 99]), 4 * 8],
    ["a repeat: log2(position) + log2(length)", HEX8 + HEX8, 8 * 4 + Math.log2(8) + Math.log2(8)],
    ["a sequence in code points", "abcdefgh", Math.log2(26) + 2 + Math.log2(8)],
    ["a sequence stepping -2", "zxvtrp", Math.log2(26) + 2 + Math.log2(6)],
    ["a sequence in hex order", "89abcdef", 4 + 2 + Math.log2(8)],
    ["base64 padding is ignored", `${HEX8}==`, 8 * 4],
    ["nothing", "", 0],
  ])("estimateSecretBits - %s", (_, secret, bits) => {
    expect(estimateSecretBits(secret)).toBeCloseTo(bits, 6);
  });

  it("estimateSecretBits - walks and words cost a few bits whatever their length; upper case one more", () => {
    for (const walk of ["asdfghjk", "1qaz2wsx", "!@#$%^&*", "poiuytre"])
      expect(estimateSecretBits(walk)).toBeLessThan(24);
    for (const word of ["changeme", "p@ssw0rd", "placeholder"])
      expect(estimateSecretBits(word)).toBeLessThan(8);
    expect(estimateSecretBits("Changeme")).toBeCloseTo(estimateSecretBits("changeme") + 1, 6);
    expect(estimateSecretBits("Asdfghjk")).toBeCloseTo(estimateSecretBits("asdfghjk") + 1, 6);
  });

  it("estimateSecretBits - only the first 512 characters are read", () => {
    const long = randomBytes(450).toString("base64");
    expect(long.length).toBeGreaterThan(512);
    expect(estimateSecretBits(long)).toBe(estimateSecretBits(long.slice(0, 512)));
  });

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
    for (let i = 0; i < 50; i++) {
      expect(isWeakSecret(randomBytes(16).toString("hex"))).toBe(true);
      expect(isWeakSecret(randomBytes(32).toString("hex"))).toBe(false);
    }
  });

  it("estimateSecretBits - a placeholder stays cheap however long it is", () => {
    expect(estimateSecretBits("changeme".repeat(64))).toBeLessThan(32);
    expect(estimateSecretBits("a".repeat(10_000))).toBeLessThan(32);
  });
});
