// What the webhooks page (views/webhooks.js) draws: the events an organization's endpoint can pick,
// an endpoint's line with its buttons, a delivery's row (the event, how it went, the receiver's last
// answer, a button that sends it again), and the box that shows a signing secret once with its copy
// button. The calls are the client's organization routes (`orgCall`).
import { button, element, named } from "../ui/page.js";
import { dateTime, t } from "../ui/strings.js";
import "../ui/strings-webhooks.js";
import { showOnce } from "../ui/shown-once.js";
import { eventLabel, headerRow, tableCell, timeOf } from "./audit-log-parts.js";
import { orgCall } from "./organization-calls.js";

/** Deliveries per page ("load older" asks for the next one). */
export const DELIVERY_PAGE = 20;

/**
 * The events an organization's endpoint can receive (those that name the organization), in the
 * order the form lists them; "*" (every event, also those added later) is offered above them.
 */
export const ORGANIZATION_EVENTS = [
  "member.invited",
  "member.joined",
  "member.role_changed",
  "member.removed",
  "invitation.revoked",
  "invitation.declined",
  "role.created",
  "role.updated",
  "role.deleted",
  "organization.updated",
  "organization.deleted",
  "api_key.created",
  "api_key.deleted",
  "webhook.created",
  "webhook.updated",
  "webhook.secret_rotated",
  "webhook.deleted",
  "webhook.disabled",
];

// ---- Calls ------------------------------------------------------------------------------------
/** `METHOD /organizations/:id/webhooks<suffix>` of the organization `id`, `init.params` besides `id`. */
export const hookCall = (method, suffix, id, { params = {}, ...init } = {}) =>
  orgCall(`${method} /organizations/:id/webhooks${suffix}`, { ...init, params: { id, ...params } });

// ---- The events form --------------------------------------------------------------------------
/** The events fieldset's content: its legend, "all events", then one checkbox per event; those picked kept. */
export function drawEventChoices(fieldset) {
  const picked = new Set([...fieldset.querySelectorAll("input:checked")].map((input) => input.value));
  const choice = (value, text, code) => {
    const input = element("input", { type: "checkbox", name: "event", value, checked: picked.has(value) });
    const words = element("span", { textContent: text });
    if (code) words.append(" ", element("code", { className: "webhook-code", textContent: code }));
    return element("label", { className: "choice webhook-choice" }, input, words);
  };
  const all = choice("*", t("webhooks.allEvents"));
  all.classList.add("webhook-all");
  fieldset.replaceChildren(
    element("legend", { textContent: t("webhooks.events") }),
    all,
    ...ORGANIZATION_EVENTS.map((type) => choice(type, eventLabel(type), type)),
  );
  syncEventChoices(fieldset);
}

/** "All events" checked: the single events are off and cannot be picked beside it. */
export function syncEventChoices(fieldset) {
  const all = fieldset.querySelector("input[value='*']").checked;
  for (const input of fieldset.querySelectorAll("input[name=event]:not([value='*'])")) {
    input.disabled = all;
    if (all) input.checked = false;
  }
}

/** The events picked in `fieldset`: `["*"]`, the single ones, or none. */
export const pickedEvents = (fieldset) =>
  [...fieldset.querySelectorAll("input[name=event]:checked")].map((input) => input.value);

// ---- An endpoint in the list ------------------------------------------------------------------
/** The endpoint's state in words: on, or why it is off. */
export const stateOf = (endpoint) =>
  endpoint.enabled ? t("webhooks.on") : t(`webhooks.offReason.${endpoint.disabledReason ?? "manual"}`);

/**
 * An endpoint's line: its URL, when it was added, on or off (and why), its events, and the buttons
 * `actions.deliveries`, `actions.toggle`, `actions.rotate` and `actions.remove`, each named for the
 * URL. `open` marks the endpoint whose deliveries are shown.
 */
