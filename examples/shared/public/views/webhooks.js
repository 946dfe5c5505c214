// Webhooks (docs/webhooks.md) of the active organization, on the page /organizations/webhooks
// (linked from the organization page's card) for a member whose role has webhook:manage: the
// endpoints with their events and state (turn off and on, a new secret, delete after a question),
// a form that adds one after the step-up (the security page's box, shown in this page), the secret
// shown once with a copy button, and an endpoint's deliveries with a button that sends one again.
import { isApiError } from "../ui/client.js";
import {
  $,
  addSignedInPath,
  cardConfirm,
  element,
  markField,
  onSubmit,
  render,
  run,
  say,
  show,
  showError,
  validate,
  viewSection,
} from "../ui/page.js";
import { state, stepUpOpen } from "../ui/state.js";
import { currentLanguage, plural, t } from "../ui/strings.js";
import { orgCall } from "./organization-calls.js";
import {
  clearSecret,
  DELIVERY_PAGE,
  deliveryHeader,
  deliveryRow,
  drawEventChoices,
  endpointItem,
  hookCall,
  markEvents,
  pickedEvents,
  showSecret,
  syncEventChoices,
} from "./webhook-parts.js";
// The organization page's cards of the active organization come first (their markup replaces #org-active).
import "./organization-admin.js";
import { addActiveCard } from "./organizations.js";
import { renderStepUp } from "./security.js";

const PATH = "/organizations/webhooks";
const SECRET_BOX = "org-webhooks-secret";
addSignedInPath(PATH);

document.querySelector("main footer").before(
  viewSection(
    "org-webhooks",
    PATH,
    `<div class="card">
      <h1 id="org-webhooks-title">Webhooks</h1>
      <p class="muted" data-i18n="webhooks.lead"></p>
      <p><a href="/organizations" data-link data-i18n="webhooks.back">Back</a></p>
      <p id="org-webhooks-notice" hidden></p>
    </div>
    <div id="org-webhooks-tools" hidden>
      <div id="${SECRET_BOX}" class="card key-new" hidden></div>
      <div class="card">
        <h2 data-i18n="webhooks.endpoints">Endpoints</h2>
        <p id="org-webhooks-loading" class="muted" data-i18n="webhooks.loading" hidden></p>
        <ul id="org-webhooks-list" class="list webhook-list"></ul>
        <p id="org-webhooks-none" class="muted" data-i18n="webhooks.none" hidden></p>
      </div>
      <div id="org-webhooks-deliveries" class="card" hidden>
        <h2 id="org-webhooks-deliveries-title" class="webhook-url-title" tabindex="-1"></h2>
        <p class="muted" data-i18n="webhooks.deliveriesLead"></p>
        <table id="org-webhooks-table" class="audit-table webhook-deliveries" role="table" hidden>
          <caption data-i18n="webhooks.deliveriesCaption">Deliveries, newest first</caption>
          <thead id="org-webhooks-head" role="rowgroup"></thead>
          <tbody id="org-webhooks-rows" role="rowgroup"></tbody>
        </table>
        <p id="org-webhooks-no-deliveries" class="muted" data-i18n="webhooks.noDeliveries" hidden></p>
        <div class="row">
          <button id="org-webhooks-refresh" type="button" class="secondary" data-i18n="webhooks.refresh">Refresh</button>
          <button id="org-webhooks-more" type="button" class="secondary" data-i18n="webhooks.more" hidden>Load older</button>
          <button id="org-webhooks-close" type="button" class="secondary" data-i18n="webhooks.close">Close</button>
        </div>
      </div>
      <div class="card">
        <h2 data-i18n="webhooks.createTitle">Add an endpoint</h2>
        <div id="org-webhooks-step-up"><p class="muted" data-i18n="webhooks.confirmFirst"></p></div>
        <form id="org-webhooks-create" novalidate hidden>
          <label><span data-i18n="webhooks.url">URL</span> <input name="url" type="url" inputmode="url" maxlength="2000" autocomplete="off" autocapitalize="none" spellcheck="false" placeholder="https://example.com/hooks/portcullis" required></label>
          <fieldset id="org-webhooks-events" class="choices webhook-events"></fieldset>
          <button type="submit" data-i18n="webhooks.create">Add the endpoint</button>
        </form>
      </div>
    </div>`,
    "view webhooks-view",
  ),
);

