// Organizations (docs/organizations.md), the page /organizations: the user's organizations with
// the active one marked and a switch (`POST /organizations/:id/activate`: the session's new access
// token names it), creating one, the invitations to the user's address, and a panel that calls the
// app's demo routes (`GET` and `POST /api/projects`, which need project:read and project:write in
// the active organization) to show how the answer follows the role. The active organization's
// members, invitations and roles are views/organization-admin.js's. The page's markup is made here
// (not in index.html), and so is its nav link.
import {
  $,
  addSignedInPath,
  button,
  element,
  onSubmit,
  render,
  run,
  say,
  show,
  showError,
  validate,
  viewSection,
} from "../ui/page.js";
import { state } from "../ui/state.js";
import { currentLanguage, dateTime, has, t } from "../ui/strings.js";
import "../ui/strings-organizations.js";
import { callProjects, orgCall } from "./organization-calls.js";

addSignedInPath("/organizations");

const navLink = element("a", { href: "/organizations", hidden: true });
Object.assign(navLink.dataset, { link: "", when: "in", i18n: "nav.organizations" });
// Beside the other pages of the account, before the back office's link (views/admin.js) when there is one.
($("nav-admin") ?? $("logout")).before(navLink);

const section = viewSection(
  "organizations",
  "/organizations",
  `
  <div class="card">
    <h1 data-i18n="org.title">Organizations</h1>
    <p class="muted" data-i18n="org.lead"></p>
    <h2 data-i18n="org.mine">Your organizations</h2>
    <p id="org-loading" class="muted" data-i18n="org.loading" hidden></p>
    <ul id="org-list" class="list org-list"></ul>
    <p id="org-empty" class="muted" data-i18n="org.none" hidden></p>
  </div>
  <form id="org-create" class="card" novalidate>
    <h2 data-i18n="org.createTitle">Create an organization</h2>
    <label><span data-i18n="org.name">Name</span> <input name="name" maxlength="100" autocomplete="organization" required></label>
    <label><span data-i18n="org.slug">Short name</span> <input name="slug" maxlength="48" autocomplete="off" autocapitalize="none" spellcheck="false"></label>
    <button type="submit" data-i18n="org.create">Create</button>
  </form>
  <p id="org-none-active" class="card muted" data-i18n="org.noneActive" hidden></p>
  <div id="org-active" hidden></div>
  <div class="card">
    <h2 data-i18n="projects.title">Projects</h2>
    <p class="muted" data-i18n="projects.lead"></p>
    <div class="row">
      <button id="projects-read" type="button" class="secondary" data-i18n="projects.read">Read projects</button>
      <button id="projects-write" type="button" class="secondary" data-i18n="projects.write">Create a project</button>
    </div>
    <p id="projects-answer" class="wrap" hidden></p>
  </div>
  <div class="card">
    <h2 data-i18n="org.myInvitationsTitle">Invitations to you</h2>
    <p class="muted" data-i18n="org.myInvitationsLead"></p>
    <ul id="org-received" class="list"></ul>
    <p id="org-received-none" class="muted" data-i18n="org.myInvitationsNone" hidden></p>
  </div>`,
);
document.querySelector("main footer").before(section);

/**
 * What this page knows: the lists as last loaded (null until then), for which user and active
 * organization (`loadedFor`), and the demo route's last answer. Views of the active organization
 * (views/organization-admin.js) keep theirs in `organizations.active`.
 */
export const organizations = {
  loadedFor: null,
  generation: 0,
  list: null,
  received: null,
  active: null,
  projects: null,
};

/** The words for a role: ours for the built-in ones, a custom role's own name otherwise. */
export const roleName = (role) => (has(`role.${role}`) ? t(`role.${role}`) : role);

/** After a change: the next render loads the lists again. */
export const reloadOrganizations = () => {
  organizations.generation += 1;
};

/** The loaders and renderers of the active organization's cards (views/organization-admin.js adds its own). */
const activeLoaders = [];
const activeRenderers = [];
/**
 * Adds cards of the active organization: `load(active)` adds their data to `active` (which has
 * `id` and `detail`, the user's role and permissions), `draw(active)` shows it.
 */
export const addActiveCard = (load, draw) => {
  activeLoaders.push(load);
  activeRenderers.push(draw);
};

/** The active organization (`GET /organizations/:id`: the user's role and permissions in it) and its cards' data. */
async function loadActive(id) {
  const active = { id, detail: await orgCall("GET /organizations/:id", { params: { id } }) };
  await Promise.all(activeLoaders.map((loadCard) => loadCard(active)));
  return active;
}

