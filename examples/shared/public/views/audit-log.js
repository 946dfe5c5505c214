// The audit log (docs/audit-log.md) on two pages: /organizations/audit-log, the active
// organization's log for a member whose role has audit:read (linked from the organization page),
// and /admin/audit-log, the whole deployment's for an admin after the step-up (linked from the back
// office), with the chain's check. Both filter by event, actor and days, page by cursor ("load
// more") and offer the filtered entries as NDJSON and CSV downloads, which the server streams.
import { auth } from "../ui/client.js";
import {
  $,
  addSignedInPath,
  clearFieldErrors,
  element,
  lastErrorCode,
  markField,
  onSubmit,
  run,
  say,
  show,
  showError,
  viewSection,
} from "../ui/page.js";
import { state } from "../ui/state.js";
import { currentLanguage, plural, t } from "../ui/strings.js";
import {
  auditGet,
  auditUrl,
  columns,
  entryRow,
  eventLabel,
  filterQuery,
  headerRow,
  knownTypes,
  PAGE_SIZE,
} from "./audit-log-parts.js";
import { orgCall } from "./organization-calls.js";
// The organization page's cards of the active organization come first (their markup replaces #org-active).
import "./organization-admin.js";
import { addActiveCard } from "./organizations.js";
import { renderStepUp } from "./security.js";

const ORG_PATH = "/organizations/audit-log";
const ADMIN_PATH = "/admin/audit-log";
addSignedInPath(ORG_PATH);
addSignedInPath(ADMIN_PATH);

/** The filters, the entries and the export of one log; ids under `prefix`. */
const logMarkup = (prefix, { actorKey, admin }) => `
  <form id="${prefix}-filters" class="card audit-filters" novalidate>
    <h2 data-i18n="audit.filters">Filters</h2>
    <div class="audit-fields">
      <label><span data-i18n="audit.type">Event</span> <select name="type"></select></label>
      <label><span data-i18n="${actorKey}">Who acted</span> <input name="actor" maxlength="256" autocomplete="off" autocapitalize="none" spellcheck="false"></label>
      ${admin ? `<label><span data-i18n="audit.organization">Organization</span> <input name="organizationId" maxlength="256" autocomplete="off" autocapitalize="none" spellcheck="false"></label>` : ""}
      <label><span data-i18n="audit.from">From</span> <input name="from" type="date"></label>
      <label><span data-i18n="audit.to">Until</span> <input name="to" type="date"></label>
    </div>
    <div class="row">
      <button type="submit" data-i18n="audit.apply">Show</button>
      <button id="${prefix}-clear" type="button" class="secondary" data-i18n="audit.clear">Clear the filters</button>
    </div>
  </form>
  <div class="card">
    <p id="${prefix}-count" class="muted" tabindex="-1"></p>
    <table id="${prefix}-table" class="audit-table" role="table" hidden>
      <caption data-i18n="audit.caption">Entries, newest first</caption>
      <thead id="${prefix}-head" role="rowgroup"></thead>
      <tbody id="${prefix}-rows" role="rowgroup"></tbody>
    </table>
    <p id="${prefix}-empty" class="muted" data-i18n="audit.none" hidden></p>
    <button id="${prefix}-more" type="button" class="secondary" data-i18n="audit.more" hidden>Load more</button>
  </div>
  <div class="card">
    <h2 data-i18n="audit.export">Export</h2>
    <p class="muted" data-i18n="audit.exportLead"></p>
    <div class="row">
      <a id="${prefix}-ndjson" class="button secondary" download="audit-log.ndjson" data-i18n="audit.ndjson">NDJSON</a>
      <a id="${prefix}-csv" class="button secondary" download="audit-log.csv" data-i18n="audit.csv">CSV</a>
    </div>
  </div>`;