/**
 * What the page knows of the active organization's webhooks: its id and name, the endpoints (null
 * until loaded), a notice instead of the tools (webhooks off, a role without the permission), for
 * which visit they were loaded (`loadedFor`), and the open endpoint's deliveries.
 */
const hooks = {
  orgId: null,
  name: null,
  items: null,
  notice: "",
  loadedFor: null,
  open: null,
  deliveries: null,
  more: false,
};
const openEndpoint = () => hooks.items?.find((endpoint) => endpoint.id === hooks.open) ?? null;

/** The open endpoint's deliveries: the newest page, or the next older one (`more`). */
async function loadDeliveries(more = false) {
  const endpointId = hooks.open;
  if (!endpointId) return;
  const before = more ? hooks.deliveries?.at(-1)?.id : undefined;
  const page = await hookCall("GET", "/:endpointId/deliveries", hooks.orgId, {
    params: { endpointId },
    query: { limit: DELIVERY_PAGE, ...(before ? { before } : {}) },
  });
  if (hooks.open !== endpointId) return;
  hooks.deliveries = more ? [...(hooks.deliveries ?? []), ...page.items] : page.items;
  hooks.more = page.items.length === DELIVERY_PAGE;
}

/** The endpoints again (and the open one's deliveries): after a change, and with Refresh. */
async function refresh() {
  const { items } = await hookCall("GET", "", hooks.orgId);
  hooks.items = items;
  if (!openEndpoint()) Object.assign(hooks, { open: null, deliveries: null, more: false });
  await loadDeliveries();
}

/** Why the list could not be loaded, as the page's notice (null: an error to show as it is). */
const NOTICES = { NOT_FOUND: "webhooks.off", PERMISSION_DENIED: "webhooks.denied" };

/** The organization's name and its endpoints (and the open one's deliveries), for the visit `key`. */
async function load(id, key) {
  try {
    const [detail, list] = await Promise.all([
      orgCall("GET /organizations/:id", { params: { id } }).catch(() => null),
      hookCall("GET", "", id),
    ]);
    if (hooks.loadedFor !== key) return;
    Object.assign(hooks, { name: detail?.organization.name ?? null, items: list.items });
    if (!openEndpoint()) Object.assign(hooks, { open: null, deliveries: null, more: false });
    await loadDeliveries().catch(() => {});
  } catch (error) {
    if (hooks.loadedFor !== key) return;
    const notice = isApiError(error) ? NOTICES[error.code] : undefined;
    if (notice) hooks.notice = notice;
    else if (error?.status !== 401) showError(error);
  }
  render();
}

// ---- Actions ----------------------------------------------------------------------------------
const confirm = cardConfirm("webhooks", "webhooks.yes");

/** An endpoint call, then the lists again (a failure there leaves them as they were); `done` its words. */
const change = (call, done, options = {}) =>
  run(
    async () => {
      const result = await call();
      await refresh().catch(() => {});
      return result;
    },
    done,
    { refresh: false, ...options },
  );

const one = (endpoint) => ({ params: { endpointId: endpoint.id } });

