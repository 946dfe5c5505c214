import { describe, expect, it } from "vitest";
import { apiKeyLookupId, generateApiKey, looksLikeApiKey } from "./key-format.js";

describe("key format", () => {
  it("generateApiKey - pc_ and 49 base62 characters; the lookup id and start are its first characters", () => {
    const keys = Array.from({ length: 200 }, generateApiKey);
    for (const { key, lookupId, start } of keys) {
      expect(key).toMatch(/^pc_[0-9A-Za-z]{49}$/);
      expect(key.startsWith(`pc_${lookupId}`)).toBe(true);
      expect(lookupId).toHaveLength(12);
      expect(start).toBe(key.slice(0, 11));
      expect(apiKeyLookupId(key)).toBe(lookupId);
    }
    expect(new Set(keys.map((k) => k.key)).size).toBe(200);
    expect(new Set(keys.map((k) => k.lookupId)).size).toBe(200);
  });

  it("apiKeyLookupId - a changed, swapped, cut or padded key fails its checksum or its shape", () => {
    const { key } = generateApiKey();
    const other = (c: string) => (c === "a" ? "b" : "a");
    for (let i = 3; i < key.length; i++) {
      const typo = key.slice(0, i) + other(key[i] as string) + key.slice(i + 1);
      expect(apiKeyLookupId(typo), `typo at ${i}`).toBeNull();
    }
    const swapped = key.slice(0, 5) + key[6] + key[5] + key.slice(7);
    if (swapped !== key) expect(apiKeyLookupId(swapped)).toBeNull();
    expect(apiKeyLookupId(key.slice(0, -1))).toBeNull();
    expect(apiKeyLookupId(`${key}a`)).toBeNull();
    expect(apiKeyLookupId(` ${key}`)).toBeNull();
    expect(apiKeyLookupId(key.replace("pc_", "pk_"))).toBeNull();
  });

  it("looksLikeApiKey - anything that starts with pc_, well-formed or not; an access token does not", () => {
    expect(looksLikeApiKey("pc_x")).toBe(true);
    expect(looksLikeApiKey(generateApiKey().key)).toBe(true);
    expect(looksLikeApiKey("eyJhbGciOiJFZERTQSJ9.e30.sig")).toBe(false);
    expect(looksLikeApiKey(undefined)).toBe(false);
  });
});