const place = (section) => document.querySelector("main footer").before(section);
place(
  viewSection(
    "org-audit",
    ORG_PATH,
    `<div class="card">
      <h1 id="org-audit-title">Audit log</h1>
      <p class="muted" data-i18n="audit.orgLead"></p>
      <p><a href="/organizations" data-link data-i18n="audit.back">Back</a></p>
      <p id="org-audit-notice" hidden></p>
    </div>
    <div id="org-audit-tools" hidden>${logMarkup("org-audit", { actorKey: "audit.actorOrg", admin: false })}</div>`,
    "view audit-view",
  ),
);
place(
  viewSection(
    "admin-audit",
    ADMIN_PATH,
    `<div class="card">
      <h1 data-i18n="audit.adminTitle">Audit log</h1>
      <p class="muted" data-i18n="audit.adminLead"></p>
      <p><a href="/admin" data-link data-i18n="audit.backOffice">Back</a></p>
      <p id="admin-audit-denied" data-i18n="admin.denied" hidden></p>
    </div>
    <div id="admin-audit-step-up" hidden></div>
    <div id="admin-audit-tools" hidden>${logMarkup("admin-audit", { actorKey: "audit.actor", admin: true })}
      <div class="card">
        <h2 data-i18n="audit.verify">Verify the chain</h2>
        <p class="muted" data-i18n="audit.verifyLead"></p>
        <button id="admin-audit-verify" type="button" data-i18n="audit.verify">Verify the chain</button>
        <p id="admin-audit-verify-result" class="audit-verify" hidden></p>
      </div>
    </div>`,
    "view audit-view",
  ),
);

/**
 * One log's page: `route()` its API path, `nameOf(id)` a user's words, `resolveActor(text)` the
 * actor filter's id (null: nobody has that address). Its entries and cursor, the filters applied
 * (`query`) and the visit they were loaded for (`loadedFor`).
 */
function createLog(prefix, options) {
  const log = { query: {}, items: null, nextCursor: null, loadedFor: null, seen: new Set(), generation: 0 };
  const form = $(`${prefix}-filters`);
  const names = columns(options.organization);

  /**
   * The first page of the filters applied, or the next one (`more`); `extra` goes to `run`. A
   * first page asked for meanwhile wins over this one's answer.
   */
  log.load = (more, extra = {}) => {
    const generation = more ? log.generation : ++log.generation;
    return run(
      () =>
        auditGet(options.route(), {
          ...log.query,
          limit: PAGE_SIZE,
          ...(more && log.nextCursor ? { cursor: log.nextCursor } : {}),
        }),
      (page) => {
        if (generation !== log.generation) return "";
        log.items = more ? [...(log.items ?? []), ...page.items] : page.items;
        log.nextCursor = page.nextCursor;
        for (const entry of page.items) log.seen.add(entry.type);
        return extra.announce ? plural("audit.count", log.items.length) : "";
      },
      { refresh: false, messages: { NOT_FOUND: "audit.off" }, ...extra },
    ).then((page) => {
      // A step-up that ran out: loaded again once it is confirmed.
      if (!page && lastErrorCode === "STEP_UP_REQUIRED") log.loadedFor = null;
      return page;
    });
  };

  let drawn = "";
  log.draw = () => {
    const key = JSON.stringify([currentLanguage(), log.query, log.items, log.nextCursor, options.names()]);
    if (key === drawn) return;
    drawn = key;
    const items = log.items ?? [];
    $(`${prefix}-head`).replaceChildren(headerRow(names, "audit.col"));
    $(`${prefix}-rows`).replaceChildren(...items.map((entry) => entryRow(entry, names, options.nameOf)));
    show(`${prefix}-table`, items.length > 0);
    show(`${prefix}-empty`, log.items !== null && items.length === 0);
    show(`${prefix}-more`, log.nextCursor !== null);
    $(`${prefix}-count`).textContent =
      log.items === null ? t("audit.loading") : plural("audit.count", items.length);
    const select = form.querySelector("[name=type]");
    const picked = select.value;
    select.replaceChildren(
      element("option", { value: "", textContent: t("audit.anyType") }),
      ...knownTypes([...log.seen]).map((type) =>
        element("option", { value: type, textContent: eventLabel(type), selected: type === picked }),
      ),
    );
    for (const format of ["ndjson", "csv"])
      $(`${prefix}-${format}`).href = auditUrl(options.route(), { ...log.query, format });
  };

  wire(prefix, log, options);
  return log;
}

