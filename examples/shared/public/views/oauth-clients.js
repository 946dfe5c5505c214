// The back office's OAuth clients (/admin/oauth/clients, docs/oauth-provider.md), linked from the
// back office while the provider is on (`GET /ui/config`, OAUTH_PROVIDER): for an admin after the
// step-up (the security page's box, shown in this page), the provider's clients a page at a time
// with their kind, redirect URIs, grants and scopes; a form that adds one (a confidential one's
// secret shown once, with a copy button) and changes one (Edit fills it in); a new secret (asked
// first: the old one stops at once), shown once; and Delete, asked first. Every call is
// `<prefix>/oauth2/clients…` with the session's cookies, its step-up cookie among them.
import { changeAndReload, redrawOnChange } from "../ui/list-page.js";
import {
  $,
  addSignedInPath,
  cardConfirm,
  element,
  lastErrorCode,
  onSubmit,
  render,
  run,
  show,
  validate,
  viewSection,
} from "../ui/page.js";
import { forgetShown } from "../ui/shown-once.js";
import { state } from "../ui/state.js";
import { currentLanguage, t } from "../ui/strings.js";
import {
  clientCall,
  clientFromForm,
  clientItem,
  drawFormChoices,
  fillForm,
  offeredScopes,
  resetForm,
  showClientSecret,
} from "./oauth-client-parts.js";
import { isProviderOn } from "./oauth-parts.js";
import { renderStepUp } from "./security.js";

const VIEW = "/admin/oauth/clients";
const SECRET_BOX = "clients-secret";
/** Clients per page ("Load more" asks for the next one). */
const PAGE = 20;
addSignedInPath(VIEW);

document.querySelector("main footer").before(
  viewSection(
    "oauth-clients",
    VIEW,
    `<div class="card">
      <h1 data-i18n="clients.title">OAuth clients</h1>
      <p class="muted" data-i18n="clients.lead"></p>
      <p><a href="/admin" data-link data-i18n="clients.back">Back</a></p>
      <p id="clients-notice" hidden></p>
    </div>
    <div id="clients-step-up" hidden><p class="muted" data-i18n="clients.confirmFirst"></p></div>
    <div id="clients-tools" hidden>
      <div id="${SECRET_BOX}" class="card key-new" hidden></div>
      <div class="card">
        <h2 data-i18n="clients.list">Clients</h2>
        <p id="clients-loading" class="muted" data-i18n="clients.loading" hidden></p>
        <ul id="clients-list" class="list clients-list"></ul>
        <p id="clients-none" class="muted" data-i18n="clients.none" hidden></p>
        <button id="clients-more" type="button" class="secondary" data-i18n="clients.more" hidden>Load more</button>
      </div>
      <form id="clients-form" class="card" novalidate>
        <h2 id="clients-form-title" tabindex="-1"></h2>
        <label><span data-i18n="clients.name">Name</span> <input name="name" maxlength="100" autocomplete="off" required></label>
        <label id="clients-id-field"><span data-i18n="clients.clientId">Client ID</span> <input name="clientId" maxlength="100" autocomplete="off" autocapitalize="none" spellcheck="false"></label>
        <fieldset id="clients-kind" class="choices clients-choices">
          <legend data-i18n="clients.kind">Kind</legend>
          <label class="choice"><input type="radio" name="kind" value="confidential" checked> <span data-i18n="clients.kindConfidential"></span></label>
          <label class="choice"><input type="radio" name="kind" value="public"> <span data-i18n="clients.kindPublic"></span></label>
        </fieldset>
        <label><span data-i18n="clients.redirectUris">Redirect URIs</span> <textarea name="redirectUris" rows="3" autocomplete="off" autocapitalize="none" spellcheck="false" placeholder="https://app.example.com/callback"></textarea></label>
        <fieldset id="clients-grants" class="choices clients-choices"></fieldset>
        <fieldset id="clients-scopes" class="choices clients-choices"></fieldset>
        <div class="row">
          <button id="clients-submit" type="submit"></button>
          <button id="clients-cancel" type="button" class="secondary" data-i18n="confirm.cancel" hidden>Cancel</button>
        </div>
      </form>
    </div>`,
  ),
);
const form = $("clients-form");

