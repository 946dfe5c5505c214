import { describe, expect, it } from "vitest";
import { createConcurrencyLimit } from "./concurrency-limit.js";

/** A task that runs until `finish` or `fail` is called, recording how many ran at once. */
function controlledTasks(count: number) {
  const state = { running: 0, most: 0, started: [] as number[] };
  const controls = Array.from({ length: count }, (_, index) => {
    let finish: (value: number) => void = () => {};
    let fail: (error: Error) => void = () => {};
    const task = () => {
      state.running += 1;
      state.most = Math.max(state.most, state.running);
      state.started.push(index);
      return new Promise<number>((resolve, reject) => {
        finish = (value) => {
          state.running -= 1;
          resolve(value);
        };
        fail = (error) => {
          state.running -= 1;
          reject(error);
        };
      });
    };
    return { task, finish: (value: number) => finish(value), fail: (error: Error) => fail(error) };
  });
  return { state, controls };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("createConcurrencyLimit", () => {
  it("createConcurrencyLimit - runs at most `limit` tasks at once and starts the others in arrival order", async () => {
    const limit = createConcurrencyLimit(3);
    const { state, controls } = controlledTasks(10);
    const results = controls.map(({ task }) => limit(task));
    await settle();
    expect(state.started).toEqual([0, 1, 2]);
    controls[1]?.finish(1);
    await settle();
    expect(state.started).toEqual([0, 1, 2, 3]);
    for (const [index, control] of controls.entries()) {
      if (index === 1) continue;
      control.finish(index);
      await settle();
    }
    await expect(Promise.all(results)).resolves.toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(state.started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(state.most).toBe(3);
  });

  it("createConcurrencyLimit - a failing or throwing task passes its error on and frees its slot", async () => {
    const limit = createConcurrencyLimit(1);
    const { state, controls } = controlledTasks(2);
    const failed = limit(controls[0]?.task as () => Promise<number>);
    const thrown = limit(() => {
      throw new Error("thrown before any promise");
    });
    const last = limit(controls[1]?.task as () => Promise<number>);
    await settle();
    expect(state.started).toEqual([0]);
    controls[0]?.fail(new Error("rejected"));
    await expect(failed).rejects.toThrow("rejected");
    await expect(thrown).rejects.toThrow("thrown before any promise");
    await settle();
    expect(state.started).toEqual([0, 1]);
    controls[1]?.finish(7);
    await expect(last).resolves.toBe(7);
  });

  it("createConcurrencyLimit - 200 tasks in flight never run more than the limit, and all finish", async () => {
    const limit = createConcurrencyLimit(4);
    const { state, controls } = controlledTasks(200);
    const results = Promise.all(controls.map(({ task }) => limit(task)));
    const finished = new Set<number>();
    while (finished.size < 200) {
      await settle();
      // Out of order: the running task at a position that moves with every finish.
      const running = state.started.filter((index) => !finished.has(index));
      const next = running[finished.size % running.length] ?? -1;
      finished.add(next);
      controls[next]?.finish(next);
    }
    await expect(results).resolves.toEqual(Array.from({ length: 200 }, (_, index) => index));
    expect(state.most).toBe(4);
  });

  it("createConcurrencyLimit - refuses a limit that is not a positive integer", () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => createConcurrencyLimit(bad)).toThrow(RangeError);
  });
});