async function load(key) {
  show("org-loading", organizations.list === null);
  try {
    const [list, received] = await Promise.all([orgCall("GET /organizations"), orgCall("GET /invitations")]);
    const activeId = state.me?.activeOrganization?.id;
    // An active organization the user was removed from meanwhile (404) is shown as none.
    const active = activeId
      ? await loadActive(activeId).catch((error) => {
          if (error?.code === "ORGANIZATION_NOT_FOUND") return null;
          throw error;
        })
      : null;
    if (organizations.loadedFor !== key) return;
    Object.assign(organizations, { list: list.items, received: received.items, active });
  } catch (error) {
    // Loaded again on the next render; a session that ended is the app's to show.
    if (organizations.loadedFor === key) organizations.loadedFor = null;
    if (error?.status !== 401) showError(error);
    return;
  }
  show("org-loading", false);
  render();
}

function organizationItem({ organization, role }) {
  const active = state.me?.activeOrganization?.id === organization.id;
  const item = element(
    "li",
    {},
    element("span", {
      textContent: t("org.line", { name: organization.name, slug: organization.slug, role: roleName(role) }),
    }),
  );
  if (active) {
    item.append(element("span", { className: "badge", textContent: t("org.active") }));
    item.setAttribute("aria-current", "true");
  } else {
    const node = button(t("org.switch"), () => switchTo(organization), "secondary small");
    node.setAttribute("aria-label", t("org.switchNamed", { name: organization.name }));
    item.append(node);
  }
  return item;
}

/** Makes `organization` the session's active one: the answer's new access token names it. */
function switchTo(organization) {
  return run(
    () => orgCall("POST /organizations/:id/activate", { params: { id: organization.id } }),
    t("done.orgSwitched", { name: organization.name }),
  ).then(() => {
    organizations.projects = null;
    reloadOrganizations();
    render();
  });
}

const receivedItem = (invitation) =>
  element("li", {
    textContent: t("org.myInvitationLine", {
      name: invitation.organization.name,
      role: roleName(invitation.role),
      time: dateTime(invitation.expiresAt),
    }),
  });

/**
 * The lists are drawn again only when what they show changed (or the language did), so a focused
 * button or a role picked but not saved yet survives the renders of other actions.
 */
let drawn = "";
function draw() {
  const shown = JSON.stringify([currentLanguage(), state.me?.activeOrganization?.id, organizations]);
  if (shown === drawn) return;
  drawn = shown;
  const { list, received, active } = organizations;
  $("org-list").replaceChildren(...(list ?? []).map(organizationItem));
  show("org-empty", list !== null && list.length === 0);
  $("org-received").replaceChildren(...(received ?? []).map(receivedItem));
  show("org-received-none", received !== null && received.length === 0);
  show("org-none-active", list !== null && !active);
  show("org-active", Boolean(active));
  if (active) for (const drawCard of activeRenderers) drawCard(active);
  drawProjects();
}

function drawProjects() {
  const answer = organizations.projects;
  show("projects-answer", Boolean(answer));
  if (!answer) return;
  $("projects-answer").className = `wrap ${answer.code ? "refused" : "allowed"}`;
  $("projects-answer").textContent = answer.code
    ? t("projects.refused", { request: answer.request, status: answer.status, code: answer.code })
    : t("projects.allowed", {
        request: answer.request,
        status: answer.status,
        organization: answer.organizationId,
      });
}

/** Whether the last render showed this page. */
let onPage = false;
/** The page /organizations: loads the lists once per visit, user and active organization, then shows them. */
export function renderOrganizations(view) {
  const arrived = view === "/organizations" && !onPage;
  onPage = view === "/organizations";
  if (!onPage || !state.me) {
    if (!state.me)
      Object.assign(organizations, { loadedFor: null, list: null, received: null, active: null });
    return;
  }
  // Each visit shows the lists as they are now (another member may have changed them meanwhile).
  if (arrived) reloadOrganizations();
  const key = `${state.me.id}|${state.me.activeOrganization?.id ?? ""}|${organizations.generation}`;
  if (organizations.loadedFor !== key) {
    organizations.loadedFor = key;
    load(key);
  }
  draw();
}

onSubmit("org-create", (form, values, submitter) => {
  if (!validate(form)) return;
  const body = { name: values.name.trim(), ...(values.slug.trim() ? { slug: values.slug.trim() } : {}) };
  return run(() => orgCall("POST /organizations", { body }), t("done.orgCreated", { name: body.name }), {
    form,
    button: submitter,
  }).then((result) => {
    if (!result) return;
    form.reset();
    reloadOrganizations();
    render();
  });
});

/** Calls the demo route and shows its answer: the organization it ran for, or the refusal's code. */
async function tryProjects(method) {
  const request = `${method} /api/projects`;
  const answer = await run(() => callProjects(method), "", { refresh: false });
  if (!answer) return;
  organizations.projects = { request, ...answer };
  // The lists again too: the answer follows the role now held, which the page then shows.
  reloadOrganizations();
  if (answer.code)
    say(
      t("done.projectsRefused", {
        reason: has(`code.${answer.code}`) ? t(`code.${answer.code}`) : answer.code,
      }),
      "error",
    );
  else say(t("done.projectsAllowed"));
  render();
}
$("projects-read").addEventListener("click", () => tryProjects("GET"));
$("projects-write").addEventListener("click", () => tryProjects("POST"));
