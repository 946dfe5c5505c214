import { describe, expect, it } from "vitest";
import { createCountBatch } from "./count-batch.js";

describe("createCountBatch", () => {
  /** A counter per key in a map, counted by batches that are recorded. */
  const recording = (maxKeys = 3) => {
    const totals = new Map<string, number>();
    const batches: { counts: [string, number][]; windowMs: number }[] = [];
    let failNext = false;
    const count = createCountBatch(
      async (counts: Map<string, number>, windowMs: number) => {
        batches.push({ counts: [...counts], windowMs });
        if (failNext) {
          failNext = false;
          throw new Error("store down");
        }
        for (const [key, n] of counts) totals.set(key, (totals.get(key) ?? 0) + n);
        const answered = [...counts.keys()].filter((key) => !key.startsWith("missing"));
        return new Map(answered.map((key) => [key, totals.get(key) ?? 0]));
      },
      (total: number | undefined, { through, of }) => {
        if (total === undefined) throw new Error("not counted");
        return total - of + through;
      },
      maxKeys,
    );
    return { count, batches, failing: () => (failNext = true) };
  };

  it("counts of one turn share a flush: each key once with its calls, consecutive counts in arrival order", async () => {
    const { count, batches } = recording();
    const counts = await Promise.all(["a", "b", "a", "a", "b"].map((key) => count(key, 60_000)));
    expect(counts).toEqual([1, 1, 2, 3, 2]);
    expect(batches).toEqual([
      {
        counts: [
          ["a", 3],
          ["b", 2],
        ],
        windowMs: 60_000,
      },
    ]);
    // A later turn counts on.
    expect(await count("a", 60_000)).toBe(4);
    expect(batches).toHaveLength(2);
  });

  it("a call may count more than one: the key's sum is counted, each call gets the count after its own", async () => {
    const { count, batches } = recording();
    const counts = await Promise.all([count("a", 60_000, 5), count("a", 60_000), count("a", 60_000, 3)]);
    expect(counts).toEqual([5, 6, 9]);
    expect(batches[0]?.counts).toEqual([["a", 9]]);
  });

  it("at most maxKeys keys and one window length a flush: a call that fits neither starts another", async () => {
    const { count, batches } = recording(2);
    await Promise.all([
      count("a", 1_000),
      count("b", 1_000),
      count("a", 1_000),
      count("c", 1_000),
      count("d", 5_000),
    ]);
    expect(batches.map((batch) => [batch.counts.map(([key]) => key), batch.windowMs])).toEqual([
      [["a", "b"], 1_000],
      [["c"], 1_000],
      [["d"], 5_000],
    ]);
  });

  it("a failing flush rejects every call it carried; an answer that throws rejects its own call only", async () => {
    const { count, failing } = recording();
    failing();
    const failed = await Promise.allSettled([count("a", 60_000), count("b", 60_000), count("a", 60_000)]);
    expect(failed.map((outcome) => outcome.status)).toEqual(["rejected", "rejected", "rejected"]);
    // Nothing was counted by the failed flush.
    expect(await count("a", 60_000)).toBe(1);
    const mixed = await Promise.allSettled([
      count("a", 60_000),
      count("missing", 60_000),
      count("b", 60_000),
    ]);
    expect(mixed.map((outcome) => (outcome.status === "fulfilled" ? outcome.value : "rejected"))).toEqual([
      2,
      "rejected",
      1,
    ]);
  });
});
