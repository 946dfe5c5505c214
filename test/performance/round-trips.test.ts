// Issue 51: the store round trips of each route and host check, per store, held to the figures
// recorded in round-trips.json, which also make the table of docs/performance.md.
//
// A request is measured warm: the first request of each kind runs uncounted (a Lua script is
// loaded, a statement prepared, the signing keys read into their cache), then SAMPLES requests
// are counted one at a time and their median is the figure. What comes back now and then lands
// in a minority of the samples: a timer's round trip (Redis's clock read again each minute, an
// API key's touch, the signing keys read again), or an API key's count, which the core takes from
// the store in blocks that double (the key's requests 1, 2, 4, 8, … write its counter, the others
// only read the key; on SQLite 4 statements against 1). The samples follow one another
// in the same order on every run, so the median is the same. Each request's background work is
// awaited (`auth.idle()`) before its count is read. The memory stores run without their sweep timer.
//
//   pnpm exec vitest run test/performance                        (compare)
//   PERFORMANCE_WRITE=1 pnpm exec vitest run test/performance    (record, and rewrite the doc's table)
import { describe, expect, it } from "vitest";
import { createTestAuth } from "./app.js";
import {
  differences,
  type Figures,
  readDoc,
  readRecord,
  withTable,
  writeDoc,
  writeRecord,
} from "./record.js";
import { type MeasuredRoute, measuredRoutes } from "./routes.js";
import { type CountedStores, openCountedStores, STORE_KINDS } from "./stores.js";

const WRITE = process.env.PERFORMANCE_WRITE === "1";
/** Counted requests per route after the warm one (odd: the median is one of them). */
const SAMPLES = 5;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** The round trips of one request of `route`: the median of SAMPLES counted requests after a warm one. */
async function roundTrips(counted: CountedStores, route: MeasuredRoute, settle: () => Promise<void>) {
  const once = async () => {
    await route.prepare?.();
    await settle();
    counted.reset();
    await route.run();
    await settle();
    return counted.count();
  };
  await once();
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) samples.push(await once());
  return median(samples);
}

const measured: Figures = {};

describe("round trips per request", () => {
  for (const kind of STORE_KINDS) {
    it(`${kind} - each route makes as many round trips as recorded, no more and no fewer`, async () => {
      const counted = await openCountedStores(kind);
      try {
        const auth = createTestAuth(counted.stores);
        const routes = await measuredRoutes(auth, counted.stores);
        // Background work (emails, activity) done, and a turn of the event loop for what it started.
        const settle = async () => {
          await auth.idle();
          await new Promise((resolve) => setTimeout(resolve, 2));
        };
        for (const route of routes) {
          measured[route.id] ??= { label: route.label };
          const row = measured[route.id];
          if (row) row[kind] = await roundTrips(counted, route, settle);
        }
        await auth.idle();
      } finally {
        await counted.close();
      }
      if (WRITE) return;
      const problems = differences(readRecord(), measured, kind);
      expect(
        problems,
        `Round trips differ from test/performance/round-trips.json. More: find what added a store call. Fewer, or a route added: record it with PERFORMANCE_WRITE=1 pnpm exec vitest run test/performance (it rewrites docs/performance.md's table too).\n${problems.join("\n")}`,
      ).toEqual([]);
    }, 60_000);
  }

  it("docs/performance.md - its table is the one round-trips.json makes", () => {
    if (WRITE) {
      const missing = STORE_KINDS.filter((kind) =>
        Object.values(measured).some((row) => row[kind] === undefined),
      );
      if (missing.length > 0) throw new Error(`not written: no figures for ${missing.join(", ")}`);
      writeRecord(measured);
      writeDoc(withTable(readDoc(), measured));
    }
    const doc = readDoc();
    expect(doc, "docs/performance.md's table: run with PERFORMANCE_WRITE=1 to make it again").toBe(
      withTable(doc, readRecord()),
    );
  });
});
