import { describe, expect, it } from "vitest";
import { createLeases, PAST_LIMIT, type Taken } from "./leases.js";

/** A store's counter of one lookupId: what `useApiKey` would answer for `uses` more; `giveBack`, `returnApiKeyUses`. */
function counter() {
  let total = 0;
  const count = (uses: number) => {
    total += uses;
    return total;
  };
  count.giveBack = (uses: number) => {
    total = Math.max(0, total - uses);
  };
  return count;
}

/** One request: a held count, or the store asked (through `count`) and granted. */
function request(leases: ReturnType<typeof createLeases>, count: (uses: number) => number, now = 0) {
  const taken: Taken = leases.take("lk", now);
  if ("count" in taken) return { count: taken.count, asked: 0 };
  return { count: leases.grant("lk", taken, count(taken.uses), 60_000, now).count, asked: taken.uses };
}

describe("createLeases", () => {
  it("take - the first request of a window asks for 1, then blocks of 2, 4, 8 ... up to a twentieth of the limit", () => {
    const leases = createLeases(600);
    const store = counter();
    const asked: number[] = [];
    const counts: number[] = [];
    for (let i = 0; i < 200; i++) {
      const { count, asked: uses } = request(leases, store);
      counts.push(count);
      if (uses > 0) asked.push(uses);
    }
    expect(counts).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(asked).toEqual([1, 2, 4, 8, 16, 30, 30, 30, 30, 30, 30]);
  });

  it("take - under a limit of 40 every request asks the store for 1", () => {
    const leases = createLeases(39);
    const store = counter();
    for (let i = 0; i < 10; i++) expect(request(leases, store)).toEqual({ count: i + 1, asked: 1 });
  });

  it("take - while a block is being taken, other requests ask for 1 each; a failed block can be asked for again", () => {
    const leases = createLeases(600);
    const store = counter();
    request(leases, store);
    const block = leases.take("lk", 0);
    expect(block).toEqual({ uses: 2, block: true });
    expect(leases.take("lk", 0)).toEqual({ uses: 1, block: false });
    expect(leases.take("lk", 0)).toEqual({ uses: 1, block: false });
    leases.abandon("lk", { block: true });
    expect(leases.take("lk", 0)).toEqual({ uses: 2, block: true });
  });

  it("take - once the limit is used up, counts past it without asking the store, but for one request a second, until the window ends", () => {
    const leases = createLeases(3);
    const store = counter();
    for (let i = 0; i < 3; i++) expect(request(leases, store)).toEqual({ count: i + 1, asked: 1 });
    expect(request(leases, store)).toEqual({ count: 4, asked: 1 }); // asks again: none given back
    expect(request(leases, store, 999)).toEqual({ count: PAST_LIMIT, asked: 0 });
    expect(request(leases, store, 1_000)).toEqual({ count: 5, asked: 1 });
    expect(leases.take("lk", 1_500)).toEqual({ count: PAST_LIMIT, endsAt: 60_000 });
    expect(leases.take("lk", 60_000)).toEqual({ uses: 1, block: false });
  });

  it("take - past the limit, counts given back to the store meanwhile are found by the next second's request", () => {
    const leases = createLeases(3);
    const store = counter();
    for (let i = 0; i < 4; i++) request(leases, store);
    expect(request(leases, store, 500)).toEqual({ count: PAST_LIMIT, asked: 0 });
    store.giveBack(3); // another instance's refused requests
    expect(request(leases, store, 1_000)).toEqual({ count: 2, asked: 1 });
    expect(request(leases, store, 1_001)).toEqual({ count: 3, asked: 1 }); // room left: the store decides
    expect(request(leases, store, 1_002)).toEqual({ count: PAST_LIMIT, asked: 0 }); // full again: local until 2 s
  });

  it("giveBack - a refused request's count is handed out again in its window, not in the next, not past the limit", () => {
    const leases = createLeases(600);
    const store = counter();
    const { count } = request(leases, store);
    leases.giveBack("lk", count, 60_000, 10);
    expect(leases.take("lk", 10)).toEqual({ count: 1, endsAt: 60_000 });
    leases.giveBack("lk", count, 59_000, 10); // another window's count
    expect(leases.giveBack("lk", 601, 60_000, 10)).toBe(1); // counted past the limit: back to the store
    expect(leases.giveBack("lk", PAST_LIMIT, 60_000, 10)).toBe(0); // refused here: counted nowhere
    expect(leases.take("lk", 10)).toEqual({ uses: 2, block: true });
  });

  it("take - the store's limit holds for two instances sharing a key: never more counts at or under it than the limit", () => {
    const limit = 100;
    const store = counter();
    const instances = [createLeases(limit), createLeases(limit)];
    let allowed = 0;
    for (let i = 0; i < 1_000; i++) {
      const { count } = request(instances[i % 2] as ReturnType<typeof createLeases>, store);
      if (count <= limit) allowed += 1;
    }
    expect(allowed).toBe(limit);
  });

  it("giveBack - keeps refused counts while it holds less than a block (its rest included), then answers 1 for each: the count to give back to the store", () => {
    const leases = createLeases(100); // blocks of up to 5
    const store = counter();
    // 7 requests: 1, then blocks of 2 and 4, all handed out (no block's rest held).
    const counts = Array.from({ length: 7 }, () => request(leases, store).count);
    expect(counts.map((count) => leases.giveBack("lk", count, 60_000, 10))).toEqual([0, 0, 0, 0, 0, 1, 1]);
    const handedOut = Array.from({ length: 5 }, () => leases.take("lk", 10));
    expect(handedOut.every((taken) => "count" in taken)).toBe(true);
    // A block's rest counts as held: with 4 of a block of 5 unused, one refused count is kept.
    request(leases, store);
    expect([leases.giveBack("lk", 3, 60_000, 10), leases.giveBack("lk", 2, 60_000, 10)]).toEqual([0, 1]);
  });

  it("take - refusals on one instance do not use up another's share; valid requests never pass the limit", () => {
    const limit = 100;
    const store = counter();
    const [a, b] = [createLeases(limit), createLeases(limit)];
    // 300 wrong secrets on A: each refused, its count given back (to A's leases or the store).
    for (let i = 0; i < 300; i++) {
      const { count } = request(a, store);
      if (a.giveBack("lk", count, 60_000, 0) === 1) store.giveBack(1);
    }
    let allowed = 0;
    for (let i = 0; i < 200; i++) if (request(b, store).count <= limit) allowed += 1;
    expect(allowed).toBeGreaterThanOrEqual(limit - 5); // A keeps at most a block's worth (5)
    // A mix on both, a third of them refused: still never more than the limit in all.
    for (let i = 0; i < 600; i++) {
      const leases = i % 2 === 0 ? a : b;
      const { count } = request(leases, store);
      if (i % 3 === 0) {
        if (leases.giveBack("lk", count, 60_000, 0) === 1) store.giveBack(1);
      } else if (count <= limit) allowed += 1;
    }
    expect(allowed).toBe(limit);
  });
});