export function endpointItem(endpoint, actions, open) {
  const url = endpoint.url;
  const events = endpoint.events.includes("*")
    ? [element("span", { className: "tag", textContent: t("webhooks.everything") })]
    : endpoint.events.map((type) =>
        element("span", { className: "tag", textContent: eventLabel(type), title: type }),
      );
  const text = element(
    "div",
    { className: "webhook-text" },
    element("strong", { className: "webhook-url", textContent: url }),
    element("span", {
      className: "muted",
      textContent: t("webhooks.added", { time: dateTime(endpoint.createdAt) }),
    }),
    element("span", {
      className: `webhook-state ${endpoint.enabled ? "on" : "off"}`,
      textContent: stateOf(endpoint),
    }),
    element("span", { className: "org-tags" }, ...events),
  );
  const deliveries = named(
    button(t("webhooks.showDeliveries"), () => actions.deliveries(endpoint), "secondary small"),
    t("webhooks.showDeliveriesFor", { url }),
    `${endpoint.id}:deliveries`,
  );
  deliveries.setAttribute("aria-expanded", String(open));
  const toggle = endpoint.enabled
    ? named(
        button(t("webhooks.disable"), () => actions.toggle(endpoint), "secondary small"),
        t("webhooks.disableFor", { url }),
        `${endpoint.id}:toggle`,
      )
    : named(
        button(t("webhooks.enable"), () => actions.toggle(endpoint), "small"),
        t("webhooks.enableFor", { url }),
        `${endpoint.id}:toggle`,
      );
  const rotate = named(
    button(t("webhooks.rotate"), (event) => actions.rotate(endpoint, event.currentTarget), "secondary small"),
    t("webhooks.rotateFor", { url }),
    `${endpoint.id}:rotate`,
  );
  const remove = named(
    button(t("webhooks.delete"), (event) => actions.remove(endpoint, event.currentTarget), "danger small"),
    t("webhooks.deleteFor", { url }),
    `${endpoint.id}:delete`,
  );
  const item = element(
    "li",
    { className: "webhook-item" },
    text,
    element("div", { className: "row webhook-actions" }, deliveries, toggle, rotate, remove),
  );
  item.dataset.endpoint = endpoint.id;
  if (open) item.setAttribute("aria-current", "true");
  return item;
}

// ---- A delivery's row -------------------------------------------------------------------------
/** The columns of the deliveries table. */
export const DELIVERY_COLUMNS = ["event", "status", "attempts", "last", "answer", "action"];

/** A delivery's status in words: waiting, failed and retried soon, delivered or failed. */
export const statusOf = (delivery) =>
  t(
    delivery.status === "pending" && delivery.attempts > 0
      ? "webhooks.status.retrying"
      : `webhooks.status.${delivery.status}`,
  );

/** The header row of the deliveries table (a table made like the audit log's). */
export const deliveryHeader = () => headerRow(DELIVERY_COLUMNS, "webhooks.col");

/** A cell of the column `name`. */
const cell = (name, ...children) => tableCell(t(`webhooks.col.${name}`), ...children);
const small = (text, className = "") => element("small", { className, textContent: text });

/** One delivery as a row: `redeliver(delivery, button)` is its button's action. */
export function deliveryRow(delivery, redeliver) {
  const event = [
    element("span", { textContent: eventLabel(delivery.event) }),
    small(delivery.event, "webhook-code"),
  ];
  if (delivery.redelivery) event.push(small(t("webhooks.redelivery")));
  const last = [
    delivery.lastAttemptAt
      ? element("time", { dateTime: delivery.lastAttemptAt, textContent: timeOf(delivery.lastAttemptAt) })
      : element("span", { textContent: t("webhooks.never") }),
  ];
  if (delivery.status === "pending" && delivery.nextAttemptAt)
    last.push(small(t("webhooks.nextAttempt", { time: timeOf(delivery.nextAttemptAt) })));
  const answer = [
    element("span", {
      textContent:
        delivery.lastStatusCode === null
          ? t("webhooks.blank")
          : t("webhooks.httpStatus", { status: delivery.lastStatusCode }),
    }),
  ];
  // The error's words, unless they only repeat the status ("status 500").
  if (delivery.lastError && delivery.lastError !== `status ${delivery.lastStatusCode}`)
    answer.push(small(delivery.lastError, "webhook-error"));
  const again = named(
    button(t("webhooks.redeliver"), (click) => redeliver(delivery, click.currentTarget), "secondary small"),
    t("webhooks.redeliverFor", { event: eventLabel(delivery.event) }),
    `${delivery.id}:redeliver`,
  );
  const status = element("span", {
    className: `webhook-status ${delivery.status}`,
    textContent: statusOf(delivery),
  });
  const row = element(
    "tr",
    {},
    cell("event", ...event),
    cell("status", status),
    cell("attempts", String(delivery.attempts)),
    cell("last", ...last),
    cell("answer", ...answer),
    cell("action", again),
  );
  row.setAttribute("role", "row");
  row.dataset.delivery = delivery.id;
  row.dataset.status = delivery.status;
  return row;
}

// ---- A secret, shown once ---------------------------------------------------------------------
/** Shows a signing secret once in the box `boxId` (`showOnce`), under `title` and `warning`. */
export function showSecret(boxId, { title, warning, secret }) {
  showOnce(boxId, {
    title,
    warning,
    label: t("webhooks.secretLabel"),
    value: secret,
    strings: "webhooks",
  });
}