/**
 * What the page knows: the clients shown (null until loaded) and the next page's `after`, the
 * provider's scopes, for which visit they were loaded, whether the provider is on (null: not known
 * yet), and the client being changed in the form (null: the form adds one).
 */
const clients = {
  items: null,
  nextAfter: null,
  scopes: null,
  loadedFor: null,
  providerOn: null,
  editing: null,
};

/** Asks once whether the provider is on; the page and the back office's card follow. */
let providerAsked = false;
function checkProvider() {
  if (providerAsked) return;
  providerAsked = true;
  isProviderOn().then((on) => {
    clients.providerOn = on;
    render();
  });
}

/** The clients' first page and the provider's scopes, for the visit `key`. */
const load = (key) =>
  run(
    async () => {
      const [page, scopes] = await Promise.all([
        clientCall("GET", `?limit=${PAGE}`),
        clients.scopes ?? offeredScopes(),
      ]);
      if (clients.loadedFor !== key) return true;
      Object.assign(clients, { items: page.items, nextAfter: page.nextAfter, scopes });
      if (!clients.editing) resetForm(form, scopes);
      return true;
    },
    "",
    { refresh: false },
  ).then((loaded) => {
    // A step-up that ran out: loaded again once it is confirmed.
    if (!loaded && lastErrorCode === "STEP_UP_REQUIRED" && clients.loadedFor === key)
      clients.loadedFor = null;
  });

/** The list again after a change: as many clients as were shown (at least a page, at most 100). */
async function reloadList() {
  const limit = Math.min(100, Math.max(PAGE, clients.items?.length ?? 0));
  const page = await clientCall("GET", `?limit=${limit}`);
  Object.assign(clients, { items: page.items, nextAfter: page.nextAfter });
}

/** A client call, then the list again (a failure there leaves it as it was); `done` its words. */
const change = changeAndReload(reloadList);

const one = (client) => `/${encodeURIComponent(client.clientId)}`;

// ---- The form: adding a client, or changing one -----------------------------------------------
function startEditing(client) {
  clients.editing = client;
  fillForm(form, clients.scopes ?? [], client);
  drawForm();
  $("clients-form-title").focus();
}

function stopEditing() {
  clients.editing = null;
  resetForm(form, clients.scopes ?? []);
  drawForm();
}

function drawForm() {
  const editing = clients.editing;
  $("clients-form-title").textContent = editing
    ? t("clients.editTitle", { name: editing.name })
    : t("clients.createTitle");
  $("clients-submit").textContent = t(editing ? "clients.save" : "clients.create");
  show("clients-id-field", !editing);
  show("clients-kind", !editing);
  show("clients-cancel", Boolean(editing));
}

onSubmit("clients-form", (_form, _values, submitter) => {
  const valid = validate(form);
  const editing = clients.editing;
  const body = clientFromForm(form, editing);
  if (!valid || body === null) return;
  if (editing)
    return change(
      () => clientCall("PATCH", one(editing), body),
      (result) => t("done.clientUpdated", { name: result.client.name }),
      { form, button: submitter },
    ).then((result) => result && stopEditing());
  return change(
    () => clientCall("POST", "", body),
    (result) => t("done.clientCreated", { name: result.client.name }),
    { form, button: submitter },
  ).then((result) => {
    if (!result) return;
    resetForm(form, clients.scopes ?? []);
    if (result.clientSecret)
      showClientSecret(SECRET_BOX, { name: result.client.name, secret: result.clientSecret, rotated: false });
  });
});
$("clients-cancel").addEventListener("click", () => {
  const id = clients.editing?.clientId ?? "";
  stopEditing();
  document.querySelector(`[data-focus="${CSS.escape(`${id}:edit`)}"]`)?.focus();
});
$("clients-more").addEventListener("click", (event) =>
  run(
    async () => {
      const page = await clientCall("GET", `?limit=${PAGE}&after=${encodeURIComponent(clients.nextAfter)}`);
      Object.assign(clients, { items: [...(clients.items ?? []), ...page.items], nextAfter: page.nextAfter });
    },
    "",
    { refresh: false, button: event.currentTarget },
  ),
);

