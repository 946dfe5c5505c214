import { describe, expect, it } from "vitest";
import { createReadBatch } from "./read-batch.js";

describe("createReadBatch", () => {
  const recording = () => {
    const batches: string[][] = [];
    const read = createReadBatch<string, string>(async (keys) => {
      batches.push(keys);
      return new Map(keys.filter((key) => !key.startsWith("missing")).map((key) => [key, `value of ${key}`]));
    }, 3);
    return { batches, read };
  };

  it("reads of one turn share a statement (at most maxKeys keys each), a repeated key is read once, a later turn reads anew", async () => {
    const { batches, read } = recording();
    const answers = await Promise.all(["a", "b", "a", "missing", "c", "d"].map(read));
    expect(answers).toEqual([
      "value of a",
      "value of b",
      "value of a",
      undefined,
      "value of c",
      "value of d",
    ]);
    expect(batches).toEqual([
      ["a", "b", "missing"],
      ["c", "d"],
    ]);
    expect(await read("a")).toBe("value of a");
    expect(batches).toHaveLength(3);
  });

  it("a failing read rejects every call it carried, and only those", async () => {
    let fail = true;
    const read = createReadBatch<string, number>(async (keys) => {
      if (fail) throw new Error("connection refused");
      return new Map(keys.map((key) => [key, key.length]));
    });
    const outcomes = await Promise.allSettled([read("a"), read("bb"), read("a")]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["rejected", "rejected", "rejected"]);
    fail = false;
    expect(await Promise.all([read("a"), read("bb")])).toEqual([1, 2]);
  });
});

describe("createReadBatch - a read that throws", () => {
  it("a readMany that throws instead of rejecting rejects the calls it carried", async () => {
    const read = createReadBatch<string, number>(() => {
      throw new Error("not connected");
    });
    await expect(Promise.all([read("a"), read("b")])).rejects.toThrow("not connected");
  });
});
