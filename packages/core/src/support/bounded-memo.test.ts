import { describe, expect, it } from "vitest";
import { boundedMemo, createLru } from "./bounded-memo.js";

describe("createLru", () => {
  it("get - a hit answers the value, a miss undefined; an undefined value is held all the same", () => {
    const lru = createLru<string, number | undefined>(3);
    lru.set("a", 1);
    lru.set("u", undefined);
    expect([lru.get("a"), lru.get("b"), lru.get("u")]).toEqual([1, undefined, undefined]);
    expect([lru.has("u"), lru.has("b")]).toEqual([true, false]);
    expect(lru.size).toBe(2);
  });

  it("set - when full, drops the least recently used entry: a get counts as a use", () => {
    const lru = createLru<string, number>(3);
    for (const [key, value] of [
      ["a", 1],
      ["b", 2],
      ["c", 3],
    ] as const)
      lru.set(key, value);
    lru.get("a"); // b is now the least recently used
    lru.set("d", 4);
    expect(["a", "b", "c", "d"].map((key) => lru.has(key))).toEqual([true, false, true, true]);
    lru.get("a");
    lru.get("a"); // used last twice in a row: still the most recent
    lru.set("e", 5); // c goes, then d
    lru.set("f", 6);
    expect(["a", "c", "d", "e", "f"].map((key) => lru.has(key))).toEqual([true, false, false, true, true]);
  });

  it("set - never holds more than its maximum; setting a held key replaces it without growing", () => {
    const lru = createLru<number, number>(100);
    for (let i = 0; i < 1_000; i++) {
      lru.set(i, i);
      expect(lru.size).toBeLessThanOrEqual(100);
    }
    expect(lru.size).toBe(100);
    expect([lru.get(899), lru.get(900), lru.get(999)]).toEqual([undefined, 900, 999]);
    lru.set(999, -1);
    expect([lru.size, lru.get(999)]).toEqual([100, -1]);
  });

  it("delete, clear - forget entries, and the newest entry forgotten is not used again", () => {
    const lru = createLru<string, number>(2);
    lru.set("a", 1);
    lru.set("b", 2);
    lru.delete("b");
    expect([lru.get("b"), lru.size]).toEqual([undefined, 1]);
    lru.set("c", 3);
    lru.set("d", 4); // a is the least recently used: it goes
    expect([lru.has("a"), lru.get("c"), lru.get("d")]).toEqual([false, 3, 4]);
    lru.clear();
    expect([lru.size, lru.get("d")]).toEqual([0, undefined]);
  });

  it("set - a maximum of 0 holds nothing", () => {
    const lru = createLru<string, number>(0);
    lru.set("a", 1);
    expect([lru.get("a"), lru.size]).toEqual([undefined, 0]);
  });
});

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

  it("memo - never holds more than its maximum, and answers the same for inputs it dropped", () => {
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
