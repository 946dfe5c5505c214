import type { ImportProgress } from "./import-accounts.js";

/** Where progress goes and how: a terminal gets one line redrawn in place, anything else plain lines. */
export interface ProgressOptions {
  /** Writes to stderr. */
  write: (text: string) => void;
  /** Whether stderr is a terminal: one line redrawn in place instead of a line per report. */
  isTTY?: boolean;
  /** The terminal's width, read at each redraw (a resize is followed); default 80. */
  columns?: number;
  /** How many rows the source holds, when it can tell: a bar and an ETA then. */
  total?: number | null;
  /** The least time between two redraws on a terminal; default 100 ms (ten a second). */
  minIntervalMs?: number;
  /** The clock, in milliseconds; default `performance.now`. */
  now?: () => number;
}

/** What the command hands `importAccounts`, and how it closes the line when the run stops early. */
export interface ProgressReporter {
  /** For `importAccounts`'s `onProgress`. */
  update(progress: ImportProgress): void;
  /** Ends a line left open on a terminal (the run stopped before its last report), so what follows starts on a line of its own. */
  interrupt(): void;
}

/** How many rows `importAccounts` should report after, for this output: often on a terminal (the redraws are throttled by time), every 10,000 rows otherwise. */
export const progressEveryRows = (isTTY: boolean | undefined): number => (isTTY ? 1_000 : 10_000);

/**
 * Progress of an import on stderr. Not a terminal: `progress: <rows> rows, <imported> imported,
 * <skipped> skipped` at each report and `done: …` at the end, as a log keeps them. A terminal:
 * one line, redrawn in place (`\r`, the line, erase to its end) at most every `minIntervalMs`,
 * with a bar and an ETA when the total is known, else the rows so far; rows a second, imported,
 * skipped and elapsed time either way. The last report is always drawn and ends the line, so it
 * stays on the screen.
 */
export function createProgress(options: ProgressOptions): ProgressReporter {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const minInterval = options.minIntervalMs ?? 100;
  let lastDraw = Number.NEGATIVE_INFINITY;
  let open = false;
  if (!options.isTTY)
    return {
      update: ({ rows, imported, skipped, done }) =>
        options.write(
          `${done ? "done" : "progress"}: ${rows} rows, ${imported} imported, ${skipped} skipped\n`,
        ),
      interrupt() {},
    };
  return {
    update(progress) {
      const at = now();
      if (!progress.done && at - lastDraw < minInterval) return;
      lastDraw = at;
      const width = Math.max(20, (options.columns ?? 80) - 1);
      const line = progressLine(progress, { elapsedMs: at - started, total: options.total ?? null, width });
      options.write(`\r${line}\x1b[K${progress.done ? "\n" : ""}`);
      open = !progress.done;
    },
    interrupt() {
      if (open) options.write("\n");
      open = false;
    },
  };
}

/** What one terminal line shows besides the counts. */
export interface LineContext {
  elapsedMs: number;
  /** The source's row count, or null when unknown. */
  total: number | null;
  /** The most characters the line may take (one less than the terminal, so it never wraps). */
  width: number;
}

/**
 * The terminal line for a report: `[####----]  45%  450,000/1,000,000 rows` with a known total,
 * `450,000 rows` without; then rows a second, the time left at that rate (with a total, until
 * done), imported, skipped and elapsed time. The bar's width follows the terminal's only (none
 * under 71 columns, 30 characters from 120), so it does not jump as the figures grow; what does
 * not fit after it goes, from the end.
 */
export function progressLine(progress: ImportProgress, { elapsedMs, total, width }: LineContext): string {
  const { rows, imported, skipped, done } = progress;
  const seconds = elapsedMs / 1000;
  const rate = seconds > 0 ? rows / seconds : 0;
  const known = total !== null && total > 0;
  const share = known ? Math.min(1, rows / total) : 0;
  const parts = [
    known
      ? `${String(Math.floor(share * 100)).padStart(3)}%  ${count(rows)}/${count(total)} rows`
      : `${count(rows)} rows`,
    `${count(Math.round(rate))} rows/s`,
  ];
  if (known && !done) parts.push(`ETA ${rate > 0 ? duration(Math.max(0, total - rows) / rate) : "?"}`);
  parts.push(`${count(imported)} imported`, `${count(skipped)} skipped`, `${duration(seconds)} elapsed`);
  const bar = known ? barWidth(width) : 0;
  const room = bar > 0 ? width - bar - 3 : width;
  while (parts.length > 1 && parts.join("  ").length > room) parts.pop();
  const text = parts.join("  ").slice(0, room);
  if (bar === 0) return text;
  const filled = Math.round(share * bar);
  return `[${"#".repeat(filled)}${"-".repeat(bar - filled)}] ${text}`;
}

/** The bar's width for a line of `width` characters (one less than the terminal's columns): none under 70, 30 from 119. */
const barWidth = (width: number) => (width < 70 ? 0 : Math.min(30, Math.floor((width - 58) / 2)));

/** 1234567 → `1,234,567`. */
const count = (value: number) => value.toLocaleString("en-US");

/** Seconds as `42s`, `3m05s` or `1h02m`. */
export function duration(totalSeconds: number): string {
  const seconds = Math.round(totalSeconds);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, "0")}m`;
}
