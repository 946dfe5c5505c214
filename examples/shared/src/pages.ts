import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { escapeHtml, type OutboxMailer } from "@portcullis/core";
import { apiReferencePages } from "./api-reference.js";
import { readCaptchaConfig, readOAuthProviderFlag, readSsoFlag } from "./config.js";
import { emailSignInPages } from "./email-sign-in-page.js";

/** A response both example servers can write as is. */
export interface Page {
  status: number;
  contentType: string;
  body: string;
}

/** True when an `Accept` header ranks `text/html` above `application/json` (a browser's does). */
export function prefersHtml(accept: string | undefined): boolean {
  const quality = (type: string) => {
    let best = -1;
    for (const part of (accept ?? "").split(",")) {
      const [range = "", ...params] = part.trim().toLowerCase().split(";");
      const q = Number(
        params
          .find((p) => p.trim().startsWith("q="))
          ?.trim()
          .slice(2) ?? 1,
      );
      const [major] = type.split("/");
      if (range === type || range === `${major}/*` || range === "*/*")
        best = Math.max(best, range === "*/*" ? q - 0.001 : q);
    }
    return best;
  };
  return quality("text/html") > quality("application/json");
}

/**
 * `GET /dev/outbox`: the captured emails, newest first: a page of links for a browser (whose
 * `Accept` prefers HTML), else JSON `{ emails }`.
 */
