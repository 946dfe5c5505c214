import { readFileSync } from "node:fs";
import type { OutboxMailer } from "@portcullis/core";

/** A response both example servers can write as is. */
export interface Page {
  status: number;
  contentType: string;
  body: string;
}

const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char] ?? char,
  );

/** `GET /dev/outbox`: the captured emails as JSON, newest first. */
export function outboxListPage(outbox: OutboxMailer): Page {
  const emails = outbox.list().map(({ html: _html, ...entry }) => ({
    ...entry,
    sentAt: new Date(entry.sentAt).toISOString(),
    url: `/dev/outbox/${entry.id}`,
  }));
  return { status: 200, contentType: "application/json; charset=utf-8", body: JSON.stringify({ emails }) };
}

/** `GET /dev/outbox/:id`: one email as a page, its HTML in a sandboxed frame under its metadata. */
export function outboxEntryPage(outbox: OutboxMailer, id: string): Page {
  const entry = outbox.get(id);
  if (!entry)
    return { status: 404, contentType: "text/plain; charset=utf-8", body: "No such email in the outbox." };
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(entry.subject)}</title>
<style>body{font-family:system-ui,sans-serif;margin:0;background:#f3f4f6}header{padding:12px 16px;background:#111827;color:#f9fafb;font-size:14px}
header a{color:#a5b4fc}dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:8px 0 0}dt{color:#9ca3af}
iframe{display:block;width:100%;height:80vh;border:0;background:#fff}pre{white-space:pre-wrap;padding:16px;margin:0;background:#fff;border-top:1px solid #e5e7eb}</style></head>
<body><header><a href="/dev/outbox">← outbox</a><dl>
<dt>Subject</dt><dd>${escapeHtml(entry.subject)}</dd><dt>To</dt><dd>${escapeHtml(entry.to)}</dd>
<dt>Kind</dt><dd>${escapeHtml(entry.kind)}</dd><dt>Locale</dt><dd>${escapeHtml(entry.locale)}</dd>
<dt>Sent</dt><dd>${new Date(entry.sentAt).toISOString()}</dd></dl></header>
<iframe sandbox="allow-popups allow-popups-to-escape-sandbox" title="HTML part" srcdoc="${escapeHtml(entry.html)}"></iframe>
<pre>${escapeHtml(entry.text)}</pre></body></html>`;
  return { status: 200, contentType: "text/html; charset=utf-8", body };
}

/** The pages email links open (`email.links` defaults); each serves the single-page UI. */
export const UI_PAGES = [
  "/",
  "/verify-email",
  "/reset-password",
  "/forgot-password",
  "/login",
  "/signup",
  "/settings/security",
];

const ASSETS: Record<string, string> = {
  "index.html": "text/html; charset=utf-8",
  "app.js": "text/javascript; charset=utf-8",
  "style.css": "text/css; charset=utf-8",
};

/** The web UI's files, read once at start-up, by URL path: the page under every `UI_PAGES` path. */
export function uiAssets(): Map<string, Page> {
  const dir = new URL("../public/", import.meta.url);
  const read = (file: string): Page => ({
    status: 200,
    contentType: ASSETS[file] ?? "text/plain",
    body: readFileSync(new URL(file, dir), "utf8"),
  });
  const page = read("index.html");
  return new Map<string, Page>([
    ...UI_PAGES.map((path): [string, Page] => [path, page]),
    ["/app.js", read("app.js")],
    ["/style.css", read("style.css")],
  ]);
}