/** The form's, the buttons' and the export links' handlers of the log `log` (ids under `prefix`). */
function wire(prefix, log, options) {
  const form = $(`${prefix}-filters`);
  onSubmit(`${prefix}-filters`, async (_form, values, submitter) => {
    clearFieldErrors();
    const refuse = (name, key) => {
      const input = form.querySelector(`[name=${name}]`);
      markField(input, t(key));
      say(t(key), "error");
      input.focus();
    };
    if (values.from && values.to && values.from > values.to) return refuse("to", "audit.fromAfterTo");
    let actorId;
    try {
      actorId = await options.resolveActor(values.actor.trim());
    } catch (error) {
      return showError(error, form);
    }
    if (actorId === null) return refuse("actor", "audit.noSuchActor");
    log.query = filterQuery({ ...values, actorId, organizationId: values.organizationId?.trim() });
    Object.assign(log, { items: null, nextCursor: null });
    return log.load(false, { form, button: submitter, announce: true });
  });
  $(`${prefix}-clear`).addEventListener("click", () => {
    form.reset();
    clearFieldErrors();
    Object.assign(log, { query: {}, items: null, nextCursor: null });
    return log.load(false, { announce: true });
  });
  $(`${prefix}-more`).addEventListener("click", async (event) => {
    await log.load(true, { button: event.currentTarget });
    // The last page: the button went away, the focus goes to the count above the entries.
    if (log.nextCursor === null) $(`${prefix}-count`).focus();
  });
  // A download with a fresh access token: the client refreshes first when it has lapsed or soon will.
  for (const format of ["ndjson", "csv"]) {
    const link = $(`${prefix}-${format}`);
    link.addEventListener("click", async (event) => {
      if (link.dataset.ready) {
        delete link.dataset.ready;
        return;
      }
      event.preventDefault();
      await auth.touch().catch(() => {});
      link.dataset.ready = "1";
      link.click();
    });
  }
}

// ---- The active organization's log -----------------------------------------------------------
/** The organization shown: its name and members (for the actors' and targets' addresses). */
const org = { id: null, name: null, members: [] };
const you = (email) => t("audit.you", { who: email });
const memberName = (id) => {
  const member = org.members.find((candidate) => candidate.userId === id);
  if (!member) return id;
  return id === state.me?.id ? you(member.email) : member.email;
};
const orgLog = createLog("org-audit", {
  organization: false,
  route: () => `/organizations/${encodeURIComponent(org.id ?? "")}/audit-log`,
  names: () => org.members.length,
  nameOf: memberName,
  // A member's address is the member's id; anything else is taken as an id (an API key's).
  resolveActor: async (text) => {
    if (!text.includes("@")) return text;
    const member = org.members.find((candidate) => candidate.email.toLowerCase() === text.toLowerCase());
    return member ? member.userId : null;
  },
});

/** The organization's name and members, then the first page of its log. */
async function openOrganization(id) {
  const [detail, members] = await Promise.all([
    orgCall("GET /organizations/:id", { params: { id } }).catch(() => null),
    orgCall("GET /organizations/:id/members", { params: { id }, query: { limit: 100 } }).catch(() => null),
  ]);
  if (org.id !== id) return;
  org.name = detail?.organization.name ?? null;
  org.members = members?.items ?? [];
  await orgLog.load(false);
}

let orgVisit = 0;
let onOrgPage = false;
function renderOrganizationLog(view) {
  const arrived = view === ORG_PATH && !onOrgPage;
  onOrgPage = view === ORG_PATH && Boolean(state.me);
  if (!onOrgPage) return;
  if (arrived) orgVisit += 1;
  const active = state.me.activeOrganization;
  const allowed = Boolean(active?.permissions.includes("audit:read"));
  const notice = !active ? "audit.noActive" : !allowed ? "audit.denied" : "";
  $("org-audit-notice").textContent = notice ? t(notice) : "";
  show("org-audit-notice", Boolean(notice));
  show("org-audit-tools", allowed);
  $("org-audit-title").textContent =
    active && org.id === active.id && org.name ? t("audit.orgTitle", { name: org.name }) : t("audit.title");
  if (!allowed) return;
  const key = `${state.me.id}|${active.id}|${orgVisit}`;
  if (orgLog.loadedFor !== key) {
    orgLog.loadedFor = key;
    Object.assign(org, { id: active.id, name: null, members: [] });
    Object.assign(orgLog, { items: null, nextCursor: null });
    openOrganization(active.id);
  }
  orgLog.draw();
}

