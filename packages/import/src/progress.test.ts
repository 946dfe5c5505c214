import { describe, expect, it } from "vitest";
import { createProgress, duration, progressEveryRows, progressLine } from "./progress.js";

// The progress of `portcullis import` on stderr: a fake writer and a fake clock stand for the
// terminal and the time, so what a terminal would receive is checked byte for byte.
function fakeStderr() {
  const writes: string[] = [];
  let clock = 0;
  return {
    writes,
    write: (text: string) => {
      writes.push(text);
    },
    now: () => clock,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

const report = (rows: number, imported: number, skipped: number, done = false) => ({
  rows,
  imported,
  skipped,
  done,
});

const ERASE = "\x1b[K";

/** What a terminal shows after these writes: `\r` goes back to the line's start, `ERASE` erases what is after the text drawn. */
const screen = (writes: string[]): string[] =>
  writes
    .join("")
    .replaceAll(ERASE, "")
    .split("\n")
    .map((line) => line.slice(line.lastIndexOf("\r") + 1));

describe("import progress", () => {
  it("progress - not a terminal: a plain line per report and a done line, as a log keeps them", () => {
    const err = fakeStderr();
    const progress = createProgress({ write: err.write, isTTY: false, now: err.now, total: 100 });
    progress.update(report(10_000, 9_990, 10));
    progress.update(report(20_000, 19_980, 20));
    progress.update(report(25_003, 24_970, 33, true));
    progress.interrupt();
    expect(err.writes).toEqual([
      "progress: 10000 rows, 9990 imported, 10 skipped\n",
      "progress: 20000 rows, 19980 imported, 20 skipped\n",
      "done: 25003 rows, 24970 imported, 33 skipped\n",
    ]);
    expect(progressEveryRows(false)).toBe(10_000);
    expect(progressEveryRows(true)).toBe(1_000);
  });

  it("progress - a terminal with a known total: one line redrawn in place with a bar and an ETA, at most every 100 ms, the last one kept", () => {
    const err = fakeStderr();
    const progress = createProgress({
      write: err.write,
      isTTY: true,
      columns: 120,
      total: 4_000,
      now: err.now,
    });
    err.advance(1_000);
    progress.update(report(1_000, 990, 10));
    err.advance(50);
    progress.update(report(2_000, 1_980, 20)); // 50 ms after the last redraw: not drawn
    err.advance(50);
    progress.update(report(3_000, 2_970, 30)); // 100 ms: drawn
    err.advance(10);
    progress.update(report(4_000, 3_950, 50, true)); // the last report is always drawn
    expect(err.writes).toHaveLength(3);
    expect(err.writes.every((text) => text.startsWith("\r"))).toBe(true);
    expect(err.writes[0]).toBe(
      `\r[########----------------------]  25%  1,000/4,000 rows  1,000 rows/s  ETA 3s  990 imported  10 skipped  1s elapsed\x1b[K`,
    );
    expect(err.writes[1]).toContain(
      " 75%  3,000/4,000 rows  2,727 rows/s  ETA 0s  2,970 imported  30 skipped",
    );
    expect(err.writes[2]).toBe(
      `\r[##############################] 100%  4,000/4,000 rows  3,604 rows/s  3,950 imported  50 skipped  1s elapsed\x1b[K\n`,
    );
    expect(screen(err.writes)).toEqual([
      "[##############################] 100%  4,000/4,000 rows  3,604 rows/s  3,950 imported  50 skipped  1s elapsed",
      "",
    ]);
  });

  it("progress - a terminal without a total: the rows so far, no bar, no ETA; the line never wider than the terminal", () => {
    const err = fakeStderr();
    const progress = createProgress({ write: err.write, isTTY: true, columns: 60, now: err.now });
    err.advance(2_000);
    progress.update(report(5_000, 5_000, 0));
    err.advance(3_000);
    progress.update(report(12_500, 12_000, 500, true));
    const [first, last] = screen(err.writes);
    // 59 characters at most: the elapsed time, last, does not fit and goes.
    expect(first).toBe("12,500 rows  2,500 rows/s  12,000 imported  500 skipped");
    expect(err.writes[0]).toBe("\r5,000 rows  2,500 rows/s  5,000 imported  0 skipped\x1b[K");
    expect(last).toBe("");
    for (const text of err.writes) expect(text.replaceAll(ERASE, "").trim().length).toBeLessThanOrEqual(59);
  });

  it("progress - a run that stops early leaves its line open; interrupt ends it so the error starts on its own line", () => {
    const err = fakeStderr();
    const progress = createProgress({ write: err.write, isTTY: true, total: 10, now: err.now });
    progress.interrupt(); // nothing drawn yet: nothing to end
    expect(err.writes).toEqual([]);
    err.advance(500);
    progress.update(report(5, 5, 0));
    progress.interrupt();
    progress.interrupt();
    expect(err.writes.slice(1)).toEqual(["\n"]);
  });

  it("progress - the bar's width follows the terminal's alone; what does not fit goes from the end; the share never passes 100 %", () => {
    const context = { elapsedMs: 10_000, total: 1_000_000, width: 139 };
    const at = (rows: number, width: number) =>
      progressLine(report(rows, rows - 1_000, 1_000), { ...context, width });
    const figures =
      " 50%  500,000/1,000,000 rows  50,000 rows/s  ETA 10s  499,000 imported  1,000 skipped  10s elapsed";
    expect(at(500_000, 139)).toBe(`[${"#".repeat(15)}${"-".repeat(15)}] ${figures}`);
    expect(at(500_000, 119)).toBe(`[${"#".repeat(15)}${"-".repeat(15)}] ${figures.slice(0, -13)}`);
    // An 80-column terminal: a bar of 10, the time left kept before the counts.
    expect(at(500_000, 79)).toBe("[#####-----]  50%  500,000/1,000,000 rows  50,000 rows/s  ETA 10s");
    // The same width later in the run: the bar has not moved.
    expect(at(999_000, 79).indexOf("]")).toBe(11);
    expect(at(500_000, 60)).toBe(" 50%  500,000/1,000,000 rows  50,000 rows/s  ETA 10s");
    expect(at(500_000, 12)).toBe(" 50%  500,00");
    // More rows than counted (a line the count took for blank): 100 %, no time left.
    expect(progressLine(report(12, 12, 0), { elapsedMs: 1_000, total: 10, width: 200 })).toContain(
      "[##############################] 100%  12/10 rows  12 rows/s  ETA 0s  12 imported  0 skipped  1s elapsed",
    );
  });

  it("progress - durations read as seconds, minutes and hours", () => {
    expect(duration(0)).toBe("0s");
    expect(duration(42.4)).toBe("42s");
    expect(duration(185)).toBe("3m05s");
    expect(duration(3_725)).toBe("1h02m");
  });
});
