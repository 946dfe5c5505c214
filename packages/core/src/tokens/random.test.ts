import { describe, expect, it } from "vitest";
import { randomHex, randomId, randomToken } from "./random.js";

describe("random ids and tokens (a pool of CSPRNG bytes)", () => {
  it("randomId - 16 bytes, base64url, none repeated over many refills of the pool", () => {
    const ids = Array.from({ length: 20_000 }, () => randomId());
    for (const id of ids.slice(0, 100)) expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("randomToken - the length asked for, across the pool's end and above its slice limit", () => {
    for (const bytes of [1, 16, 24, 32, 33, 512, 513, 5000]) {
      for (let i = 0; i < 200; i += 1) {
        const token = randomToken(bytes);
        expect(Buffer.from(token, "base64url").length).toBe(bytes);
      }
    }
  });

  it("randomToken - mixed sizes share no bytes: every 32-byte token differs from every other", () => {
    const tokens = new Set<string>();
    for (let i = 0; i < 5_000; i += 1) {
      randomToken(7);
      tokens.add(randomToken(32));
    }
    expect(tokens.size).toBe(5_000);
  });

  it("randomHex - lowercase hex of the length asked for; hex and base64url draws never hand out the same bytes", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5_000; i += 1) {
      const hex = randomHex(16);
      expect(hex).toMatch(/^[0-9a-f]{32}$/);
      seen.add(hex);
      seen.add(Buffer.from(randomToken(16), "base64url").toString("hex"));
    }
    expect(seen.size).toBe(10_000);
    expect(randomHex(600)).toMatch(/^[0-9a-f]{1200}$/);
  });
});
