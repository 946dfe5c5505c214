// The apps the user authorized through the OAuth provider, on the security page: each with what it
// may do and since when, and Revoke (asked in the card first), which withdraws the consent and
// signs the app out at once (`DELETE <prefix>/oauth2/grants/:clientId`). Read when the page opens.
// The card shows only while the provider is on, as `GET /ui/config` says (OAUTH_PROVIDER): without
// it the list is not even asked for (its route would answer 404, an error in the console).
import { $, button, cardConfirm, element, say, show } from "../ui/page.js";
import { state } from "../ui/state.js";
import { currentLanguage, dateTime, t } from "../ui/strings.js";
import { scopeWords } from "../ui/strings-oauth.js";
import { isProviderOn, oauthCall } from "./oauth-parts.js";

const VIEW = "/settings/security";

const card = element("div", { id: "apps-card", className: "card", hidden: true });
card.innerHTML = `
  <h2 data-i18n="apps.title">Authorized apps</h2>
  <p class="muted" data-i18n="apps.lead"></p>
  <ul id="apps-list" class="list apps-list"></ul>`;
$("trusted-card").after(card);

/** The grants as last read (null: not read yet for this visit), and whether the provider is off. */
const apps = { list: null, off: false, lastView: null };
const confirm = cardConfirm("apps", "apps.yes");

async function load() {
  if (!(await isProviderOn())) {
    apps.off = true;
    return;
  }
  try {
    apps.list = (await oauthCall("GET", "/oauth2/grants")).grants;
    apps.off = false;
  } catch (error) {
    if (error.status === 404) apps.off = true;
    else if (error.status !== 401) say(t("error.network"), "error");
    apps.list = apps.list ?? [];
  }
  draw();
}

async function revoke(app) {
  try {
    await oauthCall("DELETE", `/oauth2/grants/${encodeURIComponent(app.clientId)}`);
    say(t("done.appRevoked", { name: app.name }));
  } catch (error) {
    // 404: revoked already (another tab): the list read again shows it gone.
    if (error.status !== 404 && error.status !== 401)
      say(t(error.status === 0 ? "error.network" : "apps.failed"), "error");
  }
  await load();
  $("apps-list").querySelector("button")?.focus();
}

function item(app) {
  const revokeButton = button(
    t("apps.revoke"),
    (event) => confirm.ask(event.currentTarget, t("apps.confirm", { name: app.name }), () => revoke(app)),
    "danger small",
  );
  revokeButton.setAttribute("aria-label", t("apps.revokeNamed", { name: app.name }));
  const scopes = app.scopes.map(scopeWords).join(" · ");
  return element(
    "li",
    {},
    element(
      "div",
      { className: "app-text" },
      element("strong", { textContent: app.name }),
      element("small", { className: "app-scopes", textContent: scopes }),
      element("small", {
        className: "muted",
        textContent: t("apps.since", { time: dateTime(app.createdAt) }),
      }),
    ),
    revokeButton,
  );
}

/** The list is drawn again only when it (or the language) changed: a focused button survives other renders. */
let drawn = "";
function draw() {
  const here = apps.lastView === VIEW && Boolean(state.me);
  show("apps-card", here && !apps.off && apps.list !== null);
  const shown = JSON.stringify([currentLanguage(), apps.list]);
  if (shown === drawn) return;
  drawn = shown;
  confirm.close();
  const list = apps.list ?? [];
  $("apps-list").replaceChildren(
    ...(list.length === 0
      ? [element("li", { className: "muted", textContent: t("apps.none") })]
      : list.map(item)),
  );
}

/** On the security page, signed in: the list, read when the page opens. */
export function renderAuthorizedApps(view) {
  const here = view === VIEW && Boolean(state.me);
  const arrived = here && apps.lastView !== VIEW;
  apps.lastView = here ? VIEW : view;
  if (!here) {
    apps.list = null;
    confirm.close();
  }
  draw();
  if (arrived) void load();
}