const actions = {
  /** Shows the endpoint's deliveries (or hides them, when they are shown). */
  deliveries(endpoint) {
    if (hooks.open === endpoint.id) return closeDeliveries();
    Object.assign(hooks, { open: endpoint.id, deliveries: null, more: false });
    render();
    return run(() => loadDeliveries(), "", { refresh: false }).then(() =>
      $("org-webhooks-deliveries-title").focus(),
    );
  },
  toggle(endpoint) {
    const enabled = !endpoint.enabled;
    return change(
      () => hookCall("PATCH", "/:endpointId", hooks.orgId, { ...one(endpoint), body: { enabled } }),
      t(enabled ? "done.webhookEnabled" : "done.webhookDisabled", { url: endpoint.url }),
    );
  },
  /** A new secret, shown once; it needs the step-up, asked for below first. */
  rotate(endpoint, origin) {
    if (!stepUpOpen()) {
      say(t("webhooks.stepUpFirst"), "error");
      const password = $("step-up").querySelector("[name=password]");
      (password.offsetParent ? password : origin).focus();
      return undefined;
    }
    return change(
      () => hookCall("POST", "/:endpointId/rotate-secret", hooks.orgId, one(endpoint)),
      t("done.webhookRotated", { url: endpoint.url }),
      { button: origin },
    ).then((result) => {
      if (!result) return;
      showSecret(SECRET_BOX, {
        title: t("webhooks.secretTitle", { url: endpoint.url }),
        warning: t("webhooks.rotatedWarning"),
        secret: result.secret,
      });
    });
  },
  remove(endpoint, origin) {
    confirm.ask(origin, t("webhooks.confirmDelete", { url: endpoint.url }), () =>
      change(
        () => hookCall("DELETE", "/:endpointId", hooks.orgId, one(endpoint)),
        t("done.webhookDeleted", { url: endpoint.url }),
      ),
    );
  },
};

function closeDeliveries() {
  const id = hooks.open;
  Object.assign(hooks, { open: null, deliveries: null, more: false });
  render();
  $("org-webhooks-list")
    .querySelector(`[data-endpoint="${CSS.escape(id ?? "")}"] button`)
    ?.focus();
}

const redeliver = (delivery, origin) =>
  run(
    async () => {
      const result = await hookCall("POST", "/:endpointId/deliveries/:deliveryId/redeliver", hooks.orgId, {
        params: { endpointId: hooks.open, deliveryId: delivery.id },
      });
      await loadDeliveries();
      return result;
    },
    t("done.webhookRedelivered"),
    { refresh: false, button: origin },
  );

$("org-webhooks-refresh").addEventListener("click", (event) =>
  run(refresh, "", { refresh: false, button: event.currentTarget }),
);
$("org-webhooks-more").addEventListener("click", (event) =>
  run(() => loadDeliveries(true), "", { refresh: false, button: event.currentTarget }),
);
$("org-webhooks-close").addEventListener("click", closeDeliveries);
$("org-webhooks-events").addEventListener("change", (event) => {
  if (event.target.value === "*") syncEventChoices($("org-webhooks-events"));
});

/** An http(s) URL as the server takes one (whether its address may be used is the server's to say). */
const isHttpUrl = (text) => URL.canParse(text) && ["https:", "http:"].includes(new URL(text).protocol);

onSubmit("org-webhooks-create", (form, values, submitter) => {
  let valid = validate(form);
  const input = form.querySelector("[name=url]");
  if (valid && !isHttpUrl(values.url.trim())) {
    markField(input, t("webhooks.invalidUrl"));
    say(t("webhooks.invalidUrl"), "error");
    input.focus();
    valid = false;
  }
  const fieldset = $("org-webhooks-events");
  const events = pickedEvents(fieldset);
  if (events.length === 0) {
    markEvents(fieldset, t("webhooks.pickEvent"));
    if (valid) {
      say(t("webhooks.pickEvent"), "error");
      fieldset.querySelector("input").focus();
    }
  }
  if (!valid || events.length === 0) return;
  const url = values.url.trim();
  return change(
    () => hookCall("POST", "", hooks.orgId, { body: { url, events } }),
    t("done.webhookCreated", { url }),
    {
      form,
      button: submitter,
    },
  ).then((result) => {
    if (!result) return;
    form.reset();
    syncEventChoices(fieldset);
    showSecret(SECRET_BOX, {
      title: t("webhooks.secretTitle", { url: result.endpoint.url }),
      warning: t("webhooks.secretWarning"),
      secret: result.secret,
    });
  });
});

// ---- Drawing ----------------------------------------------------------------------------------
/**
 * The endpoints and the deliveries are drawn again only when what they show changed (or the
 * language did), so a focused button survives the renders of other actions; a button that was
 * replaced hands its focus to the same button of the new list.
 */
