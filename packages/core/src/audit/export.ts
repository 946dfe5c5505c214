import type { AuditEntry, AuditLogStore, AuditQuery } from "../ports/audit-log-store.js";
import type { AuditCells, AuditView } from "./query.js";

/** Entries read per page while exporting. */
export const AUDIT_EXPORT_PAGE = 500;

/** The export formats: one JSON object a line, or CSV with a header row. */
export type AuditExportFormat = "ndjson" | "csv";

/** An export: what it is and its text, produced a page at a time as it is read. */
export interface AuditExport {
  format: AuditExportFormat;
  /** `application/x-ndjson` or `text/csv` (UTF-8). */
  contentType: string;
  /** A file name for `Content-Disposition`: `audit-log-<when>.<ndjson|csv>`. */
  filename: string;
  /** The text, one chunk per page of entries (the CSV's header first). */
  chunks: AsyncIterable<string>;
}

/**
 * The entries `query` matches, oldest first, one store page at a time: the next page is read
 * only when the previous one was consumed, so the log is never in memory whole. `first`: the
 * first page, when the caller read it already (to fail before answering).
 */
export async function* auditPages(
  store: AuditLogStore,
  query: Omit<AuditQuery, "order" | "limit" | "afterSeq">,
  pageSize = AUDIT_EXPORT_PAGE,
  first?: AuditEntry[],
): AsyncIterable<AuditEntry[]> {
  let afterSeq: number | undefined;
  let read = first;
  for (;;) {
    const page = read ?? (await store.list({ ...query, order: "asc", afterSeq, limit: pageSize }));
    read = undefined;
    if (page.length > 0) yield page;
    const last = page.at(-1);
    if (page.length < pageSize || last === undefined) return;
    afterSeq = last.seq;
  }
}

/** NDJSON: each entry's item in `view` as one JSON line. */
export async function* ndjsonChunks<Item extends AuditCells<Item>>(
  pages: AsyncIterable<AuditEntry[]>,
  view: AuditView<Item>,
): AsyncIterable<string> {
  for await (const page of pages) yield page.map((entry) => `${JSON.stringify(view.item(entry))}\n`).join("");
}

/** Text a spreadsheet would run as a formula: `=`, `+`, `-`, `@`, a tab or a carriage return first. */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV cell (RFC 4180): empty for null; a text a spreadsheet would take as a formula gets a
 * leading `'` (OWASP's CSV injection advice); quoted when it holds a quote, a comma or a line
 * break (quotes doubled).
 */
export function csvCell(value: string | number | null): string {
  if (value === null) return "";
  let text = String(value);
  if (typeof value === "string" && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** CSV: a header row of `view`'s columns, then a row an entry; CRLF line ends. */
export async function* csvChunks<Item extends AuditCells<Item>>(
  pages: AsyncIterable<AuditEntry[]>,
  view: AuditView<Item>,
): AsyncIterable<string> {
  const row = (item: Item) => `${view.columns.map((column) => csvCell(item[column])).join(",")}\r\n`;
  yield `${view.columns.join(",")}\r\n`;
  for await (const page of pages) yield page.map((entry) => row(view.item(entry))).join("");
}

/**
 * The export of what `query` matches in `format`, named for `now`, its entries in `view` (the
 * deployment's, or an organization's). `first`: its first page, read by the caller (`auditPages`
 * reads it otherwise).
 */
export function auditExport<Item extends AuditCells<Item>>(
  store: AuditLogStore,
  query: Omit<AuditQuery, "order" | "limit" | "afterSeq">,
  shown: { format: AuditExportFormat; now: number; view: AuditView<Item> },
  first?: AuditEntry[],
): AuditExport {
  const { format, now, view } = shown;
  const pages = auditPages(store, query, AUDIT_EXPORT_PAGE, first);
  const stamp = new Date(now).toISOString().replace(/[:.]/g, "-");
  return format === "csv"
    ? {
        format,
        contentType: "text/csv; charset=utf-8",
        filename: `audit-log-${stamp}.csv`,
        chunks: csvChunks(pages, view),
      }
    : {
        format,
        contentType: "application/x-ndjson",
        filename: `audit-log-${stamp}.ndjson`,
        chunks: ndjsonChunks(pages, view),
      };
}
