// What the single sign-on page (views/sso.js) draws and sends: the calls of the enterprise sign-in
// routes (`@portcullis/sso`, docs/sso.md), a connection's line (its identity provider, domains,
// default role, whether SSO is required, SCIM, and what to give the identity provider), a claimed
// domain's line (verified, or the TXT record to publish), the add form's body, and the box that
// shows a SCIM token once.
import { button, callApi, element, markField, named } from "../ui/page.js";
import { showOnce } from "../ui/shown-once.js";
import { dateTime, t } from "../ui/strings.js";
import "../ui/strings-sso.js";
import { roleName } from "./organizations.js";

/** The auth routes' mount (ui/client.js's `baseUrl`). */
const BASE = "/api/auth";

/**
 * `method <path>` of the auth API with the session and a JSON `body` (`callApi`): the answer's
 * JSON, or the API's error. The client's route table has no SSO routes.
 */
export const ssoCall = (method, path, body) => callApi(method, `${BASE}${path}`, body);

/** The path of the organization `id`'s connections (`/…/sso/connections`) or domains (`/…/domains`), `rest` after it. */
export const connectionsPath = (id, rest = "") =>
  `/organizations/${encodeURIComponent(id)}/sso/connections${rest}`;
export const domainsPath = (id, rest = "") => `/organizations/${encodeURIComponent(id)}/domains${rest}`;

/** Where an identity provider sends its SCIM requests (the connection's token says which directory). */
export const scimBaseUrl = () => `${location.origin}${BASE}/scim/v2`;

/** A connection's identity provider as the page names it: the SAML entity ID or the OpenID Connect issuer. */
export const idpOf = (connection) => connection.saml?.entityId ?? connection.oidc?.issuer ?? connection.id;

/** A list of terms and values, stacked (`org-fields`); a value that is a node stays one, `key` marks it for tests. */
function fieldList(pairs, className = "org-fields sso-fields") {
  return element(
    "dl",
    { className },
    ...pairs.flatMap(([term, value, key]) => {
      const dd = element("dd", {}, value);
      if (key) dd.dataset.field = key;
      return [element("dt", { textContent: term }), dd];
    }),
  );
}
const code = (text) => element("code", { className: "sso-code", textContent: text });

/** What the identity provider's administrator enters: SAML's entity ID, ACS and metadata URLs, or OpenID Connect's redirect URI; and SCIM's base URL. */
function serviceProviderFields(connection) {
  const sp = connection.serviceProvider ?? {};
  const pairs = connection.saml
    ? [
        [t("sso.spEntityId"), code(sp.entityId ?? ""), "entityId"],
        [t("sso.acsUrl"), code(sp.acsUrl ?? ""), "acsUrl"],
        [
          t("sso.metadataUrl"),
          element("a", {
            href: sp.metadataUrl ?? "",
            textContent: sp.metadataUrl ?? "",
            className: "sso-code",
          }),
          "metadataUrl",
        ],
      ]
    : [[t("sso.redirectUri"), code(sp.redirectUri ?? ""), "redirectUri"]];
  if (connection.scim) pairs.push([t("sso.scimBase"), code(scimBaseUrl()), "scimBase"]);
  return fieldList(pairs);
}

/**
 * A connection's line: its identity provider and protocol, its domains, the role new members get,
 * whether SSO is required and SCIM is on, what to give the identity provider, and the buttons
 * `actions.token` (a new SCIM token) and `actions.remove`, each named for the identity provider.
 */
export function connectionItem(connection, actions) {
  const idp = idpOf(connection);
  const domains = connection.domains.length > 0 ? connection.domains.join(", ") : t("sso.noDomains");
  const text = element(
    "div",
    { className: "sso-text" },
    element(
      "div",
      { className: "sso-head" },
      element("strong", { className: "sso-idp", textContent: idp }),
      element("span", { className: "tag", textContent: t(`sso.type.${connection.type}`) }),
    ),
    fieldList([
      [t("sso.domains"), domains, "domains"],
      [t("sso.defaultRole"), roleName(connection.defaultRole), "defaultRole"],
      [t("sso.required"), t(connection.ssoRequired ? "sso.requiredYes" : "sso.requiredNo"), "ssoRequired"],
      [t("sso.scim"), t(connection.scim ? "sso.scimOn" : "sso.scimOff"), "scim"],
    ]),
    element("h3", { textContent: t("sso.forIdp") }),
    serviceProviderFields(connection),
  );
  const token = named(
    button(t("sso.newToken"), (event) => actions.token(connection, event.currentTarget), "secondary small"),
    t("sso.newTokenFor", { idp }),
    `${connection.id}:token`,
  );
  const remove = named(
    button(t("sso.delete"), (event) => actions.remove(connection, event.currentTarget), "danger small"),
    t("sso.deleteFor", { idp }),
    `${connection.id}:delete`,
  );
  const item = element(
    "li",
    { className: "sso-item" },
    text,
    element("div", { className: "row sso-actions" }, token, remove),
  );
  item.dataset.connection = connection.id;
  return item;
}

