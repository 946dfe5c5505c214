// The mechanics of the pages that manage a list of things (the SSO connections, the webhook
// endpoints, the OAuth clients): a change followed by the lists again, the step-up asked for
// first, a redraw that keeps the focus; and for the active organization's tool pages (SSO,
// webhooks) their heading, their loading once per visit, their notice instead of the tools, and
// their card on the organization page. What a page calls and draws comes in as options: ui/ does
// not import the views.
import { isApiError } from "./client.js";
import { $, addSignedInPath, element, render, run, say, show, showError, viewSection } from "./page.js";
import { state, stepUpOpen } from "./state.js";
import { currentLanguage, plural, t } from "./strings.js";

/**
 * A change on a page that lists things: `call`, then `reload()` its lists (a failure there leaves
 * them as they were), run without loading the user again; `done` its words, `options` run's.
 */
export const changeAndReload =
  (reload) =>
  (call, done, options = {}) =>
    run(
      async () => {
        const result = await call();
        await reload().catch(() => {});
        return result;
      },
      done,
      { refresh: false, ...options },
    );

/** False (saying `message`, the step-up's password field focused, else `origin`) while the step-up is not open. */
export function steppedUp(origin, message) {
  if (stepUpOpen()) return true;
  say(message, "error");
  const password = $("step-up").querySelector("[name=password]");
  (password.offsetParent ? password : origin).focus();
  return false;
}

/**
 * `draw` as a function that runs it only when `key()` (or the language) changed, so a focused
 * button survives the renders of other actions; a button that was replaced hands its focus to the
 * same button of the new list (its `data-focus`, see `named`).
 */
export function redrawOnChange(key, draw) {
  let drawn = "";
  return () => {
    const next = JSON.stringify([currentLanguage(), ...key()]);
    if (next === drawn) return;
    drawn = next;
    const focused = document.activeElement?.dataset?.focus;
    draw();
    if (focused && !document.activeElement?.isConnected)
      document.querySelector(`[data-focus="${CSS.escape(focused)}"]`)?.focus();
  };
}

// ---- The active organization's tool pages ------------------------------------------------------
// A tool page is described by `tool`: its signed-in `path`, the `prefix` of its ids, its `words`
// (the keys' prefix), the `permission` a role needs for it, and its `heading` (in English, until
// the page's words are applied).

/**
 * Places the tool page's section before the footer: a heading card (the heading, until the page
 * names the organization; the lead, the way back to the organization page, the notice), then the
 * `tools` markup, shown while there is no notice. `className` besides "view".
 */
export function addOrgToolSection({ path, prefix, words, heading }, tools, className) {
  addSignedInPath(path);
  document.querySelector("main footer").before(
    viewSection(
      prefix,
      path,
      `<div class="card">
      <h1 id="${prefix}-title">${heading}</h1>
      <p class="muted" data-i18n="${words}.lead"></p>
      <p><a href="/organizations" data-link data-i18n="${words}.back">Back</a></p>
      <p id="${prefix}-notice" hidden></p>
    </div>
    <div id="${prefix}-tools" hidden>${tools}</div>`,
      `view ${className}`,
    ),
  );
}

/**
 * The render function of the tool page: ids under its prefix (`-title`, `-notice`, `-tools`,
 * `-step-up`, `-create`), words under its words (`.title`, `.orgTitle`, `.noActive`, `.denied`,
 * `.off`). `page` is what the page knows: the organization's `orgId` and `name`, a `notice`
 * instead of the tools, the visit it was loaded for (`loadedFor`), and the page's own fields.
 *
 * Once per visit, user and organization: `start(active)` clears what the page's fields held,
 * `fetch(id, active)` gives the fields to keep (`name` among them; its failure a notice or an
 * error), then `loaded()` runs. With no notice, the step-up (`renderStepUp(hostId)`, the security
 * page's box) goes before the create form, and `draw()` draws the tools. Leaving the page runs
 * `leave()` (what is shown once is forgotten).
 */
export function orgToolPage({ path, prefix, words, permission }, { page, renderStepUp, ...hooks }) {
  /** Why the tools could not be loaded, as the page's notice (none: an error to show as it is). */
  const notices = { NOT_FOUND: `${words}.off`, PERMISSION_DENIED: `${words}.denied` };

  async function load(id, key, active) {
    try {
      const fields = await hooks.fetch(id, active);
      if (page.loadedFor !== key) return;
      Object.assign(page, fields);
      await hooks.loaded?.();
    } catch (error) {
      if (page.loadedFor !== key) return;
      const notice = isApiError(error) ? notices[error.code] : undefined;
      if (notice) page.notice = notice;
      else if (error?.status !== 401) showError(error);
    }
    render();
  }

  let visit = 0;
  let onPage = false;
  return (view) => {
    const arrived = view === path && !onPage;
    onPage = view === path && Boolean(state.me);
    if (!onPage) {
      hooks.leave();
      return;
    }
    if (arrived) visit += 1;
    const active = state.me.activeOrganization;
    const allowed = Boolean(active?.permissions.includes(permission));
    const key = `${state.me.id}|${active?.id ?? ""}|${visit}`;
    if (allowed && page.loadedFor !== key) {
      hooks.start(active);
      Object.assign(page, { orgId: active.id, name: null, notice: "", loadedFor: key });
      load(active.id, key, active);
    }
    const notice = !active ? `${words}.noActive` : !allowed ? `${words}.denied` : page.notice;
    $(`${prefix}-notice`).textContent = notice ? t(notice) : "";
    show(`${prefix}-notice`, Boolean(notice));
    show(`${prefix}-tools`, !notice);
    $(`${prefix}-title`).textContent =
      allowed && page.name ? t(`${words}.orgTitle`, { name: page.name }) : t(`${words}.title`);
    if (notice) return;
    const confirmed = renderStepUp(`${prefix}-step-up`);
    show(`${prefix}-step-up`, !confirmed);
    show(`${prefix}-create`, confirmed);
    hooks.draw();
  };
}

/**
 * The organization page's card that links to the tool page (ids under its prefix, words under its
 * words: `.title`, `.cardLead`, `.link`, `.count`), with how many things `count(id)` finds. Only a
 * role with the tool's permission sees it; a failure (the feature off: 404) hides it. The two
 * functions `addActiveCard` takes (views/organizations.js).
 */
export function orgToolCard({ path, prefix, words, permission, heading }, count) {
  const card = element("div", { id: `${prefix}-card`, className: "card", hidden: true });
  card.innerHTML = `
  <h2 data-i18n="${words}.title">${heading}</h2>
  <p class="muted" data-i18n="${words}.cardLead"></p>
  <p id="${prefix}-card-count" class="muted"></p>
  <a id="${prefix}-link" href="${path}" class="button secondary" data-link data-i18n="${words}.link">Open</a>`;
  $("org-active").append(card);
  /** The count of each active organization (null: the card is hidden). */
  const counts = new WeakMap();
  const load = async (active) => {
    const found = active.detail.permissions.includes(permission)
      ? await count(active.id).catch(() => null)
      : null;
    counts.set(active, found);
  };
  const draw = (active) => {
    const found = counts.get(active) ?? null;
    card.hidden = found === null;
    if (!card.hidden) $(`${prefix}-card-count`).textContent = plural(`${words}.count`, found);
  };
  return [load, draw];
}
