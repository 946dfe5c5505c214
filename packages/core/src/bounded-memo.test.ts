import { describe, expect, it } from "vitest";
import { boundedMemo } from "./bounded-memo.js";

describe("boundedMemo", () => {
  it("memo - computes each input once, undefined results included", () => {
    const calls: string[] = [];
    const memo = boundedMemo(10, (key: string) => {
      calls.push(key);
      return key === "none" ? undefined : key.toUpperCase();
    });
    expect([memo("a"), memo("a"), memo("none"), memo("none")]).toEqual(["A", "A", undefined, undefined]);
    expect(calls).toEqual(["a", "none"]);
    expect(memo.size()).toBe(2);
  });

  it("memo - never holds more than its maximum, and answers the same after it was emptied", () => {
    let computed = 0;
    const memo = boundedMemo(100, (key: string) => {
      computed += 1;
      return key.length;
    });
    for (let i = 0; i < 1_000; i++) {
      expect(memo(`key-${i}`)).toBe(`key-${i}`.length);
      expect(memo.size()).toBeLessThanOrEqual(100);
    }
    expect(computed).toBe(1_000);
    expect(memo("key-0")).toBe(5);
    expect(computed).toBe(1_001);
  });
});
