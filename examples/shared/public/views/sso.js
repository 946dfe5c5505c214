// Single sign-on (docs/sso.md) of the active organization, on the page /organizations/sso (linked
// from the organization page's card) for a member whose role has sso:manage: its connections (SAML
// or OpenID Connect: the identity provider, domains, the role new members get, SSO required, SCIM,
// and what to give the identity provider), a form that adds one after the step-up (the security
// page's box, shown in this page), the SCIM token shown once (on adding, and as a new one), delete
// after a question; and its domains: claim one, the TXT record to publish, verify, remove.
import { isApiError } from "../ui/client.js";
import {
  $,
  addSignedInPath,
  cardConfirm,
  clearFieldErrors,
  element,
  fields,
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
// The organization page's cards of the active organization come first (their markup replaces #org-active).
import "./organization-admin.js";
import { addActiveCard } from "./organizations.js";
import { renderStepUp } from "./security.js";
import {
  clearToken,
  connectionBody,
  connectionItem,
  connectionsPath,
  domainItem,
  domainsPath,
  drawRoleChoices,
  idpOf,
  showToken,
  ssoCall,
} from "./sso-parts.js";

const PATH = "/organizations/sso";
const TOKEN_BOX = "org-sso-token";
addSignedInPath(PATH);

document.querySelector("main footer").before(
  viewSection(
    "org-sso",
    PATH,
    `<div class="card">
      <h1 id="org-sso-title">Single sign-on</h1>
      <p class="muted" data-i18n="sso.lead"></p>
      <p><a href="/organizations" data-link data-i18n="sso.back">Back</a></p>
      <p id="org-sso-notice" hidden></p>
    </div>
    <div id="org-sso-tools" hidden>
      <div id="${TOKEN_BOX}" class="card key-new" hidden></div>
      <div id="org-sso-step-up"></div>
      <div class="card">
        <h2 data-i18n="sso.connections">Connections</h2>
        <p id="org-sso-loading" class="muted" data-i18n="sso.loading" hidden></p>
        <ul id="org-sso-list" class="list sso-list"></ul>
        <p id="org-sso-none" class="muted" data-i18n="sso.none" hidden></p>
      </div>
      <div class="card">
        <h2 data-i18n="sso.domainsTitle">Domains</h2>
        <p class="muted" data-i18n="sso.domainsLead"></p>
        <ul id="org-sso-domains" class="list sso-list"></ul>
        <p id="org-sso-no-domains" class="muted" data-i18n="sso.noClaims" hidden></p>
        <form id="org-sso-claim" novalidate>
          <label><span data-i18n="sso.domain">Domain</span> <input name="domain" maxlength="253" autocomplete="off" autocapitalize="none" spellcheck="false" required></label>
          <button type="submit" data-i18n="sso.claim">Claim the domain</button>
        </form>
      </div>
      <form id="org-sso-create" class="card" novalidate hidden>
        <h2 data-i18n="sso.createTitle">Add a connection</h2>
        <fieldset class="choices">
          <legend data-i18n="sso.kind">Protocol</legend>
          <label class="choice"><input type="radio" name="type" value="saml" checked> <span data-i18n="sso.type.saml">SAML</span></label>
          <label class="choice"><input type="radio" name="type" value="oidc"> <span data-i18n="sso.type.oidc">OpenID Connect</span></label>
        </fieldset>
        <div id="org-sso-saml">
          <p class="muted" data-i18n="sso.samlHow"></p>
          <label><span data-i18n="sso.metadataXml">Metadata</span> <textarea name="metadataXml" rows="5" autocomplete="off" spellcheck="false"></textarea></label>
          <p class="muted sso-or" data-i18n="sso.or">or</p>
          <label><span data-i18n="sso.entityId">Entity ID</span> <input name="entityId" maxlength="1024" autocomplete="off" autocapitalize="none" spellcheck="false"></label>
          <label><span data-i18n="sso.ssoUrl">Sign-on URL</span> <input name="ssoUrl" type="url" inputmode="url" maxlength="2048" autocomplete="off" spellcheck="false"></label>
          <label><span data-i18n="sso.certificate">Certificate</span> <textarea name="certificate" rows="4" autocomplete="off" spellcheck="false"></textarea></label>
        </div>
        <div id="org-sso-oidc" hidden>
          <p class="muted" data-i18n="sso.oidcHow"></p>
          <label><span data-i18n="sso.issuer">Issuer</span> <input name="issuer" type="url" inputmode="url" maxlength="2048" autocomplete="off" spellcheck="false"></label>
          <label><span data-i18n="sso.clientId">Client ID</span> <input name="clientId" maxlength="1024" autocomplete="off" autocapitalize="none" spellcheck="false"></label>
          <label><span data-i18n="sso.clientSecret">Client secret</span> <input name="clientSecret" type="password" maxlength="4096" autocomplete="off"></label>
        </div>
        <label><span data-i18n="sso.domainsField">Domains</span> <input name="domains" autocomplete="off" autocapitalize="none" spellcheck="false"></label>
        <label><span data-i18n="sso.defaultRole">Role of new members</span> <select name="defaultRole"></select></label>
        <label class="check"><input name="ssoRequired" type="checkbox"> <span data-i18n="sso.ssoRequired">Require SSO</span></label>
        <button type="submit" data-i18n="sso.create">Add the connection</button>
      </form>
    </div>`,
    "view sso-view",
  ),
);

/**
 * What the page knows of the active organization's single sign-on: its id and name, the
 * connections and the claimed domains (null until loaded), the roles new members may get, a
 * notice instead of the tools (SSO off, a role without the permission), and for which visit they
 * were loaded (`loadedFor`).
 */
const sso = {
  orgId: null,
  name: null,
  items: null,
  domains: null,
  roles: ["admin", "member"],
  notice: "",
  loadedFor: null,
};

/** The connections and domains again: after a change. */
async function refresh() {
  const [connections, domains] = await Promise.all([
    ssoCall("GET", connectionsPath(sso.orgId)),
    ssoCall("GET", domainsPath(sso.orgId)),
  ]);
  Object.assign(sso, { items: connections.items, domains: domains.items });
}

/** Why the lists could not be loaded, as the page's notice (null: an error to show as it is). */
const NOTICES = { NOT_FOUND: "sso.off", PERMISSION_DENIED: "sso.denied" };

/** The organization's name and roles (custom ones when the user may read them), its connections and domains, for the visit `key`. */
async function load(id, key, mayReadRoles) {
  try {
    const [detail, roles, connections, domains] = await Promise.all([
      orgCall("GET /organizations/:id", { params: { id } }).catch(() => null),
      mayReadRoles ? orgCall("GET /organizations/:id/roles", { params: { id } }).catch(() => null) : null,
      ssoCall("GET", connectionsPath(id)),
      ssoCall("GET", domainsPath(id)),
    ]);
    if (sso.loadedFor !== key) return;
    Object.assign(sso, {
      name: detail?.organization.name ?? null,
      roles: roles ? roles.items.map((role) => role.name) : ["admin", "member"],
      items: connections.items,
      domains: domains.items,
    });
  } catch (error) {
    if (sso.loadedFor !== key) return;
    const notice = isApiError(error) ? NOTICES[error.code] : undefined;
    if (notice) sso.notice = notice;
    else if (error?.status !== 401) showError(error);
  }
  render();
}

// ---- Actions ----------------------------------------------------------------------------------
const confirmDelete = cardConfirm("sso", "sso.yes");
const confirmRemove = cardConfirm("sso-domain", "sso.yesRemove");

/** A call, then the lists again (a failure there leaves them as they were); `done` its words. */
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

/** False (saying so, the step-up's password field focused) while the step-up is not open. */
function steppedUp(origin) {
  if (stepUpOpen()) return true;
  say(t("sso.stepUpFirst"), "error");
  const password = $("step-up").querySelector("[name=password]");
  (password.offsetParent ? password : origin).focus();
  return false;
}

const connectionActions = {
  /** A new SCIM token, shown once; the old one stops working. */
  token(connection, origin) {
    if (!steppedUp(origin)) return undefined;
    const idp = idpOf(connection);
    return change(
      () => ssoCall("POST", connectionsPath(sso.orgId, `/${encodeURIComponent(connection.id)}/scim-token`)),
      t("done.ssoToken", { idp }),
      { button: origin },
    ).then((result) => {
      if (result)
        showToken(TOKEN_BOX, {
          title: t("sso.tokenTitle", { idp }),
          warning: t("sso.rotatedWarning"),
          token: result.scimToken,
        });
    });
  },
  remove(connection, origin) {
    if (!steppedUp(origin)) return;
    const idp = idpOf(connection);
    confirmDelete.ask(origin, t("sso.confirmDelete", { idp }), () =>
      change(
        () => ssoCall("DELETE", connectionsPath(sso.orgId, `/${encodeURIComponent(connection.id)}`)),
        t("done.ssoDeleted", { idp }),
      ),
    );
  },
};

const domainActions = {
  verify(domain, origin) {
    if (!steppedUp(origin)) return undefined;
    return change(
      () => ssoCall("POST", domainsPath(sso.orgId, `/${encodeURIComponent(domain.domain)}/verify`)),
      t("done.domainVerified", { domain: domain.domain }),
      { button: origin },
    );
  },
  remove(domain, origin) {
    if (!steppedUp(origin)) return;
    confirmRemove.ask(origin, t("sso.confirmRemove", { domain: domain.domain }), () =>
      change(
        () => ssoCall("DELETE", domainsPath(sso.orgId, `/${encodeURIComponent(domain.domain)}`)),
        t("done.domainRemoved", { domain: domain.domain }),
      ),
    );
  },
};

onSubmit("org-sso-claim", (form, values, submitter) => {
  if (!validate(form)) return;
  return change(
    () => ssoCall("POST", domainsPath(sso.orgId), { domain: values.domain.trim() }),
    (result) =>
      t(result.domain.verified ? "done.domainVerified" : "done.domainClaimed", {
        domain: result.domain.domain,
      }),
    { form, button: submitter },
  ).then((result) => {
    if (result) form.reset();
  });
});

onSubmit("org-sso-create", (form, values, submitter) => {
  clearFieldErrors();
  const body = connectionBody(form, values);
  if (!body) {
    say(t(values.type === "oidc" ? "error.fields" : "sso.samlMissing"), "error");
    form.querySelector("[aria-invalid]")?.focus();
    return;
  }
  return change(() => ssoCall("POST", connectionsPath(sso.orgId), body), t("done.ssoCreated"), {
    form,
    button: submitter,
  }).then((result) => {
    if (!result) return;
    form.reset();
    showKind();
    showToken(TOKEN_BOX, {
      title: t("sso.tokenTitle", { idp: idpOf(result.connection) }),
      warning: t("sso.tokenWarning"),
      token: result.scimToken,
    });
  });
});

/** The add form shows the fields of the protocol picked. */
function showKind() {
  const type = fields($("org-sso-create")).type;
  show("org-sso-saml", type !== "oidc");
  show("org-sso-oidc", type === "oidc");
}
$("org-sso-create").addEventListener("change", (event) => {
  if (event.target.name === "type") showKind();
});

// ---- Drawing ----------------------------------------------------------------------------------
/**
 * The lists are drawn again only when what they show changed (or the language did), so a focused
 * button survives the renders of other actions; a button that was replaced hands its focus to the
 * same button of the new list.
 */
let drawn = "";
function draw() {
  const key = JSON.stringify([currentLanguage(), sso.items, sso.domains, sso.roles]);
  if (key === drawn) return;
  drawn = key;
  const focused = document.activeElement?.dataset?.focus;
  const items = sso.items ?? [];
  const domains = sso.domains ?? [];
  $("org-sso-list").replaceChildren(
    ...items.map((connection) => connectionItem(connection, connectionActions)),
  );
  $("org-sso-domains").replaceChildren(...domains.map((domain) => domainItem(domain, domainActions)));
  show("org-sso-loading", sso.items === null);
  show("org-sso-none", sso.items !== null && items.length === 0);
  show("org-sso-no-domains", sso.domains !== null && domains.length === 0);
  drawRoleChoices($("org-sso-create").querySelector("[name=defaultRole]"), sso.roles);
  if (focused && !document.activeElement?.isConnected)
    document.querySelector(`[data-focus="${CSS.escape(focused)}"]`)?.focus();
}

let visit = 0;
let onPage = false;
/** The page /organizations/sso: loaded once per visit, user and active organization. */
export function renderSso(view) {
  const arrived = view === PATH && !onPage;
  onPage = view === PATH && Boolean(state.me);
  if (!onPage) {
    // The token is shown once: leaving the page forgets it.
    clearToken(TOKEN_BOX);
    confirmDelete.close();
    confirmRemove.close();
    return;
  }
  if (arrived) visit += 1;
  const active = state.me.activeOrganization;
  const allowed = Boolean(active?.permissions.includes("sso:manage"));
  const key = `${state.me.id}|${active?.id ?? ""}|${visit}`;
  if (allowed && sso.loadedFor !== key) {
    Object.assign(sso, {
      orgId: active.id,
      name: null,
      items: null,
      domains: null,
      notice: "",
      loadedFor: key,
    });
    load(active.id, key, active.permissions.includes("role:manage"));
  }
  const notice = !active ? "sso.noActive" : !allowed ? "sso.denied" : sso.notice;
  $("org-sso-notice").textContent = notice ? t(notice) : "";
  show("org-sso-notice", Boolean(notice));
  show("org-sso-tools", !notice);
  $("org-sso-title").textContent =
    allowed && sso.name ? t("sso.orgTitle", { name: sso.name }) : t("sso.title");
  if (notice) return;
  const confirmed = renderStepUp("org-sso-step-up");
  show("org-sso-step-up", !confirmed);
  show("org-sso-create", confirmed);
  draw();
}

// ---- The organization page's card ------------------------------------------------------------
const card = element("div", { id: "org-sso-card", className: "card", hidden: true });
card.innerHTML = `
  <h2 data-i18n="sso.title">Single sign-on</h2>
  <p class="muted" data-i18n="sso.cardLead"></p>
  <p id="org-sso-card-count" class="muted"></p>
  <a id="org-sso-link" href="${PATH}" class="button secondary" data-link data-i18n="sso.link">Open</a>`;
$("org-active").append(card);
addActiveCard(
  async (active) => {
    // Only for a role that may manage it; a failure (SSO off: 404) hides the card.
    const list = active.detail.permissions.includes("sso:manage")
      ? await ssoCall("GET", connectionsPath(active.id)).catch(() => null)
      : null;
    active.ssoConnections = list ? list.items.length : null;
  },
  (active) => {
    card.hidden = active.ssoConnections === null || active.ssoConnections === undefined;
    if (!card.hidden) $("org-sso-card-count").textContent = plural("sso.count", active.ssoConnections);
  },
);
