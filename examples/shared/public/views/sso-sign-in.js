// "Sign in with SSO" on the sign-in page (docs/sso.md): a work address or an organization's short
// name goes to `POST /api/auth/sso/start`, and the browser on to the identity provider's URL it
// answers. The sign-in comes back to the app signed in, or to /login?error=<code>: `ssoErrorWords`
// says what went wrong (app.js shows it). Offered only while the server runs SSO (`/ui/config`).
import { $, element, markField, onSubmit, run, say, show } from "../ui/page.js";
import { pendingReturnTo, reauthAsked } from "../ui/return-to.js";
import { has, t } from "../ui/strings.js";
import "../ui/strings-sso.js";
import { ssoCall } from "./sso-parts.js";

const card = element("form", { id: "sso-sign-in", className: "card", hidden: true });
card.noValidate = true;
card.innerHTML = `
  <h2 data-i18n="ssoLogin.title">Single sign-on</h2>
  <p class="muted" data-i18n="ssoLogin.lead"></p>
  <label><span data-i18n="ssoLogin.field">Work email or organization</span> <input name="who" autocomplete="email" autocapitalize="none" spellcheck="false" maxlength="254" required></label>
  <button type="submit" class="secondary" data-i18n="ssoLogin.submit">Sign in with SSO</button>`;
$("providers").after(card);

/** Whether the server runs enterprise sign-in (`GET /ui/config`, SSO), asked once per page load. */
let ssoOn = false;
fetch("/ui/config")
  .then((reply) => reply.json())
  .then((config) => {
    ssoOn = config.sso === true;
    renderSsoSignIn();
  })
  .catch(() => {});

/** The start's body: `{ email }` for an address, `{ organization }` for a short name; null for neither. */
function startTarget(who) {
  const value = who.trim();
  if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) return { email: value };
  const slug = value.toLowerCase();
  return /^[a-z0-9-]{2,48}$/.test(slug) ? { organization: slug } : null;
}

onSubmit("sso-sign-in", (form, { who }, submitter) => {
  const target = startTarget(who ?? "");
  if (!target) {
    const input = form.querySelector("[name=who]");
    markField(input, t("ssoLogin.required"));
    say(t("ssoLogin.required"), "error");
    input.focus();
    return;
  }
  const returnTo = pendingReturnTo();
  return run(
    () => ssoCall("POST", "/sso/start", { ...target, ...(returnTo ? { returnTo } : {}) }),
    t("ssoLogin.going"),
    {
      form,
      button: submitter,
      refresh: false,
      messages: { NOT_FOUND: "ssoLogin.notFound" },
    },
  ).then((result) => {
    if (result) location.assign(result.url);
  });
});

/** The words for the code an enterprise sign-in came back with (`/login?error=<code>`). */
export const ssoErrorWords = (code) =>
  has(`ssoError.${code}`) ? t(`ssoError.${code}`) : t("ssoError.other");

/** The card shows on the sign-in page while SSO is on, but not for a new sign-in a page asked for (`reauth`). */
export function renderSsoSignIn() {
  show("sso-sign-in", ssoOn && !reauthAsked());
}
