// The OAuth provider's consent page (/oauth/consent?consentId=…, docs/oauth-provider.md): the
// authorization endpoint sends the signed-in user here the first time an app asks for a set of
// scopes. It shows the app's name, what each scope lets it do and the origin the answer goes back
// to; Allow or Deny answers `POST <prefix>/oauth2/consent`, whose `redirectTo` (the app's redirect
// URI with a code, or `error=access_denied`) the browser then opens. A signed-out visitor signs in
// first and comes back here (ui/return-to.js). The page's markup is made here.
import { $, addSignedInPath, render, say, show, viewSection } from "../ui/page.js";
import { state } from "../ui/state.js";
import { t } from "../ui/strings.js";
import { oauthCall, scopeItems } from "./oauth-parts.js";

const VIEW = "/oauth/consent";
addSignedInPath(VIEW, true);

const section = viewSection(
  "oauth-consent",
  VIEW,
  `
  <div class="card">
    <h1 data-i18n="consent.title">Allow access?</h1>
    <p id="consent-state" class="muted"></p>
    <div id="consent-request" hidden>
      <p id="consent-lead" class="lead"></p>
      <ul id="consent-scopes" class="scopes"></ul>
      <p id="consent-redirect" class="muted oauth-origin"></p>
      <p id="consent-account" class="muted oauth-origin"></p>
      <div class="row">
        <button type="button" id="consent-allow" data-i18n="consent.allow">Allow</button>
        <button type="button" id="consent-deny" class="secondary" data-i18n="consent.deny">Deny</button>
      </div>
    </div>
  </div>`,
);
document.querySelector("main footer").before(section);

/** The request shown: for which user and consentId it was loaded, what it is, or the words of its problem. */
const consent = { loadedFor: null, request: null, problem: null, answering: false };

const consentId = () => new URLSearchParams(location.search).get("consentId");

async function load(key, id) {
  try {
    const request = await oauthCall("GET", `/oauth2/consent?consentId=${encodeURIComponent(id)}`);
    if (consent.loadedFor !== key) return;
    consent.request = request;
  } catch (error) {
    if (consent.loadedFor !== key) return;
    // 401: the session ended, and the page follows (app.js); 400: expired, answered or someone else's.
    if (error.status === 401) return;
    consent.problem = error.status === 0 ? "error.network" : "consent.invalid";
  }
  render();
}

function draw() {
  const { request, problem } = consent;
  const note = $("consent-state");
  note.textContent = problem ? t(problem) : request ? "" : t("consent.loading");
  note.className = problem ? "error" : "muted";
  show("consent-request", request !== null && problem === null);
  if (request === null) return;
  $("consent-lead").textContent = t("consent.lead", { client: request.client.name });
  $("consent-scopes").replaceChildren(...scopeItems(request.scopes));
  $("consent-redirect").textContent = t("consent.redirect", { origin: request.redirectOrigin });
  $("consent-account").textContent = t("consent.account", { email: state.me.email });
}

export function renderOAuthConsent(view) {
  if (view !== VIEW || !state.me) {
    if (!state.me) Object.assign(consent, { loadedFor: null, request: null, problem: null });
    return;
  }
  const id = consentId();
  const key = `${state.me.id}|${id}`;
  if (consent.loadedFor !== key) {
    Object.assign(consent, { loadedFor: key, request: null, problem: id ? null : "consent.missing" });
    if (id) void load(key, id);
  }
  draw();
}

/** Allow or Deny: the provider answers where the browser goes next (the app, with a code or a refusal). */
async function answer(approve) {
  if (consent.answering) return;
  consent.answering = true;
  const buttons = [$("consent-allow"), $("consent-deny")];
  for (const node of buttons) node.disabled = true;
  try {
    const { redirectTo } = await oauthCall("POST", "/oauth2/consent", { consentId: consentId(), approve });
    // Leaving for the app: the buttons stay disabled, the request is spent.
    location.assign(redirectTo);
    return;
  } catch (error) {
    if (error.status === 401) return;
    if (error.status === 400) consent.problem = "consent.invalid";
    say(
      t(error.status === 0 ? "error.network" : error.status === 400 ? "consent.invalid" : "consent.failed"),
      "error",
    );
    render();
  } finally {
    consent.answering = false;
  }
  for (const node of buttons) node.disabled = false;
}

$("consent-allow").addEventListener("click", () => answer(true));
$("consent-deny").addEventListener("click", () => answer(false));
