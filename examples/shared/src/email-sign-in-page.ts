import type { Page } from "./pages.js";

/** Where the emailed sign-in link points (`email.links.emailSignIn`'s default) and the page's script. */
export const EMAIL_SIGN_IN_PATH = "/sign-in/email";
export const EMAIL_SIGN_IN_SCRIPT_PATH = "/sign-in/email.js";

/** The page's words in English and German (the UI's languages), by key. */
const WORDS = {
  en: {
    title: "Sign in by email",
    lead: "Press the button to finish signing in on this device.",
    submit: "Sign in",
    back: "Back to the app",
    noScript: "This page needs JavaScript to sign you in.",
    noToken: "This link has no sign-in token. Ask for a new sign-in email.",
    signingIn: "Signing in…",
    done: "You are signed in.",
    failed:
      "This sign-in link is not valid: it was already used, has expired or was replaced by a newer one. Ask for a new sign-in email.",
    network: "The server could not be reached. Please try again.",
  },
  de: {
    title: "Per E-Mail anmelden",
    lead: "Drücke den Knopf, um die Anmeldung auf diesem Gerät abzuschließen.",
    submit: "Anmelden",
    back: "Zurück zur App",
    noScript: "Diese Seite braucht JavaScript, um dich anzumelden.",
    noToken: "Dieser Link enthält kein Anmelde-Token. Fordere eine neue Anmelde-E-Mail an.",
    signingIn: "Anmeldung läuft …",
    done: "Du bist angemeldet.",
    failed:
      "Dieser Anmeldelink ist nicht gültig: Er wurde schon benutzt, ist abgelaufen oder wurde durch einen neueren ersetzt. Fordere eine neue Anmelde-E-Mail an.",
    network: "Der Server ist nicht erreichbar. Bitte versuche es erneut.",
  },
} as const;

/**
 * `GET /sign-in/email?token=…`: the page an emailed sign-in link opens. Opening it signs nobody in
 * (a mail scanner that follows the link spends nothing): it shows a button, and only the button's
 * POST of the token (`<prefix>/email-sign-in`) signs in. Static, with its own small script, so it
 * does not depend on the example's web UI; in English or German, as the UI was last set (its
 * `language` in localStorage) or else as the browser asks. The token never leaves the page in a
 * Referer.
 */
export function emailSignInPages(apiPrefix = "/api/auth"): Map<string, Page> {
  const en = WORDS.en;
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${en.title}</title><link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style>body{font-family:system-ui,sans-serif;margin:0 auto;max-width:28rem;padding:32px 16px;background:#f3f4f6;color:#111827}
main{background:#fff;border-radius:8px;padding:24px}h1{overflow-wrap:anywhere}button{font:inherit;font-weight:600;color:#fff;background:#4f46e5;border:0;border-radius:6px;padding:10px 20px;cursor:pointer}
button:disabled{opacity:.6;cursor:default}#status{min-height:1.5em}#status.error{color:#991b1b}a{color:#4f46e5}</style></head>
<body><main>
<h1 data-words="title">${en.title}</h1>
<p id="status" role="status" data-words="lead">${en.lead}</p>
<form id="email-sign-in" data-endpoint="${apiPrefix}/email-sign-in"><button type="submit" data-words="submit">${en.submit}</button></form>
<noscript><p>${en.noScript} ${WORDS.de.noScript}</p></noscript>
<p><a href="/" data-words="back">${en.back}</a></p>
</main>
<script src="${EMAIL_SIGN_IN_SCRIPT_PATH}"></script>
</body></html>`;
  return new Map<string, Page>([
    [EMAIL_SIGN_IN_PATH, { status: 200, contentType: "text/html; charset=utf-8", body }],
    [EMAIL_SIGN_IN_SCRIPT_PATH, { status: 200, contentType: "text/javascript; charset=utf-8", body: SCRIPT }],
  ]);
}

/**
 * The page's script: picks the language and puts its words in the page; on the button's submit,
 * POST `{ token }` (from the link's `?token=`) as JSON; signed in → the app; a second factor is
 * needed → the app's 2FA step (as an identity provider's callback does:
 * `?twoFactor=login&methods=…`); otherwise a message in the page's language.
 */
const SCRIPT = `"use strict";
(() => {
  const WORDS = ${JSON.stringify(WORDS)};
  const stored = (() => { try { return localStorage.getItem("language"); } catch { return null; } })();
  const lang = stored in WORDS ? stored : (navigator.language || "en").toLowerCase().startsWith("de") ? "de" : "en";
  const words = WORDS[lang];
  document.documentElement.lang = lang;
  document.title = words.title;
  for (const node of document.querySelectorAll("[data-words]")) node.textContent = words[node.dataset.words];
  const form = document.getElementById("email-sign-in");
  const status = document.getElementById("status");
  const button = form.querySelector("button");
  const say = (text, kind) => {
    status.textContent = text;
    status.className = kind || "";
  };
  const token = new URLSearchParams(location.search).get("token");
  if (!token) {
    say(words.noToken, "error");
    button.disabled = true;
    return;
  }
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    button.disabled = true;
    say(words.signingIn);
    try {
      const reply = await fetch(form.dataset.endpoint, {
        method: "POST",
        headers: { "content-type": "application/json", "accept-language": lang },
        credentials: "same-origin",
        body: JSON.stringify({ token }),
      });
      const body = await reply.json().catch(() => ({}));
      if (reply.ok && body.twoFactorRequired) {
        const methods = encodeURIComponent((body.twoFactorMethods || []).join(","));
        location.assign("/?twoFactor=login&methods=" + methods);
        return;
      }
      if (reply.ok) {
        say(words.done);
        location.assign("/");
        return;
      }
      say(reply.status === 429 && body.message ? body.message : words.failed, "error");
    } catch {
      say(words.network, "error");
      button.disabled = false;
    }
  });
})();
`;
