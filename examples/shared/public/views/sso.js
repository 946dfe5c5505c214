// Single sign-on (docs/sso.md) of the active organization, on the page /organizations/sso (linked
// from the organization page's card) for a member whose role has sso:manage: its connections (SAML
// or OpenID Connect: the identity provider, domains, the role new members get, SSO required, SCIM,
// and what to give the identity provider), a form that adds one after the step-up (the security
// page's box, shown in this page), the SCIM token shown once (on adding, and as a new one), delete
// after a question; and its domains: claim one, the TXT record to publish, verify, remove.
import {
  addOrgToolSection,
  changeAndReload,
  orgToolCard,
  orgToolPage,
  redrawOnChange,
  steppedUp,
} from "../ui/list-page.js";
import { $, cardConfirm, clearFieldErrors, fields, onSubmit, say, show, validate } from "../ui/page.js";
import { forgetShown } from "../ui/shown-once.js";
import { t } from "../ui/strings.js";
import { orgCall } from "./organization-calls.js";
// The organization page's cards of the active organization come first (their markup replaces #org-active).
import "./organization-admin.js";
import { addActiveCard } from "./organizations.js";
import { renderStepUp } from "./security.js";
import {
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

/** The page, as ui/list-page.js takes it. */
const TOOL = {
  path: "/organizations/sso",
  prefix: "org-sso",
  words: "sso",
  permission: "sso:manage",
  heading: "Single sign-on",
};
const TOKEN_BOX = "org-sso-token";

addOrgToolSection(
  TOOL,
  `
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
    `,
  "sso-view",
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

/** The organization's name and roles (custom ones when the user may read them), its connections and domains. */
async function fetchTools(id, active) {
  const mayReadRoles = active.permissions.includes("role:manage");
  const [detail, roles, connections, domains] = await Promise.all([
    orgCall("GET /organizations/:id", { params: { id } }).catch(() => null),
    mayReadRoles ? orgCall("GET /organizations/:id/roles", { params: { id } }).catch(() => null) : null,
    ssoCall("GET", connectionsPath(id)),
    ssoCall("GET", domainsPath(id)),
  ]);
  return {
    name: detail?.organization.name ?? null,
    roles: roles ? roles.items.map((role) => role.name) : ["admin", "member"],
    items: connections.items,
    domains: domains.items,
  };
}

// ---- Actions ----------------------------------------------------------------------------------
const confirmDelete = cardConfirm("sso", "sso.yes");
const confirmRemove = cardConfirm("sso-domain", "sso.yesRemove");

/** A call, then the lists again (a failure there leaves them as they were); `done` its words. */
const change = changeAndReload(refresh);
/** False (saying so) while the step-up is not open. */
const stepUpFirst = (origin) => steppedUp(origin, t("sso.stepUpFirst"));

const connectionActions = {
  /** A new SCIM token, shown once; the old one stops working. */
  token(connection, origin) {
    if (!stepUpFirst(origin)) return undefined;
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
    if (!stepUpFirst(origin)) return;
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
    if (!stepUpFirst(origin)) return undefined;
    return change(
      () => ssoCall("POST", domainsPath(sso.orgId, `/${encodeURIComponent(domain.domain)}/verify`)),
      t("done.domainVerified", { domain: domain.domain }),
      { button: origin },
    );
  },
  remove(domain, origin) {
    if (!stepUpFirst(origin)) return;
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
/** The lists, drawn again only when what they show changed (ui/list-page.js). */
const draw = redrawOnChange(
  () => [sso.items, sso.domains, sso.roles],
  () => {
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
  },
);

/** The page /organizations/sso: loaded once per visit, user and active organization. */
export const renderSso = orgToolPage(TOOL, {
  page: sso,
  renderStepUp,
  start: () => Object.assign(sso, { items: null, domains: null }),
  fetch: fetchTools,
  draw,
  leave() {
    // The token is shown once: leaving the page forgets it.
    forgetShown(TOKEN_BOX);
    confirmDelete.close();
    confirmRemove.close();
  },
});

// ---- The organization page's card ------------------------------------------------------------
addActiveCard(
  ...orgToolCard(TOOL, (id) => ssoCall("GET", connectionsPath(id)).then((list) => list.items.length)),
);
