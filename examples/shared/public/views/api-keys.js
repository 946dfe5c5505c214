// The page /api-keys (docs/api-keys.md): the signed-in user's own API keys, listed with their
// start, dates and a delete button (asked in the page first), and after a step-up (the security
// page's box, shown here while this page is) a form that creates one. The new key is shown once,
// with a copy button; the server keeps only its hash. The page's markup and nav link are made here.
import { auth } from "../ui/client.js";
import {
  $,
  addSignedInPath,
  element,
  onSubmit,
  render,
  run,
  show,
  showError,
  validate,
  viewSection,
} from "../ui/page.js";
import { state } from "../ui/state.js";
import { currentLanguage, t } from "../ui/strings.js";
import {
  clearNewKey,
  closeKeyConfirm,
  createKeyFromForm,
  EXPIRY_DAYS,
  expiryOptions,
  keyItem,
} from "./api-key-parts.js";
import { renderStepUp } from "./security.js";

const VIEW = "/api-keys";
addSignedInPath(VIEW);

const navLink = element("a", { href: VIEW, hidden: true });
Object.assign(navLink.dataset, { link: "", when: "in", i18n: "nav.apiKeys" });
($("nav-admin") ?? $("logout")).before(navLink);

const section = viewSection(
  "api-keys",
  VIEW,
  `
  <div class="card">
    <h1 data-i18n="keys.title">API keys</h1>
    <p class="muted" data-i18n="keys.lead"></p>
    <h2 data-i18n="keys.mine">Your keys</h2>
    <p id="keys-loading" class="muted" data-i18n="keys.loading" hidden></p>
    <ul id="keys-list" class="list keys-list"></ul>
    <p id="keys-none" class="muted" data-i18n="keys.none" hidden></p>
  </div>
  <div id="keys-new" class="card key-new" hidden></div>
  <div id="keys-step-up"><p class="muted keys-confirm-first" data-i18n="keys.confirmFirst"></p></div>
  <form id="keys-create" class="card" novalidate hidden>
    <h2 data-i18n="keys.createTitle">Create a key</h2>
    <label><span data-i18n="keys.name">Name</span> <input name="name" maxlength="100" autocomplete="off" required></label>
    <label><span data-i18n="keys.expires">Expires</span> <select name="expiresInDays"></select></label>
    <button type="submit" data-i18n="keys.create">Create the key</button>
  </form>`,
);
document.querySelector("main footer").before(section);

/** The user's keys as last loaded (null until then), for which user and change (`loadedFor`). */
const keys = { list: null, loadedFor: null, generation: 0, off: false };

async function load(key) {
  show("keys-loading", keys.list === null);
  try {
    const { items } = await auth.apiKeys.list();
    if (keys.loadedFor !== key) return;
    keys.list = items;
  } catch (error) {
    if (keys.loadedFor === key) keys.loadedFor = null;
    // The app runs without API keys (API_KEYS=false): the routes are not there.
    if (error?.status === 404) keys.off = true;
    else if (error?.status !== 401) showError(error);
    else return;
  }
  show("keys-loading", false);
  render();
}

const remove = (key) =>
  run(
    async () => {
      const result = await auth.apiKeys.delete(key.id);
      keys.generation += 1;
      return result;
    },
    t("done.keyDeleted", { name: key.name }),
  );

/** The list is drawn again only when it (or the language) changed: a focused button survives other renders. */
let drawn = "";
function drawList() {
  const shown = JSON.stringify([currentLanguage(), keys.list, keys.off]);
  if (shown === drawn) return;
  drawn = shown;
  closeKeyConfirm();
  $("keys-list").replaceChildren(...(keys.list ?? []).map((key) => keyItem(key, remove)));
  show("keys-none", keys.list !== null && keys.list.length === 0 && !keys.off);
  const select = $("keys-create").querySelector("[name=expiresInDays]");
  select.replaceChildren(...expiryOptions(select.value || EXPIRY_DAYS[0]));
}

let onPage = false;
export function renderApiKeys(view) {
  const arrived = view === VIEW && !onPage;
  onPage = view === VIEW;
  if (!onPage || !state.me) {
    // Leaving the page forgets a new key still shown: it is never shown again.
    if (!onPage) clearNewKey("keys-new");
    if (!state.me) Object.assign(keys, { list: null, loadedFor: null, off: false });
    return;
  }
  if (arrived) keys.generation += 1;
  const loadKey = `${state.me.id}|${keys.generation}`;
  if (keys.loadedFor !== loadKey) {
    keys.loadedFor = loadKey;
    load(loadKey);
  }
  drawList();
  if (keys.off) {
    $("keys-none").textContent = t("keys.off");
    show("keys-none", true);
  }
  const confirmed = !keys.off && renderStepUp("keys-step-up");
  show("keys-step-up", !keys.off && !confirmed);
  show("keys-create", !keys.off && confirmed);
}

onSubmit("keys-create", (form, values, submitter) => {
  if (!validate(form)) return;
  return createKeyFromForm({ form, values, submitter }, {}, "keys-new", () => {
    keys.generation += 1;
  });
});