let drawn = "";
function draw() {
  const key = JSON.stringify([currentLanguage(), hooks.items, hooks.open, hooks.deliveries, hooks.more]);
  if (key === drawn) return;
  drawn = key;
  const focused = document.activeElement?.dataset?.focus;
  const items = hooks.items ?? [];
  $("org-webhooks-list").replaceChildren(
    ...items.map((endpoint) => endpointItem(endpoint, actions, endpoint.id === hooks.open)),
  );
  show("org-webhooks-loading", hooks.items === null);
  show("org-webhooks-none", hooks.items !== null && items.length === 0);
  const open = openEndpoint();
  show("org-webhooks-deliveries", Boolean(open));
  if (open) {
    const deliveries = hooks.deliveries ?? [];
    $("org-webhooks-deliveries-title").textContent = t("webhooks.deliveriesTitle", { url: open.url });
    $("org-webhooks-head").replaceChildren(deliveryHeader());
    $("org-webhooks-rows").replaceChildren(...deliveries.map((delivery) => deliveryRow(delivery, redeliver)));
    show("org-webhooks-table", deliveries.length > 0);
    show("org-webhooks-no-deliveries", hooks.deliveries !== null && deliveries.length === 0);
    show("org-webhooks-more", hooks.more);
  }
  if (focused && !document.activeElement?.isConnected)
    document.querySelector(`[data-focus="${CSS.escape(focused)}"]`)?.focus();
}

let visit = 0;
let onPage = false;
/** The language the events' choices were drawn in. */
let drawnLanguage = "";
/** The page /organizations/webhooks: loaded once per visit, user and active organization. */
export function renderWebhooks(view) {
  const arrived = view === PATH && !onPage;
  onPage = view === PATH && Boolean(state.me);
  if (!onPage) {
    // The secret is shown once: leaving the page forgets it.
    clearSecret(SECRET_BOX);
    confirm.close();
    return;
  }
  if (arrived) visit += 1;
  const active = state.me.activeOrganization;
  const allowed = Boolean(active?.permissions.includes("webhook:manage"));
  const key = `${state.me.id}|${active?.id ?? ""}|${visit}`;
  if (allowed && hooks.loadedFor !== key) {
    if (hooks.orgId !== active.id) Object.assign(hooks, { open: null, deliveries: null, more: false });
    Object.assign(hooks, { orgId: active.id, name: null, items: null, notice: "", loadedFor: key });
    load(active.id, key);
  }
  const notice = !active ? "webhooks.noActive" : !allowed ? "webhooks.denied" : hooks.notice;
  $("org-webhooks-notice").textContent = notice ? t(notice) : "";
  show("org-webhooks-notice", Boolean(notice));
  show("org-webhooks-tools", !notice);
  $("org-webhooks-title").textContent =
    allowed && hooks.name ? t("webhooks.orgTitle", { name: hooks.name }) : t("webhooks.title");
  if (notice) return;
  const confirmed = renderStepUp("org-webhooks-step-up");
  show("org-webhooks-step-up", !confirmed);
  show("org-webhooks-create", confirmed);
  if ($("org-webhooks-events").childElementCount === 0 || drawnLanguage !== currentLanguage()) {
    drawnLanguage = currentLanguage();
    drawEventChoices($("org-webhooks-events"));
  }
  draw();
}

// ---- The organization page's card ------------------------------------------------------------
const card = element("div", { id: "org-webhooks-card", className: "card", hidden: true });
card.innerHTML = `
  <h2 data-i18n="webhooks.title">Webhooks</h2>
  <p class="muted" data-i18n="webhooks.cardLead"></p>
  <p id="org-webhooks-card-count" class="muted"></p>
  <a id="org-webhooks-link" href="${PATH}" class="button secondary" data-link data-i18n="webhooks.link">Open</a>`;
$("org-active").append(card);
addActiveCard(
  async (active) => {
    // Only for a role that may manage them; a failure (webhooks off: 404) hides the card.
    const list = active.detail.permissions.includes("webhook:manage")
      ? await hookCall("GET", "", active.id).catch(() => null)
      : null;
    active.webhooks = list ? list.items.length : null;
  },
  (active) => {
    card.hidden = active.webhooks === null || active.webhooks === undefined;
    if (!card.hidden) $("org-webhooks-card-count").textContent = plural("webhooks.count", active.webhooks);
  },
);