export function outboxListPage(outbox: OutboxMailer, accept?: string): Page {
  const emails = outbox.list().map(({ html: _html, ...entry }) => ({
    ...entry,
    sentAt: new Date(entry.sentAt).toISOString(),
    url: `/dev/outbox/${entry.id}`,
  }));
  if (!prefersHtml(accept))
    return { status: 200, contentType: "application/json; charset=utf-8", body: JSON.stringify({ emails }) };
  const rows = emails
    .map(
      (email) =>
        `<li><a href="${escapeHtml(email.url)}"><strong>${escapeHtml(email.subject)}</strong></a>` +
        `<span>${escapeHtml(email.to)} · ${escapeHtml(email.kind)} · ${escapeHtml(email.locale)} · ` +
        `<time datetime="${email.sentAt}">${email.sentAt.replace("T", " ").slice(0, 19)} UTC</time></span></li>`,
    )
    .join("\n");
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Dev outbox</title><link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style>body{font-family:system-ui,sans-serif;margin:0 auto;max-width:48rem;padding:16px;background:#f3f4f6;color:#111827}
ol{list-style:none;padding:0}li{background:#fff;border-radius:8px;margin:8px 0;padding:12px 16px;display:flex;flex-direction:column;gap:4px}
span{color:#6b7280;font-size:14px}a{color:#4f46e5}</style></head>
<body><h1>Dev outbox</h1><p>${emails.length === 0 ? "No emails yet." : `${emails.length} email${emails.length === 1 ? "" : "s"}, newest first.`} <a href="/">Back to the app</a></p>
<ol>${rows}</ol></body></html>`;
  return { status: 200, contentType: "text/html; charset=utf-8", body };
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
  "/account",
  "/activity",
  "/settings/account",
  "/confirm-email-change",
  // The back office (views/admin.js).
  "/admin",
  // Organizations (views/organizations.js) and an invitation email's link (views/invitation.js).
  "/organizations",
  "/invitations/accept",
  // API keys (views/api-keys.js).
  "/api-keys",
  // The audit log of the active organization and of the deployment (views/audit-log.js).
  "/organizations/audit-log",
  "/admin/audit-log",
  // The active organization's webhook endpoints and their deliveries (views/webhooks.js).
  "/organizations/webhooks",
  // The active organization's enterprise sign-in: connections and domains (views/sso.js).
  "/organizations/sso",
  // The OAuth provider's consent page and device code page (views/oauth-consent.js, views/device.js).
  "/oauth/consent",
  "/device",
  // The back office's OAuth clients (views/oauth-clients.js).
  "/admin/oauth/clients",
];

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
};

/** The path the page imports `@portcullis/client` from (its built ESM file). */
export const CLIENT_SCRIPT_PATH = "/portcullis-client.js";

/**
 * `@portcullis/client`'s browser build (`dist/index.js`, one ESM file without imports), read
 * from node_modules, without its source-map comment (the map is not served).
 */
function clientScript(): Page {
  const manifest = createRequire(import.meta.url).resolve("@portcullis/client/package.json");
  const body = readFileSync(join(dirname(manifest), "dist", "index.js"), "utf8").replace(
    /\n\/\/# sourceMappingURL=.*\s*$/,
    "\n",
  );
  return { status: 200, contentType: TYPES.js as string, body };
}

/** The UI's modules: `app.js` and every `.js` under `ui/` and `views/`, by URL path. */
function modules(dir: URL): [string, Page][] {
  const files = [
    "app.js",
    ...["ui", "views"].flatMap((sub) => readdirSync(new URL(`${sub}/`, dir)).map((f) => `${sub}/${f}`)),
  ];
  return files
    .filter((file) => file.endsWith(".js"))
    .map((file) => [
      `/${file}`,
      { status: 200, contentType: TYPES.js as string, body: readFileSync(new URL(file, dir), "utf8") },
    ]);
}

/**
 * The web UI's files, read once at start-up, by URL path: the page under every `UI_PAGES` path,
 * its ES modules, the client package's build, the API reference page (`GET /docs/api`) with
 * its script, and the page of an emailed sign-in link (`GET /sign-in/email`, which signs in only
 * from its button) with its script.
 */
export function uiAssets(): Map<string, Page> {
  const dir = new URL("../public/", import.meta.url);
  const read = (file: string): Page => ({
    status: 200,
    contentType: TYPES[file.slice(file.lastIndexOf(".") + 1)] ?? "text/plain",
    body: readFileSync(new URL(file, dir), "utf8"),
  });
  const page = read("index.html");
  return new Map<string, Page>([
    ...UI_PAGES.map((path): [string, Page] => [path, page]),
    ...modules(dir),
    [CLIENT_SCRIPT_PATH, clientScript()],
    ["/style.css", read("style.css")],
    ["/audit-log.css", read("audit-log.css")],
    ["/webhooks.css", read("webhooks.css")],
    ["/oauth.css", read("oauth.css")],
    ["/sso.css", read("sso.css")],
    ["/favicon.svg", read("favicon.svg")],
    ["/favicon.ico", read("favicon.svg")],
    ...apiReferencePages(),
    ...emailSignInPages(),
    [
      "/ui/config",
      uiConfigPage(readCaptchaConfig(), { oauthProvider: readOAuthProviderFlag(), sso: readSsoFlag() }),
    ],
  ]);
}

/**
 * `GET /ui/config`: what the page's scripts need from the environment, JSON `{ captcha }`: the
 * CAPTCHA widget's provider and public site key (`ui/captcha.js` draws it), or null without
 * CAPTCHA_PROVIDER and CAPTCHA_SITE_KEY. Never the secret. With `features`, also whether the OAuth
 * provider is on (OAUTH_PROVIDER), so the security page asks for the authorized apps only then
 * (`views/authorized-apps.js`): a route that is not there would answer 404, an error in the
 * browser's console; and whether enterprise sign-in is on (SSO), so the sign-in page offers it
 * only then (`views/sso-sign-in.js`).
 */
export function uiConfigPage(
  captcha: { provider: string; siteKey: string | undefined } | undefined,
  features?: { oauthProvider: boolean; sso?: boolean },
): Page {
  const widget = captcha?.siteKey ? { provider: captcha.provider, siteKey: captcha.siteKey } : null;
  return {
    status: 200,
    contentType: "application/json; charset=utf-8",
    body: JSON.stringify({ captcha: widget, ...features }),
  };
}
