import { describe, expect, it } from "vitest";
import { clonePlain } from "./clone.js";

describe("clonePlain", () => {
  it("clonePlain - copies nested plain data deeply: changing the copy never changes the original", () => {
    const original = { id: "u", n: 1, ok: true, none: null, list: ["a", { b: 2 }], nested: { codes: ["x"] } };
    const copy = clonePlain(original);
    expect(copy).toEqual(original);
    copy.nested.codes.push("y");
    (copy.list[1] as { b: number }).b = 3;
    expect(original.nested.codes).toEqual(["x"]);
    expect(original.list[1]).toEqual({ b: 2 });
  });

  it("clonePlain - values that are not plain data go through structuredClone", () => {
    const date = new Date(0);
    const bytes = new Uint8Array([1, 2]);
    const copy = clonePlain({ date, bytes });
    expect(copy.date).toEqual(date);
    expect(copy.date).not.toBe(date);
    expect(copy.bytes).toEqual(bytes);
    expect(copy.bytes).not.toBe(bytes);
  });

  it("clonePlain - a `__proto__` key stays an own key of the copy, at any depth, and never becomes its prototype", () => {
    const original = JSON.parse('{"__proto__": {"admin": true}, "inner": {"__proto__": {"admin": true}}}');
    const copy = clonePlain(original);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(copy.inner)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(["__proto__", "inner"]);
    expect(copy.admin).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(copy, "__proto__")?.value).toEqual({ admin: true });
    expect(Object.getOwnPropertyDescriptor(copy, "__proto__")?.value).not.toBe(
      Object.getOwnPropertyDescriptor(original, "__proto__")?.value,
    );
  });
});