// ---- A client's buttons -----------------------------------------------------------------------
const confirmDelete = cardConfirm("clients-delete", "clients.yesDelete");
const confirmRotate = cardConfirm("clients-rotate", "clients.yesRotate");

const actions = {
  edit: startEditing,
  /** A new secret, asked first (the old one stops at once), shown once. */
  rotate(client, origin) {
    confirmRotate.ask(origin, t("clients.confirmRotate", { name: client.name }), () =>
      change(
        () => clientCall("POST", `${one(client)}/secret`),
        t("done.clientRotated", { name: client.name }),
      ).then((result) => {
        if (result)
          showClientSecret(SECRET_BOX, { name: client.name, secret: result.clientSecret, rotated: true });
      }),
    );
  },
  remove(client, origin) {
    confirmDelete.ask(origin, t("clients.confirmDelete", { name: client.name }), () =>
      change(() => clientCall("DELETE", one(client)), t("done.clientDeleted", { name: client.name })).then(
        (result) => {
          if (result && clients.editing?.clientId === client.clientId) stopEditing();
        },
      ),
    );
  },
};

// ---- Drawing ----------------------------------------------------------------------------------
/** The list, drawn again only when it (or the language) changed (ui/list-page.js). */
const drawList = redrawOnChange(
  () => [clients.items, clients.nextAfter],
  () => {
    confirmDelete.close();
    confirmRotate.close();
    const items = clients.items ?? [];
    $("clients-list").replaceChildren(...items.map((client) => clientItem(client, actions)));
    show("clients-loading", clients.items === null);
    show("clients-none", clients.items !== null && items.length === 0);
    show("clients-more", clients.nextAfter !== null);
  },
);
/** The language the form's choices were drawn in. */
let drawnLanguage = "";
function draw() {
  drawList();
  if (drawnLanguage !== currentLanguage() && clients.scopes) {
    drawnLanguage = currentLanguage();
    drawFormChoices(form, clients.scopes);
  }
  drawForm();
}

// ---- The back office's card -------------------------------------------------------------------
const card = element("div", { id: "admin-clients-card", className: "card", hidden: true });
card.innerHTML = `
  <h2 data-i18n="clients.title">OAuth clients</h2>
  <p class="muted" data-i18n="clients.cardLead"></p>
  <a id="admin-clients-link" href="${VIEW}" class="button secondary" data-link data-i18n="clients.link">Open</a>`;
$("admin-tools").append(card);

const isAdmin = () => state.me?.isAdmin === true && !state.me.impersonatedBy;

let visit = 0;
let onPage = false;
/** The back office's card, and the page /admin/oauth/clients: loaded once per visit and user. */
export function renderOAuthClients(view) {
  if (view === "/admin" && isAdmin()) checkProvider();
  card.hidden = clients.providerOn !== true;
  const arrived = view === VIEW && !onPage;
  onPage = view === VIEW && Boolean(state.me);
  if (!onPage) {
    // The secret is shown once: leaving the page forgets it.
    forgetShown(SECRET_BOX);
    confirmDelete.close();
    confirmRotate.close();
    if (clients.editing) stopEditing();
    return;
  }
  if (arrived) visit += 1;
  const allowed = isAdmin();
  if (allowed) checkProvider();
  const notice = !allowed
    ? "admin.denied"
    : clients.providerOn === false
      ? "clients.off"
      : clients.providerOn === null
        ? "clients.loading"
        : "";
  $("clients-notice").textContent = notice ? t(notice) : "";
  show("clients-notice", notice !== "");
  const ready = allowed && clients.providerOn === true;
  const confirmed = ready && renderStepUp("clients-step-up");
  show("clients-step-up", ready && !confirmed);
  show("clients-tools", confirmed);
  if (!confirmed) return;
  const key = `${state.me.id}|${visit}`;
  if (clients.loadedFor !== key) {
    Object.assign(clients, { items: null, nextAfter: null, loadedFor: key });
    load(key);
  }
  draw();
}
