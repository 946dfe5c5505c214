// The active organization's API keys on the page /organizations (views/organizations.js), for a
// member whose role has api-key:manage: the keys with their permissions (delete, asked first), and
// after a step-up (the security page's box, shown in this card) a form that creates one with
// permissions picked from the member's own. The new key is shown once, with a copy button.
import { auth } from "../ui/client.js";
import {
  $,
  addView,
  element,
  onSubmit,
  permissionChoices,
  render,
  run,
  say,
  show,
  validate,
} from "../ui/page.js";
import { t } from "../ui/strings.js";
import { clearNewKey, createKeyFromForm, EXPIRY_DAYS, expiryOptions, keyItem } from "./api-key-parts.js";
// After the active organization's own cards, whose markup replaces the contents of #org-active.
import "./organization-admin.js";
import { addActiveCard, organizations, reloadOrganizations } from "./organizations.js";
import { renderStepUp } from "./security.js";

const card = element("div", { id: "org-keys-card", className: "card", hidden: true });
card.innerHTML = `
  <h2 data-i18n="keys.orgTitle">API keys of the organization</h2>
  <p class="muted" data-i18n="keys.orgLead"></p>
  <ul id="org-keys-list" class="list keys-list"></ul>
  <p id="org-keys-none" class="muted" data-i18n="keys.orgNone" hidden></p>
  <div id="org-keys-new" class="key-new" hidden></div>
  <div id="org-keys-step-up"><p class="muted keys-confirm-first" data-i18n="keys.confirmFirst"></p></div>
  <form id="org-keys-create" novalidate hidden>
    <h3 data-i18n="keys.createTitle">Create a key</h3>
    <label><span data-i18n="keys.name">Name</span> <input name="name" maxlength="100" autocomplete="off" required></label>
    <label><span data-i18n="keys.expires">Expires</span> <select name="expiresInDays"></select></label>
    <fieldset id="org-keys-permissions" class="choices"></fieldset>
    <button type="submit" data-i18n="keys.create">Create the key</button>
  </form>`;
$("org-active").append(card);

const canManage = (active) => active.detail.permissions.includes("api-key:manage");

/** The organization's keys, when the user's role may manage them. */
async function loadKeys(active) {
  active.apiKeys = canManage(active)
    ? (await auth.apiKeys.list({ organizationId: active.id }).catch(() => ({ items: null }))).items
    : null;
}

const remove = (key) =>
  run(
    async () => {
      const result = await auth.apiKeys.delete(key.id);
      reloadOrganizations();
      return result;
    },
    t("done.keyDeleted", { name: key.name }),
  );

/** The user's own permissions as checkboxes (a key gets only what its creator holds), those picked kept. */
function drawPermissionChoices(active) {
  permissionChoices($("org-keys-permissions"), t("keys.orgPermissions"), active.detail.permissions);
}

/** The step-up box in this card until it is done, then the form (on every render of the page). */
function placeStepUp() {
  if (card.hidden) return;
  const confirmed = renderStepUp("org-keys-step-up");
  show("org-keys-step-up", !confirmed);
  show("org-keys-create", confirmed);
}

function drawKeys(active) {
  const shown = Boolean(active.apiKeys);
  card.hidden = !shown;
  if (!shown) {
    clearNewKey("org-keys-new");
    return;
  }
  $("org-keys-list").replaceChildren(...active.apiKeys.map((key) => keyItem(key, remove)));
  show("org-keys-none", active.apiKeys.length === 0);
  const select = $("org-keys-create").querySelector("[name=expiresInDays]");
  select.replaceChildren(...expiryOptions(select.value || EXPIRY_DAYS[0]));
  drawPermissionChoices(active);
  placeStepUp();
}
addActiveCard(loadKeys, drawKeys);

// The step-up follows renders the organization lists skip (they redraw only on a change).
addView((view) => {
  if (view === "/organizations") placeStepUp();
  else clearNewKey("org-keys-new");
});

onSubmit("org-keys-create", (form, values, submitter) => {
  if (!validate(form)) return;
  const permissions = [...form.querySelectorAll("[name=permission]:checked")].map((input) => input.value);
  if (permissions.length === 0) {
    say(t("keys.pickPermission"), "error");
    return;
  }
  const organizationId = organizations.active?.id;
  return createKeyFromForm(
    { form, values, submitter },
    { organizationId, permissions },
    "org-keys-new",
    reloadOrganizations,
  ).then((result) => {
    if (!result) return;
    for (const input of form.querySelectorAll("[name=permission]:checked")) input.checked = false;
    render();
  });
});
