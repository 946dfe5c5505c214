// The recorded figures (round-trips.json), their comparison with a run's, and the table of
// docs/performance.md that is made from them.
import { readFileSync, writeFileSync } from "node:fs";
import { STORE_KINDS, type StoreKind } from "./stores.js";

export const RECORD_FILE = new URL("./round-trips.json", import.meta.url);
export const DOC_FILE = new URL("../../docs/performance.md", import.meta.url);
export const TABLE_START = "<!-- round-trips:start -->";
export const TABLE_END = "<!-- round-trips:end -->";

/** Per route, in the table's order: its label and its round trips on each store. */
export type Figures = Record<string, { label: string } & Partial<Record<StoreKind, number>>>;

export function readRecord(): Figures {
  return JSON.parse(readFileSync(RECORD_FILE, "utf8")) as Figures;
}

export function writeRecord(figures: Figures): void {
  writeFileSync(RECORD_FILE, `${JSON.stringify(figures, null, 2)}\n`);
}

/**
 * What differs between `recorded` and `measured` on `store`: a route that costs more than
 * recorded (a regression), or less (an improvement to record on purpose), or one of either alone.
 */
export function differences(recorded: Figures, measured: Figures, store: StoreKind): string[] {
  const problems: string[] = [];
  for (const [id, figures] of Object.entries(measured)) {
    const was = recorded[id]?.[store];
    const now = figures[store];
    if (now === undefined) continue;
    if (was === undefined) problems.push(`${id} on ${store}: not recorded, measured ${now}`);
    else if (now > was)
      problems.push(`${id} on ${store}: recorded ${was}, measured ${now} (more round trips)`);
    else if (now < was)
      problems.push(`${id} on ${store}: recorded ${was}, measured ${now} (fewer: record them)`);
  }
  for (const id of Object.keys(recorded))
    if (!(id in measured)) problems.push(`${id}: recorded but no longer measured`);
  return problems;
}

/** The Markdown table of `figures`: one row per route, one column per store. */
export function table(figures: Figures): string {
  const cell = (value: number | undefined) => (value === undefined ? "–" : String(value));
  const rows = Object.values(figures).map(
    (row) => `| ${row.label} | ${STORE_KINDS.map((store) => cell(row[store])).join(" | ")} |`,
  );
  return [
    "| Route or check | Memory (store calls) | Redis (round trips) | PostgreSQL (statements) | SQLite (statements) |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...rows,
  ].join("\n");
}

/** `doc` with the text between the markers replaced by `figures`' table. */
export function withTable(doc: string, figures: Figures): string {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start === -1 || end < start)
    throw new Error(`docs/performance.md has no ${TABLE_START} … ${TABLE_END}`);
  return `${doc.slice(0, start + TABLE_START.length)}\n${table(figures)}\n${doc.slice(end)}`;
}

export const readDoc = () => readFileSync(DOC_FILE, "utf8");
export const writeDoc = (text: string) => writeFileSync(DOC_FILE, text);
