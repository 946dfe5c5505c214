// The page an invitation email links to, /invitations/accept?token=…: opening it changes nothing
// (a mail scanner may open it); its buttons accept or decline with a POST, as the signed-in user
// whose verified address was invited. Signed out, it asks to sign in first and keeps the token in
// sessionStorage, so the sign-in's landing comes back here. The result is kept for its token, so a
// re-render (a language switch) keeps it.
import { $, element, messageOf, navigate, render, run } from "../ui/page.js";
import { state } from "../ui/state.js";
import { t } from "../ui/strings.js";
import "../ui/strings-organizations.js";
import { orgCall } from "./organization-calls.js";
import { roleName } from "./organizations.js";

const VIEW = "/invitations/accept";
/** The token of an invitation opened while signed out (sessionStorage: this tab only). */
const PENDING_KEY = "portcullis-invitation";

const section = element("section", { id: "invitation", className: "view card", hidden: true });
section.dataset.view = VIEW;
section.innerHTML = `
  <h1 data-i18n="invitation.title">Invitation to an organization</h1>
  <p id="invitation-text" tabindex="-1"></p>
  <div id="invitation-actions" class="row" hidden>
    <button id="invitation-accept" type="button" data-i18n="invitation.accept">Accept the invitation</button>
    <button id="invitation-decline" type="button" class="secondary" data-i18n="invitation.decline">Decline</button>
  </div>
  <div id="invitation-sign-in" class="row" hidden>
    <a href="/login" data-link class="button" data-i18n="nav.login">Sign in</a>
    <a href="/signup" data-link class="button secondary" data-i18n="nav.signup">Sign up</a>
  </div>
  <a id="invitation-next" href="/organizations" data-link class="button secondary" data-i18n="invitation.toOrganizations" hidden>Go to your organizations</a>`;
document.querySelector("main footer").before(section);

/** Refusals that end the page's offer (others, like the network or an unverified address, leave the buttons). */
const FINAL = ["INVITATION_INVALID", "INVITATION_EMAIL_MISMATCH", "ALREADY_MEMBER", "VALIDATION_FAILED"];

/** What the buttons did for a token: `{ token, accepted }`, `{ token, declined }` or `{ token, error }`. */
let outcome = null;
const tokenOfPage = () => new URLSearchParams(location.search).get("token") ?? "";

function text(token) {
  if (!token) return t("invitation.noToken");
  if (!state.me) return t("invitation.signInFirst");
  if (outcome?.token !== token) return t("invitation.lead");
  if (outcome.accepted)
    return t("invitation.accepted", {
      name: outcome.accepted.organization.name,
      role: roleName(outcome.accepted.role),
    });
  return outcome.declined ? t("invitation.declined") : messageOf(outcome.error);
}

/**
 * After a sign-in (whose landing is /account): back to the invitation opened before it, once the
 * sign-in's own navigation is done (the next task). The token is kept until the page is back.
 */
function resumeAfterSignIn(view) {
  const token = sessionStorage.getItem(PENDING_KEY);
  if (!token || !state.me) return;
  if (view === VIEW) sessionStorage.removeItem(PENDING_KEY);
  if (view !== "/account") return;
  setTimeout(() => {
    if (location.pathname === "/account" && sessionStorage.getItem(PENDING_KEY) === token)
      navigate(`${VIEW}?token=${encodeURIComponent(token)}`, true);
  }, 0);
}

/** The invitation page (and the way back to it after a sign-in). */
export function renderInvitation(view) {
  resumeAfterSignIn(view);
  if (view !== VIEW) return;
  const token = tokenOfPage();
  if (token && !state.me) sessionStorage.setItem(PENDING_KEY, token);
  const done = outcome?.token === token;
  $("invitation-text").textContent = text(token);
  $("invitation-text").className = done ? (outcome.error ? "error" : "ok") : "";
  $("invitation-actions").hidden = !token || !state.me || done;
  $("invitation-sign-in").hidden = !token || Boolean(state.me);
  $("invitation-next").hidden = !done || !outcome.accepted;
}

/** Accepts or declines the page's invitation with its button (a POST), keeping what happened. */
function answer(action) {
  const token = tokenOfPage();
  let failure = null;
  return run(
    async () => {
      try {
        return await orgCall(`POST /invitations/${action}`, { body: { token } });
      } catch (error) {
        failure = error;
        throw error;
      }
    },
    (result) =>
      action === "accept"
        ? t("invitation.accepted", { name: result.organization.name, role: roleName(result.role) })
        : t("invitation.declined"),
  ).then((result) => {
    if (result) outcome = action === "accept" ? { token, accepted: result } : { token, declined: true };
    else if (FINAL.includes(failure?.code)) outcome = { token, error: failure };
    sessionStorage.removeItem(PENDING_KEY);
    render();
    if (outcome?.token === token) $("invitation-text").focus();
  });
}
$("invitation-accept").addEventListener("click", () => answer("accept"));
$("invitation-decline").addEventListener("click", () => answer("decline"));
