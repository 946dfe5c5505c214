import type { Page } from "./pages.js";

/** Where the emailed sign-in link points (`email.links.emailSignIn`'s default) and the page's script. */
export const EMAIL_SIGN_IN_PATH = "/sign-in/email";
export const EMAIL_SIGN_IN_SCRIPT_PATH = "/sign-in/email.js";

/**
 * `GET /sign-in/email?token=…`: the page an emailed sign-in link opens. Opening it signs nobody in
 * (a mail scanner that follows the link spends nothing): it shows a button, and only the button's
 * POST of the token (`<prefix>/email-sign-in`) signs in. Static, with its own small script, so it
 * does not depend on the example's web UI. The token never leaves the page in a Referer.
 */
export function emailSignInPages(apiPrefix = "/api/auth"): Map<string, Page> {
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Sign in by email</title><link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style>body{font-family:system-ui,sans-serif;margin:0 auto;max-width:28rem;padding:32px 16px;background:#f3f4f6;color:#111827}
main{background:#fff;border-radius:8px;padding:24px}button{font:inherit;font-weight:600;color:#fff;background:#4f46e5;border:0;border-radius:6px;padding:10px 20px;cursor:pointer}
button:disabled{opacity:.6;cursor:default}#status{min-height:1.5em}a{color:#4f46e5}</style></head>
<body><main>
<h1>Sign in by email</h1>
<p id="status" role="status">Press the button to finish signing in on this device.</p>
<form id="email-sign-in" data-endpoint="${apiPrefix}/email-sign-in"><button type="submit">Sign in</button></form>
<noscript><p>This page needs JavaScript to sign you in.</p></noscript>
<p><a href="/">Back to the app</a></p>
</main>
<script src="${EMAIL_SIGN_IN_SCRIPT_PATH}"></script>
</body></html>`;
  return new Map<string, Page>([
    [EMAIL_SIGN_IN_PATH, { status: 200, contentType: "text/html; charset=utf-8", body }],
    [EMAIL_SIGN_IN_SCRIPT_PATH, { status: 200, contentType: "text/javascript; charset=utf-8", body: SCRIPT }],
  ]);
}

/**
 * The page's script: on the button's submit, POST `{ token }` (from the link's `?token=`) as JSON;
 * signed in → the app; a second factor is needed → the app's 2FA step (as an identity provider's
 * callback does: `?twoFactor=login&methods=…`); otherwise the error's message.
 */
const SCRIPT = `"use strict";
(() => {
  const form = document.getElementById("email-sign-in");
  const status = document.getElementById("status");
  const button = form.querySelector("button");
  const token = new URLSearchParams(location.search).get("token");
  if (!token) {
    status.textContent = "This link has no sign-in token. Ask for a new sign-in email.";
    button.disabled = true;
    return;
  }
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    button.disabled = true;
    status.textContent = "Signing in…";
    try {
      const reply = await fetch(form.dataset.endpoint, {
        method: "POST",
        headers: { "content-type": "application/json" },
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
        status.textContent = "You are signed in.";
        location.assign("/");
        return;
      }
      status.textContent = body.message || "The sign-in did not work. Ask for a new sign-in email.";
    } catch {
      status.textContent = "The server could not be reached. Please try again.";
      button.disabled = false;
    }
  });
})();
`;
