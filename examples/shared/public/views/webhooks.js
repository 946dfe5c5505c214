// Webhooks (docs/webhooks.md) of the active organization, on the page /organizations/webhooks
// (linked from the organization page's card) for a member whose role has webhook:manage: the
// endpoints with their events and state (turn off and on, a new secret, delete after a question),
// a form that adds one after the step-up (the security page's box, shown in this page), the secret
// shown once with a copy button, and an endpoint's deliveries with a button that sends one again.
import {
  addOrgToolSection,
  changeAndReload,
  orgToolCard,
  orgToolPage,
  redrawOnChange,
  steppedUp,
} from "../ui/list-page.js";
import {
  $,
  cardConfirm,
  markField,
  markFieldset,
  onSubmit,
  render,
  run,
  say,
  show,
  validate,
} from "../ui/page.js";
import { forgetShown } from "../ui/shown-once.js";
import { currentLanguage, t } from "../ui/strings.js";
import { orgCall } from "./organization-calls.js";
import {
  DELIVERY_PAGE,
  deliveryHeader,
  deliveryRow,
  drawEventChoices,
  endpointItem,
  hookCall,
  pickedEvents,
  showSecret,
  syncEventChoices,
} from "./webhook-parts.js";
// The organization page's cards of the active organization come first (their markup replaces #org-active).
import "./organization-admin.js";
import { addActiveCard } from "./organizations.js";
import { renderStepUp } from "./security.js";

/** The page, as ui/list-page.js takes it. */
const TOOL = {
  path: "/organizations/webhooks",
  prefix: "org-webhooks",
  words: "webhooks",
  permission: "webhook:manage",
  heading: "Webhooks",
};
const SECRET_BOX = "org-webhooks-secret";

addOrgToolSection(
  TOOL,
  `
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
    `,
  "webhooks-view",
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

/** The organization's name and its endpoints. */
async function fetchTools(id) {
  const [detail, list] = await Promise.all([
    orgCall("GET /organizations/:id", { params: { id } }).catch(() => null),
    hookCall("GET", "", id),
  ]);
  return { name: detail?.organization.name ?? null, items: list.items };
}

/** Once the endpoints are loaded: the open one's deliveries, if it is still there. */
async function loaded() {
  if (!openEndpoint()) Object.assign(hooks, { open: null, deliveries: null, more: false });
  await loadDeliveries().catch(() => {});
}

// ---- Actions ----------------------------------------------------------------------------------
const confirm = cardConfirm("webhooks", "webhooks.yes");

/** An endpoint call, then the lists again (a failure there leaves them as they were); `done` its words. */
const change = changeAndReload(refresh);

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
    if (!steppedUp(origin, t("webhooks.stepUpFirst"))) return undefined;
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
    markFieldset(fieldset, t("webhooks.pickEvent"));
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
/** The endpoints and the deliveries, drawn again only when what they show changed (ui/list-page.js). */
const drawLists = redrawOnChange(
  () => [hooks.items, hooks.open, hooks.deliveries, hooks.more],
  () => {
    const items = hooks.items ?? [];
    $("org-webhooks-list").replaceChildren(
      ...items.map((endpoint) => endpointItem(endpoint, actions, endpoint.id === hooks.open)),
    );
    show("org-webhooks-loading", hooks.items === null);
    show("org-webhooks-none", hooks.items !== null && items.length === 0);
    const open = openEndpoint();
    show("org-webhooks-deliveries", Boolean(open));
    if (!open) return;
    const deliveries = hooks.deliveries ?? [];
    $("org-webhooks-deliveries-title").textContent = t("webhooks.deliveriesTitle", { url: open.url });
    $("org-webhooks-head").replaceChildren(deliveryHeader());
    $("org-webhooks-rows").replaceChildren(...deliveries.map((delivery) => deliveryRow(delivery, redeliver)));
    show("org-webhooks-table", deliveries.length > 0);
    show("org-webhooks-no-deliveries", hooks.deliveries !== null && deliveries.length === 0);
    show("org-webhooks-more", hooks.more);
  },
);

/** The language the events' choices were drawn in. */
let drawnLanguage = "";
/** The page /organizations/webhooks: loaded once per visit, user and active organization. */
export const renderWebhooks = orgToolPage(TOOL, {
  page: hooks,
  renderStepUp,
  start(active) {
    if (hooks.orgId !== active.id) Object.assign(hooks, { open: null, deliveries: null, more: false });
    hooks.items = null;
  },
  fetch: fetchTools,
  loaded,
  draw() {
    if ($("org-webhooks-events").childElementCount === 0 || drawnLanguage !== currentLanguage()) {
      drawnLanguage = currentLanguage();
      drawEventChoices($("org-webhooks-events"));
    }
    drawLists();
  },
  leave() {
    // The secret is shown once: leaving the page forgets it.
    forgetShown(SECRET_BOX);
    confirm.close();
  },
});

// ---- The organization page's card ------------------------------------------------------------
addActiveCard(...orgToolCard(TOOL, (id) => hookCall("GET", "", id).then((list) => list.items.length)));