// ---- The deployment's log (the back office) ----------------------------------------------------
/** Addresses of users the actor filter found (the back office knows no user by id without asking). */
const known = new Map();
const adminLog = createLog("admin-audit", {
  organization: true,
  route: () => "/admin/audit-log",
  names: () => known.size,
  nameOf: (id) => (id === state.me?.id ? you(state.me.email) : (known.get(id) ?? id)),
  // An address is looked up in the back office's search; anything else is taken as an id.
  resolveActor: async (text) => {
    if (!text.includes("@")) return text;
    const page = await auth.admin.listUsers({ query: text, limit: 10 });
    const user = page.items.find((candidate) => candidate.email.toLowerCase() === text.toLowerCase());
    if (user) known.set(user.id, user.email);
    return user ? user.id : null;
  },
});

/** The chain's last check: `{ ok, checked, broken? }`, or null. */
let verified = null;
const verifyWords = (result) =>
  result.ok
    ? plural("audit.verifyOk", result.checked)
    : `${t("audit.verifyBroken", {
        seq: result.broken.seq,
        id: result.broken.id,
        why: t(`audit.broken.${result.broken.reason}`),
      })} ${plural("audit.checkedUpTo", result.checked)}`;

$("admin-audit-verify").addEventListener("click", async (event) => {
  const organizationId = $("admin-audit-filters").querySelector("[name=organizationId]").value.trim();
  verified = null;
  const result = await run(
    () => auditGet("/admin/audit-log/verify", { organizationId }),
    (answer) => {
      verified = answer;
      return "";
    },
    { refresh: false, button: event.currentTarget, messages: { NOT_FOUND: "audit.off" } },
  );
  if (result) say(verifyWords(result), result.ok ? "ok" : "error");
});

let adminVisit = 0;
let onAdminPage = false;
function renderDeploymentLog(view) {
  const arrived = view === ADMIN_PATH && !onAdminPage;
  onAdminPage = view === ADMIN_PATH && Boolean(state.me);
  if (!onAdminPage) return;
  if (arrived) {
    adminVisit += 1;
    verified = null;
  }
  const me = state.me;
  const allowed = me.isAdmin === true && !me.impersonatedBy;
  show("admin-audit-denied", !allowed);
  const confirmed = allowed && renderStepUp("admin-audit-step-up");
  show("admin-audit-step-up", allowed && !confirmed);
  show("admin-audit-tools", confirmed);
  if (!confirmed) return;
  const key = `${me.id}|${adminVisit}`;
  if (adminLog.loadedFor !== key) {
    adminLog.loadedFor = key;
    Object.assign(adminLog, { items: null, nextCursor: null });
    adminLog.load(false);
  }
  adminLog.draw();
  const box = $("admin-audit-verify-result");
  box.hidden = !verified;
  if (!verified) return;
  box.textContent = verifyWords(verified);
  box.className = `audit-verify ${verified.ok ? "ok" : "broken"}`;
}

// ---- The links: the organization page's card, the back office's ------------------------------
const orgCard = element("div", { id: "org-audit-card", className: "card", hidden: true });
orgCard.innerHTML = `
  <h2 data-i18n="audit.title">Audit log</h2>
  <p class="muted" data-i18n="audit.orgCardLead"></p>
  <a id="org-audit-link" href="${ORG_PATH}" class="button secondary" data-link data-i18n="audit.orgLink">Open</a>`;
$("org-active").append(orgCard);
addActiveCard(
  async () => {},
  (active) => {
    orgCard.hidden = !active.detail.permissions.includes("audit:read");
  },
);

const adminCard = element("div", { id: "admin-audit-card", className: "card" });
adminCard.innerHTML = `
  <h2 data-i18n="audit.adminTitle">Audit log</h2>
  <p class="muted" data-i18n="audit.adminCardLead"></p>
  <a id="admin-audit-link" href="${ADMIN_PATH}" class="button secondary" data-link data-i18n="audit.adminLink">Open</a>`;
$("admin-tools").append(adminCard);

/** Both pages of the audit log (registered with `addView` by app.js). */
export function renderAuditLog(view) {
  renderOrganizationLog(view);
  renderDeploymentLog(view);
}
