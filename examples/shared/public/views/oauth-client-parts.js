// What the back office's OAuth clients page (views/oauth-clients.js) is made of: the calls of the
// provider's client routes as the signed-in admin, the form's grants and scopes, reading and
// checking the form, a client's line in the list, and a secret shown once.
import { PortcullisError } from "/portcullis-client.js";
import { button, callApi, element, markField, markFieldset, named, say } from "../ui/page.js";
import { showOnce } from "../ui/shown-once.js";
import { dateTime, t } from "../ui/strings.js";
import "../ui/strings-oauth-clients.js";

/** The device grant's `grant_type` (RFC 8628). */
const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
/** The grants a client may be given, with the key of their words (`grant.<key>`, `grantTag.<key>`). */
export const GRANTS = [
  { type: "authorization_code", key: "authorization_code" },
  { type: "refresh_token", key: "refresh_token" },
  { type: "client_credentials", key: "client_credentials" },
  { type: DEVICE_GRANT, key: "device" },
];
const grantKey = (type) => GRANTS.find((grant) => grant.type === type)?.key;

// ---- Calls ------------------------------------------------------------------------------------
/**
 * The error of a refused answer as `run` shows it: the API's own (`{ code, message }`: the admin
 * check, `STEP_UP_REQUIRED`), or the provider's RFC 7591 / RFC 6749 error in the page's words.
 */
async function errorOf(response) {
  const body = await response.json().catch(() => null);
  const status = response.status;
  if (typeof body?.code === "string")
    return new PortcullisError(body.code, typeof body.message === "string" ? body.message : body.code, {
      status,
    });
  const detail = typeof body?.error_description === "string" ? body.error_description : "";
  if (body?.error === "invalid_redirect_uri")
    return new PortcullisError("VALIDATION_FAILED", t("clients.refusedRedirect", { detail }), {
      status,
      fields: [{ path: "redirectUris", message: t("clients.refusedRedirect", { detail }) }],
    });
  if (status === 404) return new PortcullisError("NOT_FOUND", t("clients.gone"), { status });
  if (typeof body?.error === "string")
    return new PortcullisError("VALIDATION_FAILED", t("clients.refused", { detail: detail || body.error }), {
      status,
    });
  return new PortcullisError("UNEXPECTED_RESPONSE", `HTTP ${status}`, { status });
}

/**
 * `method <prefix>/oauth2/clients<path>` as the signed-in admin (`callApi`): the session's cookies
 * (its step-up cookie too), refreshed on a 401 by the client's `fetch`. The answer's JSON, or a
 * `PortcullisError` (`NETWORK_FAILURE` when no answer came).
 */
export const clientCall = (method, path = "", body) =>
  callApi(method, `/api/auth/oauth2/clients${path}`, body, errorOf);

/** The scopes the provider offers (its discovery document's `scopes_supported`). */
export async function offeredScopes() {
  const response = await fetch("/api/auth/.well-known/openid-configuration");
  if (!response.ok) throw new PortcullisError("UNEXPECTED_RESPONSE", `HTTP ${response.status}`);
  return (await response.json()).scopes_supported ?? [];
}

// ---- The form ---------------------------------------------------------------------------------
/** A fieldset's checkboxes `name`, one per value, in words; those checked before stay checked (or `checked`). */
function drawChoices(fieldset, legend, name, choices, checked) {
  const picked = checked ?? [...fieldset.querySelectorAll("input:checked")].map((input) => input.value);
  fieldset.replaceChildren(
    element("legend", { textContent: legend }),
    ...choices.map(({ value, text }) =>
      element(
        "label",
        { className: "choice" },
        element("input", { type: "checkbox", name, value, checked: picked.includes(value) }),
        ` ${text}`,
      ),
    ),
  );
}

/** The form's grants and scopes (`scopes`: the provider's), in the page's language; `client`'s checked when given. */
export function drawFormChoices(form, scopes, client) {
  drawChoices(
    form.querySelector("#clients-grants"),
    t("clients.grants"),
    "grant",
    GRANTS.map(({ type, key }) => ({ value: type, text: t(`grant.${key}`) })),
    client?.grantTypes,
  );
  drawChoices(
    form.querySelector("#clients-scopes"),
    t("clients.scopes"),
    "scope",
    scopes.map((scope) => ({ value: scope, text: scope })),
    client?.scopes,
  );
}

/** The form as a new one: empty, confidential, the browser sign-in and refresh tokens picked. */
export function resetForm(form, scopes) {
  form.reset();
  drawFormChoices(form, scopes, { grantTypes: ["authorization_code", "refresh_token"], scopes: [] });
}

/** The form filled with `client`'s fields, to change them. */
export function fillForm(form, scopes, client) {
  form.querySelector("[name=name]").value = client.name;
  form.querySelector("[name=redirectUris]").value = client.redirectUris.join("\n");
  drawFormChoices(form, scopes, client);
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);
/** The provider's rule for a redirect URI: https; http on a loopback host; an app's scheme with a dot. No fragment. */
function isRedirectUri(uri) {
  if (!URL.canParse(uri) || uri.includes("#")) return false;
  const url = new URL(uri);
  if (url.username !== "" || url.password !== "") return false;
  if (url.protocol === "https:") return url.host !== "";
  if (url.protocol === "http:") return LOOPBACK_HOSTS.has(url.hostname);
  return /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]*:$/.test(url.protocol);
}