/**
 * A claimed domain's line: verified (and when), or the TXT record to publish with `actions.verify`;
 * and `actions.remove`. The buttons are named for the domain.
 */
export function domainItem(domain, actions) {
  const name = domain.domain;
  const state = domain.verified
    ? element("span", {
        className: "sso-state on",
        textContent: domain.verifiedAt
          ? t("sso.verifiedAt", { time: dateTime(domain.verifiedAt) })
          : t("sso.verified"),
      })
    : element("span", { className: "sso-state off", textContent: t("sso.unverified") });
  const text = element(
    "div",
    { className: "sso-text" },
    element("strong", { className: "sso-idp", textContent: name }),
    state,
  );
  if (!domain.verified)
    text.append(
      fieldList([
        [t("sso.recordName"), code(domain.record.name), "recordName"],
        [t("sso.recordValue"), code(domain.record.value), "recordValue"],
      ]),
    );
  const buttons = [];
  if (!domain.verified)
    buttons.push(
      named(
        button(t("sso.verify"), (event) => actions.verify(domain, event.currentTarget), "small"),
        t("sso.verifyFor", { domain: name }),
        `${name}:verify`,
      ),
    );
  buttons.push(
    named(
      button(t("sso.remove"), (event) => actions.remove(domain, event.currentTarget), "danger small"),
      t("sso.removeFor", { domain: name }),
      `${name}:remove`,
    ),
  );
  const item = element(
    "li",
    { className: "sso-item" },
    text,
    element("div", { className: "row sso-actions" }, ...buttons),
  );
  item.dataset.domain = name;
  return item;
}

// ---- The add form -----------------------------------------------------------------------------
/** The fields of a protocol that must all be filled when its settings are typed in. */
const TYPED = { saml: ["entityId", "ssoUrl", "certificate"], oidc: ["issuer", "clientId", "clientSecret"] };

/** Marks the empty fields of `names` in `form`; true when none is empty. */
function filled(form, values, names) {
  const empty = names.filter((name) => (values[name] ?? "").trim() === "");
  for (const name of empty) markField(form.querySelector(`[name=${name}]`), t("sso.fieldRequired"));
  return empty.length === 0;
}

/**
 * The body of a create from the add form's values (`type` saml or oidc), or null with the missing
 * fields marked: SAML takes the metadata, or the entity ID, the sign-on URL and the certificate;
 * OpenID Connect takes the issuer, the client ID and its secret. Domains are comma-separated.
 */
export function connectionBody(form, values) {
  const type = values.type === "oidc" ? "oidc" : "saml";
  const common = {
    type,
    domains: (values.domains ?? "")
      .split(/[\s,]+/)
      .map((entry) => entry.trim())
      .filter(Boolean),
    defaultRole: values.defaultRole || "member",
    ssoRequired: values.ssoRequired === "on",
  };
  if (type === "saml" && (values.metadataXml ?? "").trim() !== "")
    return { ...common, metadataXml: values.metadataXml.trim() };
  if (!filled(form, values, TYPED[type])) return null;
  return type === "saml"
    ? {
        ...common,
        entityId: values.entityId.trim(),
        ssoUrl: values.ssoUrl.trim(),
        certificate: values.certificate.trim(),
      }
    : {
        ...common,
        issuer: values.issuer.trim(),
        clientId: values.clientId.trim(),
        clientSecret: values.clientSecret.trim(),
      };
}

/** The default-role choices: the organization's roles but `owner` (an identity provider makes no owners). */
export function drawRoleChoices(select, roles) {
  const chosen = select.value || "member";
  select.replaceChildren(
    ...roles
      .filter((role) => role !== "owner")
      .map((role) =>
        element("option", {
          value: role,
          textContent: roleName(role),
          // The form's reset goes back to `member`, the server's default.
          defaultSelected: role === "member",
          selected: role === chosen,
        }),
      ),
  );
}

// ---- A SCIM token, shown once -----------------------------------------------------------------
/** Shows a SCIM token once in the box `boxId` (`showOnce`), under `title` and `warning`. */
export function showToken(boxId, { title, warning, token }) {
  showOnce(boxId, {
    title,
    warning,
    label: t("sso.tokenLabel"),
    value: token,
    strings: "sso",
  });
}