const picked = (form, name) =>
  [...form.querySelectorAll(`input[name=${name}]:checked`)].map((input) => input.value);

/**
 * The client the form describes, checked as the provider will check it (a field's problem under
 * it, the first one said and focused): the body of a create, or of a change (`editing`, without
 * the client ID and kind, which do not change). Null when something must be fixed first.
 */
export function clientFromForm(form, editing) {
  const field = (name) => form.querySelector(`[name=${name}]`);
  const problems = [];
  const clientId = field("clientId").value.trim();
  if (!editing && clientId !== "" && !/^[A-Za-z0-9._~-]{1,100}$/.test(clientId))
    problems.push(() => markField(field("clientId"), t("clients.badClientId")));
  const kind = form.querySelector("[name=kind]:checked")?.value;
  const confidential = editing ? editing.confidential : kind === "confidential";
  const redirectUris = [...new Set(field("redirectUris").value.split(/\s+/).filter(Boolean))];
  const wrong = redirectUris.find((uri) => !isRedirectUri(uri));
  const grantTypes = picked(form, "grant");
  if (wrong !== undefined)
    problems.push(() => markField(field("redirectUris"), t("clients.badRedirect", { uri: wrong })));
  else if (grantTypes.includes("authorization_code") && redirectUris.length === 0)
    problems.push(() => markField(field("redirectUris"), t("clients.needRedirect")));
  const grants = form.querySelector("#clients-grants");
  if (grantTypes.length === 0) problems.push(() => markFieldset(grants, t("clients.pickGrant")));
  else if (grantTypes.includes("client_credentials") && !confidential)
    problems.push(() => markFieldset(grants, t("clients.credentialsNeedSecret")));
  for (const mark of problems) mark();
  if (problems.length > 0) {
    const first = form.querySelector("[aria-invalid=true]");
    say(form.querySelector(".field-error")?.textContent ?? t("error.fields"), "error");
    (first?.matches("fieldset") ? first.querySelector("input") : first)?.focus();
    return null;
  }
  const body = { name: field("name").value.trim(), redirectUris, grantTypes, scopes: picked(form, "scope") };
  if (editing) return body;
  return { ...(clientId === "" ? {} : { clientId }), ...body, confidential };
}

// ---- A client in the list ---------------------------------------------------------------------
/**
 * A client's line: its name, ID, kind and date, redirect URIs, grants and scopes, and the buttons
 * `actions.edit`, `actions.rotate` (a confidential client only) and `actions.remove`, each named
 * for the client.
 */
export function clientItem(client, actions) {
  const { name, clientId } = client;
  const kind = [
    t(client.confidential ? "clients.confidential" : "clients.public"),
    ...(client.dynamic ? [t("clients.dynamic")] : []),
    t("clients.added", { time: dateTime(client.createdAt) }),
  ].join(" · ");
  const redirects =
    client.redirectUris.length > 0
      ? element(
          "ul",
          { className: "client-redirects" },
          ...client.redirectUris.map((uri) => element("li", { textContent: uri })),
        )
      : element("span", { className: "muted", textContent: t("clients.noRedirects") });
  const tags = [
    ...client.grantTypes.map((type) =>
      element("span", {
        className: "tag",
        textContent: grantKey(type) ? t(`grantTag.${grantKey(type)}`) : type,
      }),
    ),
    ...client.scopes.map((scope) => element("span", { className: "tag scope-tag", textContent: scope })),
  ];
  const text = element(
    "div",
    { className: "client-text" },
    element("strong", { className: "client-name", textContent: name }),
    element("code", { className: "client-id", textContent: clientId }),
    element("span", { className: "muted client-kind", textContent: kind }),
    redirects,
    element("span", { className: "org-tags" }, ...tags),
  );
  const act = (words, action, className, focus) =>
    named(
      button(t(`clients.${words}`), (event) => action(client, event.currentTarget), className),
      t(`clients.${words}Named`, { name }),
      `${clientId}:${focus}`,
    );
  const buttons = [
    act("edit", actions.edit, "secondary small", "edit"),
    ...(client.confidential ? [act("rotate", actions.rotate, "secondary small", "rotate")] : []),
    act("delete", actions.remove, "danger small", "delete"),
  ];
  const item = element("li", {}, text, element("div", { className: "row client-actions" }, ...buttons));
  item.dataset.client = clientId;
  return item;
}

// ---- The secret -------------------------------------------------------------------------------
/** Shows a client's new secret once in `boxId` (`rotated`: it replaced the old one). */
export function showClientSecret(boxId, { name, secret, rotated }) {
  showOnce(boxId, {
    title: t("clients.secretTitle", { name }),
    warning: t(rotated ? "clients.rotatedWarning" : "clients.secretWarning"),
    label: t("clients.secretLabel"),
    value: secret,
    strings: "clients",
  });
}
